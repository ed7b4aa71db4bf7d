"""Fresh held-out recall templates, English (written blind, round 7, second set)."""

from typing import Any

TABLE: dict[str, Any] = {
    "names": [
        "Emma",
        "Liam",
        "Olivia",
        "Noah",
        "Ava",
        "Ethan",
        "Sophia",
        "Mason",
        "Chloe",
        "Jacob",
        "Maya",
        "Tyler",
    ],
    "facts": {
        "baby_due": (
            ["March", "early June", "September", "the fall", "December", "late April"],
            "{p} is expecting a baby in {v}.",
            [
                "when is {p}'s baby due again?",
                "wait, {p}'s baby is due in {v}? that's so soon 😮",
                "{p} has been looking at strollers all week lol",
                "should we throw {p} a baby shower? how much time do we have?",
            ],
            [
                "is {o} expecting too?",
                "when is {o}'s baby due?",
            ],
        ),
        "wedding_venue": (
            [
                "a vineyard in Napa",
                "the botanical garden downtown",
                "a barn in Vermont",
                "a beach resort in Maui",
                "an old mansion in Savannah",
                "a lake house in Michigan",
            ],
            "{p} is getting married at {v}.",
            [
                "where is {p}'s wedding gonna be?",
                "{v} for the wedding?? {p} has such good taste 😍",
                "{p} keeps stressing about the venue deposit lol",
                "do i need to book a flight for {p}'s wedding or can we just drive?",
            ],
            [
                "is {o} engaged yet?",
                "where is {o} getting married?",
            ],
        ),
        "tv_series": (
            ["Breaking Bad", "The Office", "Stranger Things", "Succession", "The Bear", "Grey's Anatomy"],
            "{p} is binge-watching {v} right now.",
            [
                "what show is {p} watching these days?",
                "don't spoil {v} for {p} lol, they're not caught up yet 😂",
                "{p} stayed up till 3am again finishing another season",
                "should i start that show {p} won't shut up about? is it any good?",
            ],
            [
                "what has {o} been watching lately?",
                "is {o} hooked on any show right now?",
            ],
        ),
        "video_game": (
            ["Minecraft", "Fortnite", "Zelda", "Animal Crossing", "League of Legends", "Call of Duty"],
            "{p} plays a lot of {v}.",
            [
                "what game is {p} always playing?",
                "just got {v}, maybe i can play with {p} sometime",
                "{p} was up all night gaming again 🙄",
                "would {p} be down for an online game night this weekend? what would we even play",
            ],
            [
                "does {o} play video games?",
                "what games is {o} into?",
            ],
        ),
        "health_condition": (
            ["migraines", "type 1 diabetes", "asthma", "high blood pressure", "insomnia", "arthritis"],
            "{p} has been dealing with {v}.",
            [
                "{p} has some health thing, right? i forgot what it was",
                "my aunt has {v} too, how is {p} coping with it?",
                "{p} had to see the doctor again this week 😕",
                "is it ok to take {p} on that long hike or would it be too much?",
            ],
            [
                "is {o} dealing with any health stuff?",
                "does {o} have any medical conditions i should know about?",
            ],
        ),
        "workout": (
            ["CrossFit", "hot yoga", "rock climbing", "kickboxing", "pilates", "Brazilian jiu-jitsu"],
            "{p} does {v} a few times a week.",
            [
                "what's that workout thing {p} does again?",
                "thinking of trying {v}, {p} loves it right?",
                "{p} was so sore after the gym yesterday lol",
                "can {p} come out tuesday or is that one of the class nights?",
            ],
            [
                "does {o} work out at all?",
                "what kind of exercise does {o} do?",
            ],
        ),
        "exam_prep": (
            ["the bar exam", "the MCAT", "the CPA exam", "the LSAT", "the NCLEX", "the GRE"],
            "{p} is studying for {v}.",
            [
                "what test is {p} cramming for?",
                "{v} sounds brutal, how's {p} holding up?",
                "{p} has basically lived in the library all month 📚",
                "let's take {p} out for drinks once the big test is over, any idea when that is?",
            ],
            [
                "is {o} studying for anything?",
                "does {o} have an exam coming up?",
            ],
        ),
        "tattoo": (
            ["a wolf", "a rose", "a compass", "a tiny crescent moon", "a koi fish", "a mountain range"],
            "{p} just got a tattoo of {v}.",
            [
                "what did {p} get tattooed?",
                "saw a guy with {v} tattoo on the subway and thought of {p} lol",
                "has {p}'s new ink healed yet?",
                "if {p} gets a second tattoo what would go with the first one?",
            ],
            [
                "does {o} have any tattoos?",
                "what tattoo did {o} get?",
            ],
        ),
        "phone_model": (
            [
                "an iPhone 15",
                "a Samsung Galaxy S23",
                "a Google Pixel 8",
                "an iPhone SE",
                "a OnePlus 11",
                "a flip phone",
            ],
            "{p} uses {v}.",
            [
                "what phone does {p} have?",
                "is {v} any good? thinking of getting one like {p}",
                "{p}'s battery is always dead by lunch lol",
                "which charger should i bring for {p} on the road trip?",
            ],
            [
                "what phone does {o} use?",
                "is {o} on android or iphone?",
            ],
        ),
        "shoe_size": (
            ["7", "8.5", "9", "10", "11", "6.5"],
            "{p} wears a size {v} shoe.",
            [
                "what's {p}'s shoe size?",
                "found sneakers on sale in a size {v}, would they fit {p}?",
                "the store only has small sizes left, would any work for {p}?",
                "getting {p} slippers for christmas, which size do i grab?",
            ],
            [
                "what size shoe does {o} wear?",
                "do you know {o}'s shoe size?",
            ],
        ),
        "star_sign": (
            ["Leo", "Scorpio", "Gemini", "Capricorn", "Pisces", "Virgo"],
            "{p} is a {v}.",
            [
                "what's {p}'s sign again?",
                "the horoscope for {v} this week is wild, someone tell {p} 😂",
                "{p} always blames the stars for being stubborn lol",
                "would {p} get along with a Taurus? asking for a friend 👀",
            ],
            [
                "what's {o}'s star sign?",
                "is {o} into astrology?",
            ],
        ),
        "home_purchase": (
            [
                "a condo downtown",
                "a fixer-upper in the suburbs",
                "a townhouse",
                "a farmhouse",
                "a two-bedroom apartment",
                "a tiny house",
            ],
            "{p} just bought {v}.",
            [
                "what kind of place did {p} buy?",
                "{v}?? that's a big step, good for {p}",
                "{p} is drowning in mortgage paperwork lol",
                "we should get {p} a housewarming gift, what would fit the new place?",
            ],
            [
                "did {o} buy a place yet?",
                "is {o} looking at houses?",
            ],
        ),
    },
    "small": [
        "ok {p} 👍",
        "hey {p}!",
        "morning {p} ☀️",
        "thanks {p}, you're the best",
        "lol {p} stop 😂",
        "night {p}, talk tomorrow",
        "{p} where are you?? we're all here already",
        "running like 10 min late, sorry {p}",
        "haha {p} that's exactly what i said",
        "agreed with {p} on this one",
        "{p} you're hilarious",
        "see you later {p}!",
        "it's pouring out here, {p}, bring an umbrella lol",
        "ugh so tired today, how are you {p}?",
        "{p} are we still meeting at 7?",
        "love that, {p} 😍",
        "good call {p}",
        "miss you {p}! we need to hang out soon",
        "{p} lmaooo",
        "yep, sounds good {p}",
        "happy friday {p} 🎉",
        "omg {p} same",
        "{p} you look great in that pic btw",
        "so hot outside today. {p}, want to grab ice cream later?",
    ],
}
