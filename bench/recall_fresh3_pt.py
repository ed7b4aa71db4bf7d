"""Fresh held-out recall templates, Portuguese (written blind, round 8, third set)."""

from typing import Any

TABLE: dict[str, Any] = {
    "names": [
        "Ana",
        "Juliana",
        "Camila",
        "Fernanda",
        "Beatriz",
        "Larissa",
        "Mariana",
        "Gabriela",
        "Patrícia",
        "Aline",
        "Renata",
        "Carolina",
    ],
    "facts": {
        "commute_mode": (
            ["bicicleta", "metrô", "ônibus", "patinete elétrico", "trem", "carona"],
            "{p} vai para o trabalho de {v} todos os dias.",
            [
                "{p}, como vc vai pro trampo todo dia?",
                "a {p} disse que ir de {v} pro trabalho foi a melhor coisa q ela fez esse ano kkk",
                "coitada da {p}, reclamou do trajeto até o escritório de novo",
                "previsão de temporal amanhã cedo 🌧️ será que a {p} consegue chegar no trabalho de boa?",
            ],
            [
                "a {o} vai trabalhar como? de carro ou de ônibus?",
                "alguém sabe quanto tempo a {o} leva de casa até o trampo?",
            ],
        ),
        "hair_colour": (
            ["ruivo", "rosa", "azul", "loiro platinado", "roxo", "preto"],
            "{p} pintou o cabelo de {v}.",
            [
                "gente, de que cor a {p} pintou o cabelo mesmo?",
                "a {p} de cabelo {v} ficou MUITO linda, sério 😍",
                "{p} tá com visual novo né? vi de relance o cabelo dela",
                "quero dar um batom pra {p}, qual tom combina com o cabelo novo dela?",
            ],
            [
                "a {o} mudou a cor do cabelo tbm? tô achando ela diferente",
                "qual a cor do cabelo da {o} agora?",
            ],
        ),
        "wake_time": (
            ["5h", "5h30", "4h45", "6h", "5h15", "6h30"],
            "{p} acorda todos os dias às {v}.",
            [
                "que horas a {p} costuma acordar?",
                "a {p} acorda às {v} todo santo dia, eu nunca conseguiria 😴",
                "sono é coisa séria pra {p} kkk",
                "quero mandar um áudio pra {p} amanhã bem cedinho, ela já vai tá acordada?",
            ],
            [
                "a {o} acorda cedo ou é do time que dorme até meio-dia?",
                "{o}, vc levanta que horas em dia de semana?",
            ],
        ),
        "favourite_podcast": (
            ["Mamilos", "Café da Manhã", "Nerdcast", "Podpah", "Naruhodo", "Não Inviabilize"],
            "{p} ouve o podcast {v} toda semana.",
            [
                "{p}, qual podcast vc anda ouvindo?",
                "a {p} me mandou um episódio do {v}, alguém já ouviu?",
                "a {p} vive de fone ouvindo uns episódios aí",
                "vou pegar 6h de estrada sozinha, {p} me indica alguma coisa boa pra ouvir no caminho?",
            ],
            [
                "a {o} ouve algum podcast?",
                "{o} me recomenda um podcast aí, tô sem nada pra ouvir",
            ],
        ),
        "gift_wish": (
            [
                "uma air fryer",
                "um kindle",
                "um fone sem fio",
                "uma câmera instantânea",
                "uma máquina de costura",
                "um projetor",
            ],
            "{p} quer ganhar {v} de presente.",
            [
                "o que a {p} quer ganhar de presente?",
                "bora fazer vaquinha pra dar {v} pra {p}? ela comentou q quer muito",
                "a {p} falou de uma lista de desejos dela esses dias",
                "o amigo secreto é sábado e eu tirei a {p} 😬 me ajudem pfv",
            ],
            [
                "o que a {o} ia gostar de ganhar?",
                "alguém sabe se a {o} tá querendo alguma coisa de presente?",
            ],
        ),
        "favourite_colour": (
            ["verde", "roxo", "amarelo", "azul-marinho", "laranja", "vermelho"],
            "A cor favorita de {p} é {v}.",
            [
                "qual é a cor favorita da {p}?",
                "{v} é a cara da {p} né kkk",
                "a {p} sempre combina as cores de tudo, impressionante",
                "vou fazer um bolo pra {p}, de que cor eu faço a cobertura?",
            ],
            [
                "a {o} tem cor favorita?",
                "que cor a {o} mais gosta?",
            ],
        ),
        "home_renovation": (
            ["a cozinha", "o banheiro", "a sala", "a varanda", "o quarto", "a lavanderia"],
            "{p} está reformando {v} do apartamento.",
            [
                "{p}, que parte da casa vc tá reformando?",
                "atualização da obra da {p}: {v} ainda tá sem piso 😩",
                "a {p} tá vivendo no meio de poeira e pedreiro kkk",
                "vamos fazer o jantar na casa da {p} sábado? será que dá pra usar a casa dela normal?",
            ],
            [
                "a {o} também tá fazendo obra em casa?",
                "o que a {o} tá reformando mesmo?",
            ],
        ),
        "nickname": (
            ["Tuca", "Pipoca", "Formiga", "Xuxu", "Nenê", "Baixinha"],
            "O apelido de {p} é {v}.",
            [
                "qual é o apelido da {p} mesmo? esqueci",
                "kkkkk eu ainda chamo a {p} de {v} e ela finge que odeia",
                "a {p} tem um apelido mto fofo né",
                "vou bordar uma almofada pra {p}, mas queria colocar o jeito que a gente chama ela",
            ],
            [
                "a {o} tem algum apelido?",
                "como a família da {o} chama ela?",
            ],
        ),
        "instrument": (
            ["violão", "ukulele", "bateria", "teclado", "saxofone", "violino"],
            "{p} toca {v}.",
            [
                "a {p} toca algum instrumento?",
                "ouvi a {p} tocando {v} ontem, que talento 🎶",
                "a {p} é super musical né",
                "vai ter um sarau lá em casa, {p} topa se apresentar? o que ela precisa levar?",
            ],
            [
                "a {o} toca o quê?",
                "{o} sabe tocar alguma coisa?",
            ],
        ),
        "board_game": (
            ["Catan", "War", "Banco Imobiliário", "Detetive", "Ticket to Ride", "Dixit"],
            "O jogo de tabuleiro favorito de {p} é {v}.",
            [
                "{p}, qual teu jogo de tabuleiro preferido?",
                "ninguém ganha da {p} no {v}, desisti 😤",
                "a {p} fica mto competitiva em noite de jogos kkk",
                "sexta vai ter noite de jogos lá em casa, qual eu compro pra {p} ficar feliz?",
            ],
            [
                "a {o} curte jogo de tabuleiro? qual?",
                "que jogo a {o} sempre quer jogar?",
            ],
        ),
        "karaoke_song": (
            [
                "Evidências",
                "Garçom",
                "Sozinho",
                "Bohemian Rhapsody",
                "Total Eclipse of the Heart",
                "Ciumeira",
            ],
            "A música que {p} sempre canta no karaokê é {v}.",
            [
                "qual música a {p} sempre escolhe no karaokê?",
                "a {p} cantando {v} no karaokê é patrimônio nacional kkkk",
                "a {p} solta a voz que é uma beleza hein",
                "reservei sala de karaokê pro aniversário da {p}, quero que ela abra a noite com a música dela 🎤",
            ],
            [
                "a {o} canta o quê no karaokê?",
                "{o} tem música de karaokê preferida?",
            ],
        ),
        "bar_drink": (
            [
                "caipirinha de limão",
                "gin tônica",
                "chopp",
                "Aperol spritz",
                "caipiroska de morango",
                "sangria",
            ],
            "{p} sempre pede {v} quando sai para beber.",
            [
                "o que a {p} costuma beber quando a gente sai?",
                "a {p} já pediu {v} antes de sentar kkk clássico",
                "a {p} é fiel ao drink dela, né",
                "vou chegar antes no bar, já deixo a bebida da {p} pedida?",
            ],
            [
                "e a {o}, bebe o quê?",
                "a {o} prefere cerveja ou drink?",
            ],
        ),
    },
    "small": [
        "oi {p}! tudo bem?",
        "valeu demais, {p} 🙏",
        "{p} kkkkkkk morri",
        "tchau gente, beijo {p}!",
        "boa noite {p}, até amanhã",
        "{p}, tô chegando, 10 min",
        "desculpa {p}, vou atrasar um pouquinho 😅",
        "amei a foto, {p}! 😍",
        "{p} arrasou hoje hein",
        "kkkk {p} sempre com as piadas ruins",
        "a {p} tem razão",
        "{p}, vc viu minha mensagem?",
        "obrigada pela ajuda ontem, {p}, salvou meu dia",
        "partiu almoço amanhã, {p}?",
        "que calor hoje hein {p} 🥵",
        "{p} sumiu do grupo kkk cadê vc",
        "gente que chuva foi essa hoje, a {p} e eu ficamos presas na padaria uns 40 minutos esperando passar, pelo menos o pão de queijo tava bom",
        "{p}, fiz aquela lasanha de berinjela ontem e ficou boa demais, depois te passo a receita, é bem fácil e não leva quase nada",
        "semana puxada no trabalho, reunião atrás de reunião, mas sexta tá aí né {p}, aguenta firme que a gente consegue",
        "tá fazendo um frio absurdo aqui, 12 graus de manhã, {p} se prepara que amanhã vai ser pior segundo a previsão",
        "a {p} me ajudou a montar a planilha do trabalho hoje e economizou tipo duas horas da minha vida, muito obrigada de verdade ❤️",
        "bora marcar um almoço no domingo? pensei naquele restaurante por quilo perto do parque, {p} vê se consegue ir também",
        "meu chefe mandou e-mail às 23h de novo, eu mereço... {p}, no teu trabalho também é assim ou só eu sofro?",
        "{p} que saudade! faz tempo que a gente não conversa direito, vamos marcar de se ver essa semana?",
    ],
}
