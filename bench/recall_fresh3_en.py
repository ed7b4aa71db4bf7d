"""Fresh held-out recall templates, English (written blind, round 8, third set)."""

from typing import Any

TABLE: dict[str, Any] = {
    "names": [
        "Emma",
        "Liam",
        "Olivia",
        "Noah",
        "Sophie",
        "Jack",
        "Chloe",
        "Ethan",
        "Grace",
        "Ryan",
        "Megan",
        "Daniel",
    ],
    "facts": {
        "borrowed_item": (
            [
                "the camping tent",
                "the big cooler",
                "the projector",
                "the air mattress",
                "the power drill",
                "the long ladder",
            ],
            "{p} borrowed {v} and hasn't given it back yet.",
            [
                "wait did {p} borrow something from us a while ago? what was it",
                "lol {p} still has {v}, i kinda need it this weekend 😅",
                "{p} you're such a borrower haha",
                "doing a big clear out of the garage, should i chase {p} for anything first?",
            ],
            [
                "did {o} ever borrow anything off you guys?",
                "is {o} holding onto any of our stuff rn?",
            ],
        ),
        "favourite_colour": (
            ["teal", "mustard yellow", "forest green", "lilac", "burgundy", "navy blue"],
            "{p}'s favourite colour is {v}.",
            [
                "what's {p}'s favourite colour again?",
                "saw a {v} jumper in town and instantly thought of {p} lol",
                "{p} has such a thing about colours honestly",
                "knitting a scarf for {p} 🧶 which yarn should i get??",
            ],
            [
                "does {o} have a favourite colour?",
                "what colour would {o} want for the cake icing, any idea",
            ],
        ),
        "commute": (
            ["bike", "train", "ferry", "tram", "bus", "electric scooter"],
            "{p} commutes to work by {v}.",
            [
                "how does {p} get to work these days?",
                "{p} going by {v} every single morning is kinda impressive ngl",
                "{p}'s commute sounds like a whole saga",
                "there's a transport strike tomorrow, is {p} gonna be affected?",
            ],
            [
                "how does {o} get to the office?",
                "does {o} drive to work or take public transport",
            ],
        ),
        "bedtime": (
            ["9 pm", "10 pm", "11 pm", "midnight", "1 am", "2 am"],
            "{p} usually goes to bed around {v}.",
            [
                "what time does {p} usually go to sleep?",
                "{p} in bed by {v} as always lmao",
                "{p} and sleep have a complicated relationship 😂",
                "is it too late to ring {p} now or nah?",
            ],
            [
                "is {o} a night owl or an early bird?",
                "what time does {o} normally crash",
            ],
        ),
        "renovation": (
            ["the kitchen", "the bathroom", "the attic", "the spare room", "the garden shed", "the basement"],
            "{p} is renovating {v}.",
            [
                "which room is {p} doing up at the moment?",
                "how's {v} coming along {p}? still a building site?",
                "{p} you've gone full diy mode lately haha",
                "i've got loads of leftover paint and tiles, would any of it be useful for {p}?",
            ],
            [
                "is {o} renovating anything at the moment?",
                "did {o} ever finish doing up their place",
            ],
        ),
        "karaoke_song": (
            [
                "Bohemian Rhapsody",
                "Mr. Brightside",
                "Dancing Queen",
                "I Will Survive",
                "Livin' on a Prayer",
                "Don't Stop Believin'",
            ],
            "{p}'s go-to karaoke song is {v}.",
            [
                "what does {p} always sing at karaoke?",
                "{p} if you don't do {v} on friday i'm leaving 🎤",
                "{p} grabbing the mic again is a sure thing lol",
                "karaoke friday!! should i queue up a song for {p} in advance?",
            ],
            [
                "what's {o}'s karaoke song?",
                "does {o} even sing at karaoke or just watch",
            ],
        ),
        "pub_drink": (
            [
                "a gin and tonic",
                "a pint of cider",
                "a pint of Guinness",
                "an Aperol spritz",
                "a whisky sour",
                "a lime and soda",
            ],
            "{p}'s usual drink at the pub is {v}.",
            [
                "what does {p} usually drink when we go out?",
                "at the bar, got {p} {v} as usual 🍻",
                "{p} is so predictable at the bar haha",
                "i'm getting the first round in, what do i order for {p}?",
            ],
            [
                "what's {o}'s usual drink?",
                "does {o} drink beer or is it something else",
            ],
        ),
        "bucket_list": (
            [
                "skydiving",
                "seeing the northern lights",
                "a hot air balloon ride",
                "swimming with dolphins",
                "bungee jumping",
                "scuba diving",
            ],
            "{p}'s number one bucket-list item is {v}.",
            [
                "what's the thing {p} always says they wanna do before they die?",
                "{p} you're still going on about {v} huh 😂",
                "{p} has the longest bucket list honestly",
                "we should all chip in for a proper once in a lifetime experience for {p}, what would they love?",
            ],
            [
                "does {o} have a bucket list?",
                "what's something {o} has always wanted to do",
            ],
        ),
        "school_nickname": (
            ["Noodle", "Bean", "Sparky", "Biscuit", "Chief", "Pickle"],
            "{p}'s old school nickname is {v}.",
            [
                "what did people call {p} back in school?",
                "{v}!! sorry {p} i had to 😂",
                "{p} you will never escape your nickname era lol",
                "making a silly banner for {p}'s party, wanna put something embarrassing from school days on it",
            ],
            [
                "did {o} have a nickname at school?",
                "what did {o}'s classmates used to call them",
            ],
        ),
        "board_game": (
            ["Catan", "Ticket to Ride", "Monopoly", "Scrabble", "Codenames", "Risk"],
            "{p}'s favourite board game is {v}.",
            [
                "which board game does {p} like best?",
                "{p} brought {v} again, of course they did 🎲",
                "{p} gets SO competitive at games night lmao",
                "hosting games night at mine, what should i have out so {p} is happy?",
            ],
            [
                "does {o} like board games?",
                "what's {o}'s favourite thing to play on games night",
            ],
        ),
        "favourite_holiday": (
            ["Halloween", "Christmas", "Bonfire Night", "Easter", "New Year's Eve", "Thanksgiving"],
            "{p}'s favourite holiday of the year is {v}.",
            [
                "what's {p}'s favourite holiday?",
                "{p} must be buzzing, {v} is nearly here 🎉",
                "{p} goes all out for the holidays every year haha",
                "we should do something special for {p} this year, which time of year would mean the most to them?",
            ],
            [
                "which holiday does {o} like most?",
                "is {o} a christmas person or more into halloween",
            ],
        ),
        "never_learned": (
            ["swim", "ride a bike", "whistle", "tie a tie", "cook rice", "skate"],
            "{p} never learned how to {v}.",
            [
                "wasn't there something really basic {p} never learned to do?",
                "{p} still can't {v}?? we're fixing that this summer",
                "{p} has one weird gap in their life skills lol",
                "putting together a 'learn something new' day for {p}, what should we teach them?",
            ],
            [
                "is there anything {o} never learned to do?",
                "does {o} have some basic skill they just never picked up",
            ],
        ),
    },
    "small": [
        "morning {p}! ☀️",
        "thanks {p} you're a star",
        "haha {p} that's hilarious",
        "night all, night {p} 👋",
        "running 10 min late sorry {p}!!",
        "love the photo {p} 😍",
        "omg {p} same",
        "{p} are we still on for saturday?",
        "happy friday {p}!",
        "cheers for the help earlier {p}",
        "{p} you look great in that pic",
        "lmao {p} stop 😂",
        "see you soon {p}",
        "{p} where are you guys sitting? just got here",
        "brb {p}, one sec",
        "ok {p} wins the chat today",
        "good luck today {p}, you've got this 💪",
        "honestly {p} this weather is ridiculous, it was sunny at 8 and now it's absolutely chucking it down and i didn't bring a coat",
        "{p} i made way too much pasta tonight again, if you're around tomorrow there's leftovers with your name on it",
        "work has been so hectic this week, three meetings back to back today and my laptop died halfway through, how's your week going {p}?",
        "just got back from the shops and they've changed the whole layout, took me 20 minutes to find the bread lol. anyway hi {p}",
        "{p} did you see how windy it got last night? the bins were all over the street this morning",
        "finally finished that report i've been dreading, gonna order a takeaway and do absolutely nothing, hope your day was better {p}",
        "it's supposed to be like 25 degrees on sunday, we should meet up in the park {p}, bring snacks",
    ],
}
