"""Memories say whose they are: a first-person note about a person, in the third person.

A personal memory is stored as "Alice hates cilantro", not "I hate cilantro", so in a group the
model (and a person reading the list) can tell whose fact it is. :func:`third_person` rewrites a
text that *starts* in the first person, given the display name of the person the "I" refers to:

- **English**: a leading "I <verb>" takes the name and the verb its third-person singular form
  ("I love jazz" → "Alice loves jazz", "I'm allergic" → "Alice is allergic", "I don't" →
  "Alice doesn't", "I really like" → "Alice really likes"); modals, past tenses and known
  irregulars are kept or mapped ("I can", "I went", "I have" → "has"). A leading "My X" becomes
  "Alice's X". Later "my / me / mine / myself" become "their / them / theirs / themselves"
  (singular *they*: the rewrite never guesses a gender).
- **Portuguese**: "Eu <verb>" for common verbs from a table ("Eu moro" → "Alice mora"), and
  "Meu/Minha X" → "O/A X de Alice".
- **Russian**: "Я <verb>" for a table of common verbs, regular "-аю/-яю/-ею/-ую" present
  forms, and past tenses (which agree in gender, not person, so they stay).
- **Vietnamese**: verbs do not change; a leading "Tôi" and every later "tôi" become the name.
- **Hebrew**: present-tense verbs agree in gender, not person, so "אני אוהבת" → "<name> אוהבת";
  "שלי" (my) → "של <name>"; a first-person past ("-תי") or future form is not rewritten.

When the text starts in the first person but no safe rule applies (an unknown form, another
"I" later in the sentence), the name is put in front: "Alice: I'd been to Oslo". A text that does
not start in the first person is returned unchanged, so an already third-person memory stays
as it is and the rewrite is idempotent. A name that itself reads as a first-person word ("I",
"Me", "Я") rewrites nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["third_person"]

_APOS = "'’"


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_NAME_FORBIDDEN = re.compile(r"[\n\r:]")

# --- English -----------------------------------------------------------------------------

_EN_START = re.compile(rf"^(?:I(?:[{_APOS}](?:m|ve|d|ll))?|my)\b", re.IGNORECASE)
_EN_BE = re.compile(rf"^I(?:\s+am|[{_APOS}]m)\b", re.IGNORECASE)
_EN_HAVE = re.compile(rf"^I(?:\s+have|[{_APOS}]ve)\b", re.IGNORECASE)
_EN_WILL = re.compile(rf"^I[{_APOS}]ll\b", re.IGNORECASE)
_EN_WOULD = re.compile(rf"^I[{_APOS}]d(?=\s+(?:like|love|rather|prefer|hate|never|enjoy)\b)", re.IGNORECASE)
_EN_MY = re.compile(r"^my\s+(?=\S)", re.IGNORECASE)
_EN_I_WORDS = re.compile(r"^I\s+(?P<words>.*)$", re.IGNORECASE | re.DOTALL)
# a later subject "I" (in any form): the sentence needs more than a leading rewrite
_EN_LATER_I = re.compile(rf"\bI(?:[{_APOS}](?:m|ve|d|ll))?\b")
_EN_OBJECT = {"my": "their", "me": "them", "mine": "theirs", "myself": "themselves"}
_EN_OBJECT_WORD = re.compile(r"\b(my|me|mine|myself)\b", re.IGNORECASE)
_EN_ADVERBS = _set(
    "also really still just never always usually often sometimes truly totally absolutely "
    "definitely mostly only even rarely seldom already currently recently actually generally "
    "normally especially secretly occasionally basically kinda sort kind of"
)
_EN_NOT_VERBS = _set("and or but too as the a an to of in on at for with who that if so not")
_EN_LY_VERBS = _set("apply reply rely supply fly comply multiply ally bully")
_EN_KEEP = _set(
    "can can't cannot could couldn't will won't would wouldn't should shouldn't must mustn't "
    "might may shall used did didn't was wasn't had hadn't ought "
    "went got met grew ate drank saw came became began broke bought brought built caught chose "
    "drove fell felt found flew forgot gave heard held hurt kept knew left lost made meant put "
    "ran read rode rang said sat sold sent set shot slept spent spoke stood swam taught told "
    "thought threw understood woke won wore wrote"
)
_EN_IRREGULAR = {
    "have": "has",
    "haven't": "hasn't",
    "do": "does",
    "don't": "doesn't",
    "go": "goes",
    "am": "is",
    "were": "was",
    "weren't": "wasn't",
}
_EN_WORD = re.compile(rf"^(?P<word>[a-z]+(?:[{_APOS}]t)?)(?P<rest>(?:\s.*)?|[,.;!?].*)$", re.DOTALL)


def _en_third(verb: str) -> str:
    """The third-person singular of a plain English verb (regular spelling rules)."""
    if re.search(r"(?:s|sh|ch|x|z|o)$", verb):
        return verb + "es"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    return verb + "s"


def _en_rest(rest: str) -> str | None:
    """Later first-person words as third person, or None when another subject "I" follows."""
    if _EN_LATER_I.search(rest):
        return None

    def swap(found: re.Match[str]) -> str:
        word = _EN_OBJECT[found.group(1).casefold()]
        return word.capitalize() if found.group(1)[0].isupper() else word

    return _EN_OBJECT_WORD.sub(swap, rest)


def _en_verb_phrase(words: str) -> str | None:
    """``words`` after a leading "I", with their verb in the third person; None when unsure."""
    taken: list[str] = []
    rest = words
    for _ in range(3):  # up to two adverbs, then the verb
        found = _EN_WORD.match(rest)
        if found is None:
            return None
        word, rest = found.group("word"), found.group("rest")
        plain = word.replace("’", "'")
        if plain in _EN_ADVERBS or (plain.endswith("ly") and plain not in _EN_LY_VERBS):
            taken.append(word)
            rest = rest.lstrip()
            continue
        if plain in _EN_KEEP or plain.endswith("ed"):
            verb = word
        elif plain in _EN_IRREGULAR:
            verb = _EN_IRREGULAR[plain]
        elif "'" in plain or plain in _EN_NOT_VERBS:
            return None
        else:
            verb = _en_third(plain)
        return " ".join([*taken, verb]) + rest
    return None


def _english(text: str, name: str) -> str | None:
    for pattern, said in ((_EN_BE, "is"), (_EN_HAVE, "has"), (_EN_WILL, "will"), (_EN_WOULD, "would")):
        found = pattern.match(text)
        if found is not None:
            rest = _en_rest(text[found.end() :])
            return None if rest is None else f"{name} {said}{rest}"
    found = _EN_MY.match(text)
    if found is not None:
        rest = _en_rest(text[found.end() :])
        return None if rest is None else f"{name}'s {rest}"
    found = _EN_I_WORDS.match(text)
    if found is None:
        return None
    phrase = _en_verb_phrase(found.group("words"))
    rest = None if phrase is None else _en_rest(phrase)
    return None if rest is None else f"{name} {rest}"


# --- Portuguese -----------------------------------------------------------------------------

_PT_START = re.compile(r"^(?:[Ee]u|[Mm]eu|[Mm]inha|[Mm]eus|[Mm]inhas)\b")
_PT_VERBS = {
    "sou": "é",
    "estou": "está",
    "tenho": "tem",
    "moro": "mora",
    "gosto": "gosta",
    "adoro": "adora",
    "amo": "ama",
    "odeio": "odeia",
    "trabalho": "trabalha",
    "prefiro": "prefere",
    "sei": "sabe",
    "vou": "vai",
    "faço": "faz",
    "posso": "pode",
    "quero": "quer",
    "jogo": "joga",
    "toco": "toca",
    "estudo": "estuda",
    "falo": "fala",
    "como": "come",
    "bebo": "bebe",
    "vivo": "vive",
    "coleciono": "coleciona",
    "nasci": "nasceu",
    "fui": "foi",
    "tive": "teve",
    "morei": "morou",
    "era": "era",
}
_PT_ADVERBS = _set("não nunca sempre também já ainda")
_PT_ARTICLE = {"meu": "O", "minha": "A", "meus": "Os", "minhas": "As"}
_PT_LATER = re.compile(r"\b(?:eu|meu|minha|meus|minhas|me|mim|comigo)\b", re.IGNORECASE)
_PT_EU = re.compile(r"^eu\s+(?P<rest>.*)$", re.IGNORECASE | re.DOTALL)
_PT_MY = re.compile(
    r"^(?P<my>meu|minha|meus|minhas)\s+(?P<noun>[^\s,.;!?]+)(?P<rest>.*)$", re.IGNORECASE | re.DOTALL
)
_TOKEN = re.compile(r"^(?P<word>[^\s,.;!?]+)(?P<rest>.*)$", re.DOTALL)


def _verb_phrase(
    words: str, adverbs: frozenset[str], conjugate: Callable[[str], str | None]
) -> tuple[str, str] | None:
    """Up to two ``adverbs`` then a verb ``conjugate`` knows: (the phrase in the third person,
    the rest of the text), or None."""
    taken: list[str] = []
    rest = words
    for _ in range(3):
        token = _TOKEN.match(rest)
        if token is None:
            return None
        word, rest = token.group("word"), token.group("rest")
        if word.casefold() in adverbs:
            taken.append(word)
            rest = rest.lstrip()
            continue
        verb = conjugate(word)
        return None if verb is None else (" ".join([*taken, verb]), rest)
    return None


def _subject(
    name: str,
    words: str,
    adverbs: frozenset[str],
    conjugate: Callable[[str], str | None],
    later: re.Pattern[str],
) -> str | None:
    """``name`` and ``words`` (what followed "I") in the third person; None when unsure or when
    another first-person word (``later``) follows."""
    said = _verb_phrase(words, adverbs, conjugate)
    if said is None or later.search(said[1]):
        return None
    return f"{name} {said[0]}{said[1]}"


def _portuguese(text: str, name: str) -> str | None:
    found = _PT_MY.match(text)
    if found is not None:
        if _PT_LATER.search(found.group("rest")):
            return None
        article = _PT_ARTICLE[found.group("my").casefold()]
        return f"{article} {found.group('noun')} de {name}{found.group('rest')}"
    found = _PT_EU.match(text)
    if found is None:
        return None
    return _subject(name, found.group("rest"), _PT_ADVERBS, lambda w: _PT_VERBS.get(w.casefold()), _PT_LATER)


# --- Russian --------------------------------------------------------------------------------

_RU_START = re.compile(r"^(?:я|мой|моя|моё|мое|мои|меня|мне)(?![\w-])", re.IGNORECASE)
_RU_VERBS = {
    "люблю": "любит",
    "живу": "живёт",
    "ненавижу": "ненавидит",
    "хочу": "хочет",
    "могу": "может",
    "учусь": "учится",
    "пишу": "пишет",
    "хожу": "ходит",
    "езжу": "ездит",
    "ем": "ест",
    "пью": "пьёт",
    "сплю": "спит",
    "говорю": "говорит",
    "курю": "курит",
    "готовлю": "готовит",
    "ношу": "носит",
    "вожу": "водит",
    "боюсь": "боится",
}
_RU_ADVERBS = _set("не никогда всегда очень тоже часто уже ещё еще давно")
_RU_LATER = re.compile(
    r"(?<![\w-])(?:я|мой|моя|моё|мое|мои|моего|моей|моих|меня|мне|мной|себя)(?![\w-])", re.IGNORECASE
)
_RU_I = re.compile(r"^я\s+(?P<rest>.*)$", re.IGNORECASE | re.DOTALL)
_RU_PAST = re.compile(r"(?:л|ла|ло|ли|лся|лась)$")


def _ru_verb(word: str) -> str | None:
    low = word.casefold()
    if low in _RU_VERBS:
        return _RU_VERBS[low]
    if _RU_PAST.search(low):
        return word  # the past agrees in gender, not person
    for ending in ("аю", "яю", "ею", "ую"):
        if low.endswith(ending):
            return word[:-1] + "ет"
    for ending in ("аюсь", "яюсь"):
        if low.endswith(ending):
            return word[:-3] + "ется"
    return None


def _russian(text: str, name: str) -> str | None:
    found = _RU_I.match(text)
    return None if found is None else _subject(name, found.group("rest"), _RU_ADVERBS, _ru_verb, _RU_LATER)


# --- Vietnamese -----------------------------------------------------------------------------

_VI_START = re.compile(r"^tôi(?![\w-])", re.IGNORECASE)
_VI_TOI = re.compile(r"(?<![\w-])tôi(?![\w-])", re.IGNORECASE)


def _vietnamese(text: str, name: str) -> str | None:
    return _VI_TOI.sub(lambda _: name, text)


# --- Hebrew ---------------------------------------------------------------------------------

_HE_START = re.compile(r"^(?:אני|שלי)(?![\w-])")
_HE_I = re.compile(r"^אני\s+(?P<verb>[^\s,.;!?]+)(?P<rest>.*)$", re.DOTALL)
_HE_PRESENT_ALEF = _set("אוהב אוהבת אוכל אוכלת אוסף אוספת אומר אומרת אופה אופה אורז")
_HE_MINE = re.compile(r"(?<![\w-])שלי(?![\w-])")
_HE_LATER = re.compile(r"(?<![\w-])(?:אני|אותי|לי|בשבילי|איתי|ממני|עליי|עלי)(?![\w-])")


def _hebrew(text: str, name: str) -> str | None:
    found = _HE_I.match(text)
    if found is None:
        return None
    verb, rest = found.group("verb"), found.group("rest")
    past = verb.endswith("תי")
    future = verb.startswith("א") and len(verb) >= 3 and verb not in _HE_PRESENT_ALEF
    if past or future or _HE_LATER.search(rest):
        return None
    return f"{name} {verb}{_HE_MINE.sub(lambda _: f'של {name}', rest)}"


# --- all together ---------------------------------------------------------------------------

_Rule = Callable[[str, str], "str | None"]
_RULES: tuple[tuple[re.Pattern[str], _Rule], ...] = (
    (_EN_START, _english),
    (_PT_START, _portuguese),
    (_RU_START, _russian),
    (_VI_START, _vietnamese),
    (_HE_START, _hebrew),
)


def _speaks_first(text: str) -> bool:
    return any(start.match(text) for start, _ in _RULES)


def third_person(text: str, name: str) -> str:
    """``text`` in the third person about ``name`` when it starts in the first person.

    Args:
        text: a memory's text (already stripped).
        name: the display name of the person the first person ("I", "my") refers to.

    Returns:
        The rewritten text (see the module docstring); "<name>: <text>" when it starts in the
        first person but no safe rule applies; ``text`` itself when it does not start in the
        first person or ``name`` is unusable (empty, several lines, a colon, a first-person word).
    """
    if _NAME_FORBIDDEN.search(name):
        return text
    name = " ".join(name.split())
    if not name or _speaks_first(name) or not _speaks_first(text):
        return text
    for start, rule in _RULES:
        if start.match(text):
            said = rule(text, name)
            if said is not None:
                return said
    return f"{name}: {text}"
