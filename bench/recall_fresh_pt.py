"""Fresh held-out recall templates, Portuguese (Brazilian) (written blind, round 7)."""

from typing import Any

TABLE: dict[str, Any] = {
    "names": [
        "Pedro",
        "Lucas",
        "Gabriel",
        "Rafael",
        "Bruno",
        "Thiago",
        "Felipe",
        "Gustavo",
        "Rodrigo",
        "Diego",
        "Marcelo",
        "André",
    ],
    "facts": {
        "partner_name": (
            ["Camila", "Juliana", "Fernanda", "Larissa", "Beatriz", "Patrícia"],
            "A namorada do {p} se chama {v}.",
            [
                "como é mesmo o nome da namorada do {p}?",
                "encontrei a {v} no mercado hoje, ela tava com a maior pressa kkk",
                "o {p} ainda tá namorando? faz tempo que não pergunto",
                "vou chamar o {p} pro jantar de sábado, será que ele traz a namorada junto?",
            ],
            [
                "o {o} tá namorando alguém?",
                "qual o nome da namorada do {o}?",
            ],
        ),
        "car": (
            ["Gol prata", "Onix branco", "Fiat Uno velho", "HB20 preto", "Corolla", "Renegade vermelho"],
            "{p} dirige um {v}.",
            [
                "qual é o carro do {p} mesmo?",
                "vi um {v} igualzinho ao do {p} no estacionamento lol",
                "o {p} ainda tá pagando as parcelas do carro?",
                "será que cabe todo mundo no carro do {p} pra ir pra praia? 🚗",
            ],
            [
                "o {o} tem carro?",
                "que carro o {o} dirige?",
            ],
        ),
        "favorite_dish": (
            ["feijoada", "lasanha", "strogonoff", "moqueca", "escondidinho de carne", "bobó de camarão"],
            "O prato favorito do {p} é {v}.",
            [
                "qual é a comida preferida do {p}? quero cozinhar pra ele",
                "fiz {v} hoje e lembrei do {p} na hora 😋",
                "o {p} falou de novo daquele prato que ele ama kkk",
                "quero agradar o {p} no jantar de sexta, o que eu preparo?",
            ],
            [
                "qual o prato favorito do {o}?",
                "o {o} gosta de que tipo de comida?",
            ],
        ),
        "hometown": (
            ["Recife", "Curitiba", "Belo Horizonte", "Manaus", "Fortaleza", "Porto Alegre"],
            "{p} nasceu e cresceu em {v}.",
            [
                "de onde o {p} é mesmo?",
                "vou passar uns dias em {v}, alguém conhece por lá?",
                "o {p} sente falta da cidade natal dele?",
                "o {p} falou que vai pra terra dele no feriado, é longe daqui?",
            ],
            [
                "de onde o {o} é?",
                "o {o} nasceu aqui mesmo?",
            ],
        ),
        "studied": (
            ["Engenharia Civil", "Direito", "Arquitetura", "Psicologia", "Administração", "Biologia"],
            "{p} se formou em {v}.",
            [
                "o {p} fez faculdade de quê mesmo?",
                "minha prima quer cursar {v}, o {p} podia dar umas dicas pra ela né",
                "o {p} ainda guarda as apostilas da faculdade? 😂",
                "o {p} pensa em fazer mestrado na mesma área?",
            ],
            [
                "o {o} fez faculdade de quê?",
                "o {o} chegou a se formar?",
            ],
        ),
        "upcoming_trip": (
            ["Lisboa", "Buenos Aires", "Santiago", "Orlando", "Cancún", "Paris"],
            "{p} vai viajar para {v} em dezembro.",
            [
                "pra onde o {p} vai viajar mesmo?",
                "alguém tem dica de restaurante em {v}? é pro {p}",
                "o {p} já comprou as passagens?",
                "preciso saber se o {p} vai estar por aqui no fim do ano ou viajando",
            ],
            [
                "o {o} vai viajar nas férias?",
                "pra onde o {o} vai em dezembro?",
            ],
        ),
        "injury": (
            [
                "uma fratura no pé",
                "uma lesão no joelho",
                "uma hérnia de disco",
                "um ombro deslocado",
                "uma tendinite no pulso",
                "um estiramento na coxa",
            ],
            "{p} está se recuperando de {v}.",
            [
                "o {p} já melhorou da lesão?",
                "meu tio teve {v} ano passado, demorou meses pra sarar",
                "o {p} ainda tá indo na fisioterapia?",
                "será que o {p} consegue jogar bola com a gente domingo ou ainda tá machucado?",
            ],
            [
                "o {o} se machucou?",
                "o {o} tá fazendo fisioterapia?",
            ],
        ),
        "hobby": (
            ["escalada", "pescaria", "fotografia", "marcenaria", "xadrez", "surfe"],
            "{p} curte {v} nas horas vagas.",
            [
                "o que o {p} gosta de fazer no tempo livre?",
                "vi um vídeo sobre {v} ontem e lembrei do {p} 😄",
                "o {p} continua firme naquele hobby dele?",
                "quero dar um presente pro {p} que tenha a ver com o que ele curte fazer, alguma ideia?",
            ],
            [
                "o {o} tem algum hobby?",
                "o que o {o} faz no fim de semana pra relaxar?",
            ],
        ),
        "diet": (
            ["vegetariana", "vegana", "low carb", "cetogênica", "sem glúten", "sem açúcar"],
            "{p} segue uma dieta {v}.",
            [
                "o {p} come de tudo ou tem alguma restrição?",
                "achei um lugar ótimo de comida {v}, bora levar o {p}?",
                "o {p} ainda tá firme na dieta?",
                "vou fazer churrasco sábado, preciso separar alguma coisa diferente pro {p}?",
            ],
            [
                "o {o} come carne?",
                "o {o} tá fazendo alguma dieta?",
            ],
        ),
        "coffee_order": (
            [
                "cappuccino",
                "espresso duplo",
                "latte com leite de aveia",
                "café coado sem açúcar",
                "mocha gelado",
                "pingado",
            ],
            "{p} sempre pede {v} na cafeteria.",
            [
                "qual café o {p} gosta de pedir?",
                "vou passar na cafeteria, pego um {v} pro {p}?",
                "o {p} já tomou o café dele hoje? tá meio ranzinza kkk",
                "vou levar café pra galera antes da reunião, o que eu peço pro {p}? ☕",
            ],
            [
                "o {o} toma café?",
                "o que o {o} costuma pedir na cafeteria?",
            ],
        ),
        "side_business": (
            [
                "brigadeiros",
                "bolos de pote",
                "camisetas estampadas",
                "velas aromáticas",
                "marmitas fitness",
                "cerveja artesanal",
            ],
            "{p} vende {v} como renda extra.",
            [
                "o que o {p} vende mesmo por fora?",
                "tô precisando de {v}, sabe de alguém que vende?",
                "e o negócio paralelo do {p}, tá dando certo?",
                "quero ajudar o {p} a divulgar as vendas dele no insta, o que eu posto?",
            ],
            [
                "o {o} vende alguma coisa por fora?",
                "o {o} tem alguma renda extra?",
            ],
        ),
        "grandfather_name": (
            ["Antônio", "Sebastião", "Joaquim", "Raimundo", "Valdir", "Osvaldo"],
            "O avô do {p} se chama {v}.",
            [
                "como é o nome do avô do {p}?",
                "manda um abraço pro seu {v} quando for lá, {p} 😊",
                "o {p} vai visitar o avô nesse fim de semana?",
                "quero mandar um cartão pro avô do {p}, como eu escrevo o nome dele?",
            ],
            [
                "o {o} ainda tem avô vivo?",
                "qual o nome do avô do {o}?",
            ],
        ),
    },
    "small": [
        "ok {p} 👍",
        "valeu, {p}!",
        "bom dia, {p}! tudo bem por aí?",
        "{p}, cadê você? já tô aqui na porta",
        "kkkkk {p} você não existe",
        "boa noite {p}, até amanhã",
        "foi mal {p}, vou atrasar uns 10 minutos 😅",
        "concordo total com o {p}",
        "que calor hoje hein {p}",
        "tô morto de cansaço, {p}. falo contigo amanhã",
        "{p}, bora marcar alguma coisa essa semana?",
        "obrigado pela ajuda ontem, {p}, salvou meu dia",
        "hahaha para, {p} 😂",
        "tá chovendo muito aí, {p}?",
        "fechado, {p}, te vejo às oito",
        "e aí {p}, tudo certo?",
        "o {p} mandou muito bem hoje, sério",
        "saudade de você, {p}! a gente precisa se ver mais",
        "tô saindo agora, {p}, chego em vinte minutos",
        "{p} tem razão, melhor deixar pra semana que vem",
        "boa, {p}! 👏",
        "desculpa a demora pra responder, {p}, o dia foi corrido",
        "{p}, você viu o frio que fez hoje de manhã? nem consegui sair da cama",
        "falou, {p}, fica bem!",
    ],
}
