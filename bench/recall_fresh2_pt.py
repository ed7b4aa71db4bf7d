"""Fresh held-out recall templates, Portuguese (written blind, round 7, second set)."""

from typing import Any

TABLE: dict[str, Any] = {
    "names": [
        "Ana",
        "Beatriz",
        "Inês",
        "Joana",
        "Mariana",
        "Catarina",
        "Sofia",
        "Rita",
        "Marta",
        "Teresa",
        "Filipa",
        "Leonor",
    ],
    "facts": {
        "baby_name": (
            ["Tomás", "Matilde", "Duarte", "Benedita", "Vicente", "Francisca"],
            "A {p} está grávida e o bebé vai chamar-se {v}.",
            [
                "a {p} já escolheu o nome para o bebé?",
                "{v} é mesmo um nome querido para um bebé 🥹",
                "a {p} já tem a barriga grande? 🤰",
                "vou mandar bordar uma mantinha para o bebé da {p}, com o nome e tudo",
            ],
            [
                "a {o} também está grávida?",
                "a {o} pensa em ter filhos?",
            ],
        ),
        "wedding_place": (
            ["Sintra", "Évora", "Óbidos", "Tavira", "Guimarães", "Ponte de Lima"],
            "A {p} vai casar-se no próximo verão em {v}.",
            [
                "onde é que é o casamento da {p} mesmo?",
                "fui a {v} no fim de semana, percebo porque é que a {p} quer casar lá 😍",
                "a {p} já tem o vestido de noiva?",
                "temos de marcar hotel para o casamento da {p}, alguém vê o que há por lá?",
            ],
            [
                "a {o} também vai casar?",
                "onde é que a {o} gostava de casar um dia?",
            ],
        ),
        "flat_bought": (
            ["Alvalade", "Campo de Ourique", "Benfica", "Matosinhos", "Almada", "Telheiras"],
            "A {p} comprou um apartamento em {v}.",
            [
                "em que zona é que a {p} comprou casa?",
                "passei por {v} hoje e lembrei-me logo da {p}",
                "a {p} já recebeu as chaves da casa nova? 🔑",
                "quando é que a {p} faz a festa de inauguração? tenho de ver como lá chego de transportes",
            ],
            [
                "a {o} também anda à procura de casa?",
                "a {o} vive em que zona?",
            ],
        ),
        "health_condition": (
            [
                "diabetes tipo 1",
                "enxaquecas crónicas",
                "asma",
                "doença celíaca",
                "hipotiroidismo",
                "fibromialgia",
            ],
            "A {p} tem {v}.",
            [
                "a {p} tem algum problema de saúde que eu deva saber?",
                "vi um documentário sobre {v} e lembrei-me logo da {p}",
                "a {p} já está melhor? disse que tinha ido outra vez ao médico",
                "vou passar o fim de semana fora com a {p}, há algum cuidado que eu deva ter com ela?",
            ],
            [
                "a {o} tem algum problema de saúde?",
                "a {o} anda bem de saúde?",
            ],
        ),
        "tv_series": (
            ["Succession", "The Bear", "Gilmore Girls", "Breaking Bad", "Rabo de Peixe", "Severance"],
            "A {p} está viciada na série {v}.",
            [
                "qual é a série que a {p} anda a ver mesmo?",
                "comecei a ver {v} ontem e já não consigo parar 😂",
                "a {p} passou o fim de semana todo agarrada à Netflix outra vez lol",
                "não contem spoilers à {p}, ela ainda vai a meio da temporada!",
            ],
            [
                "a {o} vê alguma série?",
                "de que séries é que a {o} gosta?",
            ],
        ),
        "sport": (
            ["crossfit", "pilates", "natação", "padel", "ioga", "escalada"],
            "A {p} faz {v} três vezes por semana.",
            [
                "que desporto é que a {p} faz?",
                "experimentei {v} ontem e hoje mal me consigo mexer 😩",
                "a {p} não pode vir hoje, tem treino outra vez",
                "quero começar a mexer-me, achas que a {p} me deixa ir com ela uma vez?",
            ],
            [
                "a {o} faz algum desporto?",
                "a {o} anda no ginásio?",
            ],
        ),
        "neighbour_problem": (
            [
                "faz obras ao domingo",
                "põe música alta à noite",
                "tem um cão que ladra sem parar",
                "fuma na varanda",
                "bate com a porta de madrugada",
                "deixa o lixo no patamar",
            ],
            "A {p} está farta do vizinho de cima, que {v}.",
            [
                "a {p} ainda tem problemas com o vizinho?",
                "o meu vizinho também {v}, não há paciência 🙄",
                "a {p} já se foi queixar à administração do condomínio?",
                "coitada da {p}, aquele homem lá de cima ainda a põe maluca 😂",
            ],
            [
                "a {o} dá-se bem com os vizinhos?",
                "como são os vizinhos da {o}?",
            ],
        ),
        "parent_illness": (
            [
                "uma operação à anca",
                "um AVC",
                "uma pneumonia",
                "uma cirurgia ao coração",
                "um enfarte",
                "um cancro da mama",
            ],
            "A mãe da {p} está a recuperar de {v}.",
            [
                "como é que está a mãe da {p}?",
                "a minha tia teve {v} no ano passado, a recuperação demora imenso 😕",
                "a {p} tem passado os dias no hospital, não é?",
                "devíamos ajudar a {p} a tratar da mãe, ela anda exausta",
            ],
            [
                "como está a mãe da {o}?",
                "os pais da {o} estão bem?",
            ],
        ),
        "tattoo": (
            ["andorinha", "girassol", "baleia", "lua crescente", "dragão", "rosa dos ventos"],
            "A {p} fez uma tatuagem de {v} no pulso.",
            [
                "o que é que a {p} tatuou afinal?",
                "vi hoje uma tatuagem de {v} igualzinha à da {p} 😮",
                "a {p} ainda tem de pôr creme na tatuagem?",
                "quero fazer uma tatuagem a condizer com a da {p}, o que é que ficava bem?",
            ],
            [
                "a {o} tem alguma tatuagem?",
                "a {o} também quer fazer uma tatuagem?",
            ],
        ),
        "shoe_size": (
            ["35", "36", "37", "38", "40", "42"],
            "A {p} calça o {v}.",
            [
                "quanto é que a {p} calça?",
                "vi umas botas lindas em saldo, mas só havia o {v}",
                "quero oferecer umas sapatilhas à {p}, mas não sei o número",
                "a loja só troca com talão, tenho de acertar no tamanho da {p} à primeira 😬",
            ],
            [
                "quanto é que a {o} calça?",
                "sabes o número de sapato da {o}?",
            ],
        ),
        "star_sign": (
            ["Carneiro", "Leão", "Escorpião", "Balança", "Peixes", "Gémeos"],
            "O signo da {p} é {v}.",
            [
                "qual é o signo da {p}?",
                "li o horóscopo de {v} desta semana e ri-me tanto 😂",
                "a {p} acredita mesmo nessas coisas dos astros?",
                "a {p} está tão teimosa hoje, deve ser coisa do signo dela 🙄",
            ],
            [
                "qual é o signo da {o}?",
                "a {o} liga a horóscopos?",
            ],
        ),
        "breakup": (
            ["Rui", "Tiago", "Miguel", "Diogo", "Nuno", "Gonçalo"],
            "A {p} acabou há pouco tempo com o namorado, o {v}.",
            [
                "como é que se chamava o ex da {p}?",
                "vi o {v} ontem no café com outra rapariga 👀",
                "a {p} já está melhor depois da separação?",
                "vamos levar a {p} a sair na sexta para espairecer, mas cuidado com quem convidamos 😬",
            ],
            [
                "a {o} tem namorado?",
                "a {o} ainda está com o namorado?",
            ],
        ),
    },
    "small": [
        "ok {p} 👍",
        "bom dia, {p}! ☀️",
        "obrigada, {p}, és a maior 😘",
        "ahahah {p} morri a rir",
        "{p}, onde é que estás? já estou à porta",
        "desculpa {p}, vou chegar uns dez minutos atrasada 🙈",
        "até amanhã {p}, beijinhos",
        "que calor hoje, {p}, nem se pode andar na rua 🥵",
        "tens toda a razão, {p}",
        "estou tão cansada hoje, {p}... só me apetece dormir",
        "{p}, vamos dar uma volta amanhã à tarde?",
        "olá {p}, tudo bem?",
        "boa noite {p} 🌙",
        "{p}, estás linda nessa foto! 😍",
        "combinado, {p}, às oito no sítio do costume",
        "hahaha a {p} é mesmo assim 😂",
        "está a chover imenso, {p}, leva guarda-chuva ☔",
        "{p}, adorei o jantar de ontem, temos de repetir!",
        "já estou a sair de casa, {p}",
        "{p} tu és impossível 🤣",
        "concordo contigo, {p}. vamos a isso",
        "{p}!! há quanto tempo! 🥰",
        "fala mais alto, {p}, não te estou a ouvir nada",
        "obrigadinha pela boleia, {p}. chega bem a casa!",
    ],
}
