"""Fresh held-out recall templates, English (written blind, round 7)."""

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
        "Daniel",
        "Mia",
        "Ryan",
    ],
    "facts": {
        "partner_name": (
            ["Marcus", "Priya", "Tom", "Hannah", "Jamal", "Elena"],
            "{p}'s partner is called {v}",
            [
                "who's {p} going out with again?",
                "bumped into {v} at the shops today, {p} is a lucky one 😊",
                "how are things with {p} and their other half?",
                "should we invite {p}'s partner to the party too? what's their name again lol",
            ],
            [
                "is {o} seeing anyone at the moment?",
                "what's {o}'s partner called?",
            ],
        ),
        "car": (
            [
                "Honda Civic",
                "Toyota Corolla",
                "Ford Fiesta",
                "Tesla Model 3",
                "Volkswagen Golf",
                "Mazda MX-5",
            ],
            "{p} drives a {v}",
            [
                "what car does {p} drive again?",
                "just saw a {v} exactly like {p}'s in the car park",
                "is {p}'s car still making that weird noise?",
                "can we all squeeze into {p}'s car for the road trip or nah?",
            ],
            [
                "does {o} even have a car?",
                "what does {o} drive these days?",
            ],
        ),
        "favourite_dish": (
            ["lasagna", "pad thai", "chicken tikka masala", "sushi", "ramen", "paella"],
            "{p}'s favourite dish is {v}",
            [
                "what's {p}'s favourite food again?",
                "new place in town does amazing {v}, someone tell {p}",
                "cooking for {p} tonight, any ideas what they'd like? 🍝",
                "picking a restaurant for {p}'s celebration, where should we book?",
            ],
            [
                "what does {o} like to eat?",
                "does {o} have a favourite dish?",
            ],
        ),
        "hometown": (
            ["Manchester", "Dublin", "Melbourne", "Toronto", "Glasgow", "Austin"],
            "{p} grew up in {v}",
            [
                "where's {p} from originally?",
                "watching a documentary about {v}, isn't that where {p} grew up?",
                "does {p} ever go back home to see the family?",
                "{p}'s accent gets so strong after a few drinks lol, where's that from again?",
            ],
            [
                "where did {o} grow up?",
                "is {o} from around here originally?",
            ],
        ),
        "studied": (
            ["chemistry", "history", "architecture", "economics", "marine biology", "philosophy"],
            "{p} studied {v} at university",
            [
                "what did {p} do at uni again?",
                "my nephew wants to study {v}, maybe {p} could give him some advice?",
                "does {p} ever actually use their degree lol",
                "pub quiz on thursday, {p}'s degree might finally come in handy 😂",
            ],
            [
                "what did {o} study?",
                "did {o} go to uni?",
            ],
        ),
        "injury": (
            [
                "broken wrist",
                "torn ACL",
                "sprained ankle",
                "slipped disc",
                "dislocated shoulder",
                "broken toe",
            ],
            "{p} is recovering from a {v}",
            [
                "how's {p}'s injury healing?",
                "my brother had a {v} last year, tell {p} not to rush it",
                "is {p} still going to physio?",
                "should we still ask {p} to help us carry the sofa on saturday?",
            ],
            [
                "did {o} get hurt or something?",
                "how's {o} been feeling lately?",
            ],
        ),
        "diet": (
            ["vegetarian", "vegan", "pescatarian", "keto", "paleo", "low-carb"],
            "{p} follows a {v} diet",
            [
                "does {p} eat meat?",
                "found a really good {v} recipe, sending it to {p}",
                "what can {p} actually eat at the bbq?",
                "booking the steakhouse for friday, will that work for {p}? 🥩",
            ],
            [
                "is {o} on some kind of diet?",
                "does {o} eat meat?",
            ],
        ),
        "house_plant": (
            ["monstera", "fiddle-leaf fig", "peace lily", "snake plant", "bonsai tree", "rubber plant"],
            "{p} has a {v} in the living room",
            [
                "what kind of plant does {p} have again?",
                "my {v} keeps dropping leaves, should I ask {p}?",
                "has {p}'s plant survived the heatwave? 🌿",
                "who's watering {p}'s plant while they're away?",
            ],
            [
                "does {o} have any plants?",
                "is {o} into house plants?",
            ],
        ),
        "favourite_author": (
            [
                "Stephen King",
                "Jane Austen",
                "Haruki Murakami",
                "Terry Pratchett",
                "Agatha Christie",
                "Toni Morrison",
            ],
            "{p}'s favourite author is {v}",
            [
                "who's {p}'s favourite author?",
                "saw a whole shelf of {v} at the charity shop, should I grab one for {p}?",
                "what's {p} reading at the moment?",
                "need a gift idea for {p}, maybe a book? 📚",
            ],
            [
                "does {o} read much?",
                "who does {o} like to read?",
            ],
        ),
        "coffee_order": (
            ["flat white", "cappuccino", "double espresso", "caramel macchiato", "cortado", "mocha"],
            "{p} always orders a {v}",
            [
                "what's {p}'s coffee order again?",
                "getting {p} a {v} like usual?",
                "{p} is so fussy at the café lol",
                "doing a coffee run, want me to grab something for {p}? ☕",
            ],
            [
                "how does {o} take their coffee?",
                "does {o} even drink coffee?",
            ],
        ),
        "collection": (
            ["vinyl records", "vintage stamps", "comic books", "old coins", "Lego sets", "snow globes"],
            "{p} collects {v}",
            [
                "what is it {p} collects again?",
                "there's a stall at the market selling {v}, {p} would go mad",
                "how big is {p}'s collection now lol",
                "want to get {p} something for the collection, any idea what they're missing?",
            ],
            [
                "does {o} collect anything?",
                "is {o} into collecting stuff?",
            ],
        ),
        "volunteering": (
            [
                "the food bank",
                "the children's hospital",
                "the homeless shelter",
                "the public library",
                "the community garden",
                "the soup kitchen",
            ],
            "{p} volunteers at {v} on weekends",
            [
                "where does {p} volunteer again?",
                "heard {v} is short on helpers this month, does {p} know?",
                "is {p} still doing those volunteer shifts on weekends?",
                "I want to start volunteering too, maybe {p} can get me in?",
            ],
            [
                "does {o} do any volunteering?",
                "what does {o} get up to on weekends?",
            ],
        ),
    },
    "small": [
        "ok {p} 👍",
        "hey {p}!",
        "thanks {p}, you're a star",
        "night {p}, talk tomorrow",
        "haha {p} that's hilarious 😂",
        "{p} where are you?? we're all here already",
        "sorry {p}, running about ten minutes late",
        "totally agree with you {p}",
        "morning {p} ☀️",
        "ugh {p} it's pouring out here, bring an umbrella",
        "{p} I'm so tired today, barely slept",
        "see you later {p}!",
        "lol {p} you're ridiculous",
        "{p} you look great in that photo!",
        "are we still meeting at 6, {p}?",
        "miss you {p}, it's been ages",
        "{p} I'm outside. Come down whenever you're ready.",
        "{p}!! long time no see",
        "happy friday {p} 🎉",
        "cheers {p}, that really helped",
        "{p} did you see the sunset tonight? unreal",
        "bye {p}, take care x",
        "yes {p}, exactly what I was thinking",
        "hahaha {p} stop, I can't breathe 🤣",
    ],
}
