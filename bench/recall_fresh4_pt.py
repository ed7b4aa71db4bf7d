"""Fresh held-out recall templates, Portuguese (written blind, round 9, fourth set)."""

from typing import Any

TABLE: dict[str, Any] = {
    "names": [
        "Ana",
        "Beatriz",
        "Camila",
        "Juliana",
        "Fernanda",
        "Larissa",
        "Mariana",
        "Gabriela",
        "Letícia",
        "Patrícia",
        "Renata",
        "Carolina",
    ],
    "facts": {
        "churrasco_contribution": (
            ["a farofa", "o vinagrete", "o gelo", "o carvão", "a sobremesa", "o pão de alho"],
            "No churrasco de sábado, a {p} ficou de levar {v}.",
            [
                "gente, o que a {p} ficou de levar pro churrasco mesmo?",
                "a {p} disse que leva {v}, então isso tá resolvido 👍",
                "a {p} tá toda animada com o churras kkk",
                "tô fazendo a lista do mercado pro sábado, tem alguma coisa que eu posso riscar por causa da {p}?",
            ],
            [
                "e a {o}, vai levar o que pro churrasco?",
                "alguém sabe se a {o} ficou responsável por alguma coisa no churras?",
            ],
        ),
        "carnival_costume": (
            ["sereia", "abelha", "Mulher-Maravilha", "pirata", "fada", "astronauta"],
            "A {p} vai se fantasiar de {v} no carnaval deste ano.",
            [
                "qual vai ser a fantasia da {p} no carnaval??",
                "a {p} de {v} no bloco vai ser icônico 😂",
                "a {p} tá pensando em fantasia desde janeiro né kkk",
                "quero combinar minha fantasia com a da {p}, alguma ideia do que eu poderia ir?",
            ],
            [
                "a {o} já decidiu de que vai se fantasiar?",
                "e a fantasia da {o}, alguém sabe qual vai ser?",
            ],
        ),
        "secret_santa": (
            [
                "o chefe",
                "a estagiária nova",
                "o cara do TI",
                "a diretora",
                "a recepcionista",
                "o colega do RH",
            ],
            "No amigo secreto da empresa, a {p} tirou {v}.",
            [
                "quem a {p} tirou no amigo secreto do trampo?",
                "kkkk a {p} tirou {v} no amigo secreto, imagina o desespero",
                "a {p} tá surtando com o amigo secreto de novo",
                "me ajuda a pensar num presente pra pessoa que a {p} tirou? o limite é 50 reais",
            ],
            [
                "e a {o}, tirou quem no amigo secreto?",
                "a {o} já sabe quem pegou no amigo secreto da firma dela?",
            ],
        ),
        "festival_ticket": (
            ["Lollapalooza", "Rock in Rio", "The Town", "Primavera Sound", "João Rock", "Coala Festival"],
            "A {p} comprou ingresso para o {v}.",
            [
                "a {p} comprou ingresso pra qual festival mesmo?",
                "{p} vai no {v}!!! que inveja 😭",
                "a {p} tá contando os dias pro festival dela",
                "será que ainda dá tempo de eu comprar ingresso pra ir junto com a {p}?",
            ],
            [
                "a {o} vai em algum festival esse ano?",
                "alguém sabe se a {o} conseguiu ingresso pra algum festival?",
            ],
        ),
        "internet_provider": (
            ["Vivo Fibra", "Claro", "TIM Live", "Oi Fibra", "NET", "Algar"],
            "A internet da casa da {p} é da {v}.",
            [
                "a internet da {p} é de qual operadora?",
                "a {p} falou que a {v} dela nunca cai, será?",
                "kkk a {p} e o drama eterno com a internet",
                "tô querendo trocar de operadora de internet, vale eu pegar a mesma da {p}?",
            ],
            [
                "qual a internet da {o}? a dela é rápida?",
                "a {o} usa qual operadora em casa?",
            ],
        ),
        "main_bank": (
            ["Nubank", "Itaú", "Inter", "Bradesco", "Santander", "C6"],
            "O banco principal da {p} é o {v}.",
            [
                "qual banco a {p} usa?",
                "a {p} é do {v} né? ela vive reclamando do app",
                "a {p} tava resmungando de banco hoje cedo",
                "quero abrir conta num banco que a {p} também use pra facilitar as transferências, qual eu escolho?",
            ],
            [
                "a {o} é de qual banco?",
                "alguém sabe se a {o} tem conta no mesmo banco que eu?",
            ],
        ),
        "favourite_perfume": (
            ["Malbec", "La Vie Est Belle", "Chanel nº 5", "Egeo Dolce", "Lily", "Good Girl"],
            "O perfume preferido da {p} é o {v}.",
            [
                "qual o perfume favorito da {p}?",
                "senti cheiro de {v} no shopping e lembrei na hora da {p} kkk",
                "a {p} sempre tá cheirosa demais né",
                "quero dar um perfume de presente pra {p}, qual eu compro?",
            ],
            [
                "qual perfume a {o} usa? ela tá sempre cheirosa",
                "alguém sabe o perfume preferido da {o}?",
            ],
        ),
        "apartment_floor": (
            ["3º", "5º", "8º", "11º", "14º", "20º"],
            "A {p} mora no {v} andar do prédio.",
            [
                "a {p} mora em que andar mesmo?",
                "o elevador do prédio da {p} quebrou e ela mora no {v} andar 😭",
                "fui no prédio da {p} ontem, que vista hein",
                "o elevador da {p} vive em manutenção, dá pra encarar a escada até o apê dela?",
            ],
            [
                "a {o} mora em que andar?",
                "o apê da {o} é alto? qual andar?",
            ],
        ),
        "manicure_day": (
            ["toda segunda", "toda terça", "toda quarta", "toda quinta", "toda sexta", "todo sábado"],
            "A {p} faz as unhas {v} no salão.",
            [
                "que dia a {p} faz as unhas?",
                "a {p} faz unha {v} né, por isso tá sempre impecável",
                "as unhas da {p} tão sempre lindas",
                "quero marcar manicure junto com a {p}, que dia eu agendo?",
            ],
            [
                "a {o} faz as unhas em que dia da semana?",
                "alguém sabe se a {o} tem dia fixo de manicure?",
            ],
        ),
        "height": (
            ["1,55 m", "1,60 m", "1,64 m", "1,69 m", "1,74 m", "1,80 m"],
            "A {p} tem {v} de altura.",
            [
                "quanto a {p} mede?",
                "a {p} tem {v}?? jurava que era outra coisa",
                "a {p} vive fazendo piada com a altura dela kkk",
                "vou comprar uma calça de presente pra {p}, pego comprimento normal ou longo?",
            ],
            [
                "quanto a {o} tem de altura?",
                "a {o} é mais alta que eu, né? quanto ela mede?",
            ],
        ),
        "favourite_beach": (
            ["Jericoacoara", "Porto de Galinhas", "Ubatuba", "Arraial do Cabo", "Trancoso", "Ilha Grande"],
            "A praia preferida da {p} é {v}.",
            [
                "qual a praia favorita da {p}?",
                "a {p} sempre diz que {v} é a melhor praia do brasil",
                "a {p} é rata de praia né",
                "tô montando uma surpresa de fim de semana pra {p}, que praia eu escolho?",
            ],
            [
                "a {o} tem uma praia preferida?",
                "qual praia a {o} mais gosta?",
            ],
        ),
        "dog_name": (
            ["Mel", "Pipoca", "Amora", "Luna", "Paçoca", "Nina"],
            "A cachorra da {p} se chama {v}.",
            [
                "como chama a cachorra da {p}?",
                "a {v} da {p} é a coisa mais fofa desse mundo 🐶",
                "a {p} mandou foto da cachorrinha de novo 😍",
                "vou na casa da {p} amanhã e quero levar um petisco com o nome da cachorra escrito, que nome eu coloco?",
            ],
            [
                "a {o} tem cachorro? como chama?",
                "qual o nome do bichinho da {o}?",
            ],
        ),
    },
    "small": [
        "bom dia, {p}! ☀️",
        "valeu demais, {p}, salvou meu dia",
        "{p} kkkkkk para que eu tô chorando de rir",
        "tchau gente, beijo {p}!",
        "a {p} sempre atrasada né 🙄",
        "{p}, chega que horas?",
        "que calor absurdo hoje, {p}, nem consegui dormir direito com esse ventilador barulhento do lado da cama",
        "boa noite {p}, dorme bem",
        "amei a foto, {p}! ficou linda",
        "{p} arrasou hoje",
        "oi {p}, sumida! tudo bem?",
        "parabéns pela apresentação, {p}! mandou muito bem",
        "o trânsito tá um caos aqui na marginal, {p}, acho que vou chegar uns 20 min atrasada, pede alguma coisa pra gente enquanto isso",
        "gente a {p} mandou um áudio de 7 minutos kkkkk",
        "{p}, bora marcar um café essa semana?",
        "tá chovendo muito aqui, {p}, leva guarda-chuva se for sair hoje à tarde porque a previsão diz que piora lá pelas cinco",
        "concordo com a {p}",
        "hoje o dia no trampo foi puxado demais, {p}, reunião atrás de reunião e ainda tive que ficar até mais tarde pra fechar um relatório, tô morta",
        "{p} que saudade de você!!",
        "fiz lasanha ontem e sobrou um monte, {p}, se quiser passa aqui amanhã na hora do almoço que eu esquento pra gente",
        "kkkkk a {p} é muito besta",
        "{p}, acabei de sair, o metrô tá lotado e parado entre duas estações, então acho que me atraso uns dez minutinhos, me espera na saída",
        "que frio hoje hein {p}, tirei até o edredom do armário e ainda tô de meia e moletom dentro de casa",
        "obrigada pela ajuda ontem, {p}, de verdade ❤️",
    ],
}
