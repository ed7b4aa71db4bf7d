"""Fresh held-out recall templates, English (written blind, round 9, fourth set)."""

from typing import Any

TABLE: dict[str, Any] = {
    "names": [
        "Emma",
        "Jack",
        "Olivia",
        "Liam",
        "Sophie",
        "Daniel",
        "Chloe",
        "Ryan",
        "Hannah",
        "Tom",
        "Megan",
        "Josh",
    ],
    "facts": {
        "middle_name": (
            ["Rose", "Elizabeth", "Alexander", "Marie", "Edward", "Grace"],
            "{p}'s middle name is {v}.",
            [
                "wait what's {p}'s middle name again?",
                "i cannot believe {p}'s middle name is {v} 😂",
                "{p} never tells anyone their full name, it's a whole mystery lol",
                "ordering a personalised necklace with {p}'s initials, what should the middle letter be?",
            ],
            [
                "does {o} even have a middle name?",
                "{o} told me their middle name once and i totally forgot it",
            ],
        ),
        "height": (
            ["6 foot 2", "5 foot 3", "5 foot 10", "6 foot 5", "5 foot 1", "5 foot 7"],
            "{p} is {v} tall.",
            [
                "how tall is {p} actually?",
                "{p} being {v} explains so much lol",
                "{p} was moaning about the legroom on the bus again haha",
                "buying jeans for {p} as a surprise, what leg length should i even go for?",
            ],
            [
                "is {o} taller than me do you reckon?",
                "how tall is {o}, i genuinely can't tell from photos",
            ],
        ),
        "halloween_costume": (
            ["a pirate", "Wednesday Addams", "a giant banana", "Shrek", "a vampire", "Elvis"],
            "{p} is dressing up as {v} for the Halloween party.",
            [
                "what's {p} going as for halloween??",
                "{p} going as {v} is going to be iconic",
                "{p} has been super secretive about the costume thing 👀",
                "want to do a matching duo costume with {p}, what would go well with theirs?",
            ],
            [
                "has {o} sorted a costume for the halloween party yet?",
                "{o} still hasn't told me what they're dressing up as",
            ],
        ),
        "perfume": (
            [
                "Chanel No 5",
                "Dior Sauvage",
                "Jo Malone Wood Sage & Sea Salt",
                "Le Labo Santal 33",
                "YSL Libre",
                "Paco Rabanne 1 Million",
            ],
            "{p}'s signature scent is {v}.",
            [
                "what perfume does {p} wear? it smells amazing",
                "{p} smelled of {v} all night, my jumper still has it",
                "tbh {p} always smells so good",
                "in duty free rn, want to grab {p} a bottle of something they'd actually wear, help",
            ],
            [
                "what aftershave does {o} use?",
                "{o} smelled so nice yesterday, anyone know what scent that was?",
            ],
        ),
        "quiz_specialty": (
            ["geography", "90s pop music", "film trivia", "science", "football history", "Harry Potter"],
            "{p} is the team's go-to for {v} questions at the pub quiz.",
            [
                "what's {p} actually best at in the pub quiz?",
                "{p} smashed every single {v} question last thursday, unreal",
                "ngl {p} is basically our secret weapon at quiz night",
                "we need to pick which round to play our joker on, should we build it around {p}?",
            ],
            [
                "which quiz rounds is {o} decent at?",
                "is {o} any good at pub quiz stuff or nah",
            ],
        ),
        "flatmate": (
            ["Priya", "Marcus", "Gemma", "Callum", "Aisha", "Owen"],
            "{p}'s flatmate is called {v}.",
            [
                "what's {p}'s flatmate called again?",
                "{v} answered the door at {p}'s and i panicked and said the wrong name 🙈",
                "{p} says the flatshare situation is fine, mostly",
                "bringing a bottle round to {p}'s place on sat, don't wanna be rude to whoever else lives there, who do i say hi to?",
            ],
            [
                "does {o} live with anyone or on their own?",
                "what's {o}'s flatmate's name, i always forget",
            ],
        ),
        "lookalike": (
            ["Harry Styles", "Zendaya", "Keanu Reeves", "Taylor Swift", "Pedro Pascal", "Florence Pugh"],
            "{p} keeps getting told they look like {v}.",
            [
                "who is it people always say {p} looks like?",
                "a stranger stopped {p} today asking if they were {v} 😭",
                "{p} got the famous-lookalike comment again lol",
                "making a silly card for {p} with a celeb's face on it, which celeb would make the joke land?",
            ],
            [
                "does {o} look like anyone famous?",
                "someone said {o} has a celebrity twin, who was it?",
            ],
        ),
        "hidden_talent": (
            [
                "juggle",
                "solve a Rubik's cube in under a minute",
                "moonwalk",
                "whistle with two fingers",
                "do a perfect David Attenborough impression",
                "draw really good caricatures",
            ],
            "{p} has a hidden talent: they can {v}.",
            [
                "what's {p}'s secret talent? someone mentioned it",
                "{p} can actually {v}?? since when",
                "apparently {p} has a party trick, never seen it tho",
                "the office talent show needs one more act, reckon {p} could do something?",
            ],
            [
                "does {o} have any weird hidden talents?",
                "{o} says they have a party trick but won't show anyone",
            ],
        ),
        "lucky_number": (
            ["seven", "thirteen", "three", "twenty-one", "eight", "eleven"],
            "{p}'s lucky number is {v}.",
            [
                "what's {p}'s lucky number?",
                "of course {p} picked {v} again, every single time",
                "{p} is so superstitious about numbers haha",
                "getting {p} a lottery ticket as a joke present, which numbers should i pick for them?",
            ],
            [
                "does {o} have a lucky number?",
                "{o} always picks the same number in the raffle, what is it",
            ],
        ),
        "favourite_restaurant": (
            [
                "Dishoom",
                "Wagamama",
                "the Thai place on King Street",
                "Nando's",
                "Franco's",
                "the Golden Dragon",
            ],
            "{p}'s favourite restaurant is {v}.",
            [
                "where does {p} like to eat out most?",
                "{p} dragged us to {v} again, not complaining tho",
                "{p} has a go-to place for dinner, always the same one",
                "want to book somewhere for {p}'s promotion dinner, where would they be happiest?",
            ],
            [
                "what's {o}'s favourite place to eat?",
                "where would {o} want to go for dinner, any idea",
            ],
        ),
        "ice_cream_flavour": (
            ["mint choc chip", "salted caramel", "pistachio", "cookie dough", "strawberry", "rum and raisin"],
            "{p}'s favourite ice cream flavour is {v}.",
            [
                "what flavour ice cream does {p} like?",
                "{p} ordered {v} again lol so predictable",
                "{p} is such an ice cream person honestly",
                "at the shop grabbing dessert for tonight and {p} is coming, which tub should i get?",
            ],
            [
                "what ice cream does {o} usually go for?",
                "does {o} even like ice cream?",
            ],
        ),
        "food_dislike": (
            ["coriander", "olives", "mushrooms", "mayonnaise", "blue cheese", "raw onion"],
            "{p} can't stand {v}.",
            [
                "is there anything {p} won't eat?",
                "{p} picked every bit of {v} out of the salad 😂",
                "{p} is weirdly fussy about one thing on their plate",
                "doing tacos for everyone friday, anything i should leave off {p}'s?",
            ],
            [
                "is {o} a picky eater?",
                "what food does {o} hate?",
            ],
        ),
    },
    "small": [
        "morning {p}! ☀️",
        "thanks {p}, you're a legend",
        "night all, night {p} x",
        "{p} are you still coming or nah",
        "running 10 mins late, can someone tell {p} to wait by the entrance",
        "lol {p} that's hilarious",
        "happy friday {p}!!",
        "{p} you free sunday afternoon? fancy a walk",
        "omg your photos from the weekend are gorgeous {p}",
        "haha classic {p}",
        "cheers for the lift home {p}",
        "{p} did you get home ok?",
        "that's so nice of you {p} 🥹",
        "see you at 7 {p}",
        "{p} your new jacket is sick btw",
        "good luck today {p}! you'll smash it",
        "absolutely chucking it down here, {p} i hope you took an umbrella because the bus stop is basically a lake",
        "traffic on the ring road is a nightmare this morning, {p} maybe leave a bit earlier if you're driving over",
        "work has been mental this week, so many meetings, how are you surviving yours {p}?",
        "just made the biggest pot of soup, {p} you should come round and help me eat it, there's loads",
        "it's actually sunny for once!! {p} we have to sit outside somewhere after work",
        "my laptop died in the middle of a call today, {p} pls tell me your day went better than mine",
        "the train got cancelled again so i'm stuck at the station for another 40 mins, save me a seat if you get there first {p}",
        "{p} thanks so much for sorting the tickets, i've sent you the money, let me know if it didn't come through",
    ],
}
