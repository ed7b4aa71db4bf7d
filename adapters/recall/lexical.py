"""Lexical scores for recall (RECALL-1): Unicode-aware terms and BM25 over a document set.

Theory of operation. ``terms(text)`` turns any text of the five tuned languages into index
terms: NFKC, case-folded, words of Unicode letters and digits (Hebrew geresh and gershayim
inside a word are dropped, so ``מוצ'י`` stays one word), then a stem from Snowball (PyStemmer):
Russian words by its Russian stemmer, cut to ``RUSSIAN_STEM_CHARS`` letters (``Оли``/``Оля`` →
``ол``, ``работает``/``работе`` → ``работ``); other Latin words (not Vietnamese) by its English
stemmer, accents dropped, and in a Portuguese text (``_language``: a Portuguese function word or
accent) also by its Portuguese one (``alergia``/``alérgica`` → ``alerg``). Snowball has no Hebrew:
a Hebrew word also has its forms without one or two prefix letters (``לנועה`` → ``נועה``) and,
when 5 letters or longer, without a feminine or plural ending (``האלרגיה`` → ``אלרגי``), and
counts once, as its commonest form; a text with Vietnamese letters keeps its syllables whole.
Single letters and common function words of the five languages (``STOPWORDS``) are dropped —
in a Vietnamese text only the Vietnamese ones and laughter (``em``, ``to``, ``My`` are
Vietnamese words there, not English ones). A word's forms are memoized (``_forms``: pure).

``Bm25`` is one immutable index over a document set (a memory list, a persona's document
chunks, a chat's archive pages) plus a fixed cohort of background passages, which only add
document frequencies: with a 3-memory list a shared word would otherwise look rare, and the
function words of every language are frequent in the cohort. ``scores(query)`` is the
Okapi BM25 score of every document (k1 1.2, b 0.75), computed exactly with sparse postings.

``case_words(text)`` gives the same words with how they were written (a capital first, or a
caseless script, and whether the word opens a sentence or a line). ``Bm25.elsewhere(query)``
uses them for the person gate (RECALL-2): which documents are about other people than the ones
the query names. A query word written with a capital that may name one of the documents' people
otherwise (``adapters.recall.names.same_person``: "Mel"/"Melanie", "Jon"/"Jonathan",
"Muhhamed"/"Muhammad") holds that name's forms too, in every score.

``LexicalCache`` keeps indexes per key and version, like the vector indexes: whoever reads
the source (Redis) passes its version and texts, and the index is rebuilt only when the version
or the set of ids changed. Thread-safe; least recently used entries beyond ``max_entries``
are dropped.
"""

from __future__ import annotations

import functools
import math
import re
import threading
import unicodedata
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import NamedTuple

import msgspec
import numpy as np
import numpy.typing as npt
import Stemmer

from adapters.recall.names import same_person

__all__ = [
    "BM25_B",
    "BM25_K1",
    "STOPWORDS",
    "Bm25",
    "CaseWord",
    "LexicalCache",
    "Parsed",
    "Word",
    "case_words",
    "parse",
    "terms",
    "word_count",
    "words",
]

BM25_K1 = 1.2
BM25_B = 0.75
WEAK_STRANGER_KEEP = 0.4
"""RECALL-2: the plain distinct cover (``Bm25.plain_distinct``) that keeps a person's
memory in play for a message whose only sign of someone else is an unknown capitalized word
opening a sentence (chosen on the development split: 0.2-0.7 all cut wrong-conversation use,
0.4 and up as much as gating them all)."""

_HEBREW_QUOTES = re.compile(r"(?<=[\u05d0-\u05ea])['\"\u05f3\u05f4](?=[\u05d0-\u05ea])")
_WORD = re.compile(r"\w+")
_HEBREW_PREFIXES = "ובהלמשכ"
_HEBREW_ENDINGS = ("ים", "ות", "ה", "ת")


_VIETNAMESE_STOPWORDS_TEXT = (
    # laughter and fillers
    "lol haha hah hahaha hehe хаха ахаха хахаха ахах kkk kkkk kkkkk rsrs hihi haha kkkkkk חחח חחחח",
    "vâng không ok cảm ơn nhé nha chào tạm biệt có đó đây rồi chưa vẫn còn gì sao thế nào ở đâu khi",
    "mình bạn nó họ của và hay nhưng thì là với cho trong này kia lại cũng đã đang sẽ",
    # sentence-final particles, and đi (go; also a particle: "thôi đi mà")
    "à ạ ơi nhỉ nhá mà thôi đi",
)
_STOPWORDS_TEXT = (
    # everyday function words and chat fillers of the five languages (stemmed like any word)
    "yes no maybe ok okay sure thanks thank you please sorry hi hello hey bye see later soon so",
    "what who where when why how is are was were be been do does did have has had will would can could",
    "the an and or but if then to of in on at for with from about this that it there here now",
    "you he she we they my your his her our their me him us them still just really very too also",
    "да нет ок хорошо спасибо пожалуйста привет пока ты тут там здесь уже ещё всё это что как где когда",
    "он она мы вы они мой твой наш ну по за из но или же ли бы не вот так очень на для от до",
    "мне меня тебе тебя его её их нам вам есть",
    "sim não ok obrigado obrigada valeu oi olá tchau tá aí aqui já ainda tudo isso que como onde quando",
    "eu você ele ela nós eles meu minha seu sua os as um uma de do da em no na com por para mas mais",
    "muito até bem se né está estou pra pro",
    *_VIETNAMESE_STOPWORDS_TEXT,
    "כן לא אוקיי תודה בבקשה שלום היי ביי אתה את פה שם כבר עדיין הכול זה מה איך איפה מתי",
    "אני הוא היא אנחנו הם שלי שלך של עם על גם רק עוד אבל או אם כי יש אין היה",
)

_VIETNAMESE = re.compile("[ăđơưìòùýĩũ\u1ea0-\u1ef9]")
"""Letters only Vietnamese writes of the five languages (Portuguese shares à, á, â, ã, é, ê, í,
ó, ô, õ, ú; ``Dũng làm y tá`` is Vietnamese by its ``ũ``)."""
Word = tuple[str, ...]
"""One word's index forms, its own form first (a Hebrew word also without its prefixes)."""


def _strip(word: str, endings: Iterable[str], keep: int) -> str:
    for end in endings:
        if word.endswith(end) and len(word) - len(end) >= keep:
            return word[: -len(end)]
    return word


def _script(word: str) -> str:
    first = word[0]
    if "\u0400" <= first <= "\u04ff":
        return "cyrillic"
    if "\u05d0" <= first <= "\u05ea":
        return "hebrew"
    return "latin"


def _unaccented(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


_STEMMERS = {lang: Stemmer.Stemmer(lang).stemWord for lang in ("english", "portuguese", "russian")}
RUSSIAN_STEM_CHARS = 5
"""Russian Snowball stems are cut to this many letters (``работает``/``работе`` → ``работ``)."""
_PORTUGUESE = re.compile("[ãõçâêôàáéíóú]")
_PORTUGUESE_WORDS = frozenset(
    {"não", "você", "vocês", "que", "tem", "para", "uma", "é", "está", "estou", "tá", "pra", "ela"}
    | {"eles", "elas", "meu", "minha", "seu", "sua", "mas", "isso"}
)
"""A Latin-script text is Portuguese when it has one of these words or letters, else English."""


def _language(raw: Sequence[str]) -> str:
    """``vietnamese``, ``portuguese`` or ``english``: how a text's Latin words are stemmed."""
    joined = " ".join(raw)
    if _VIETNAMESE.search(joined):
        return "vietnamese"
    if _PORTUGUESE.search(joined) or not _PORTUGUESE_WORDS.isdisjoint(raw):
        return "portuguese"
    return "english"


@functools.lru_cache(maxsize=65536)
def _forms(word: str, language: str) -> Word:
    if word.isdigit():
        return (word,)
    script = _script(word)
    if script == "cyrillic":
        # Snowball, then cut: its verb and noun stems differ (работает → работа, работе → работ)
        return (_STEMMERS["russian"](word.replace("ё", "е"))[:RUSSIAN_STEM_CHARS],)
    if script == "hebrew":  # Snowball has no Hebrew: prefix letters and endings by hand
        out = [word]
        rest = word
        for _ in range(2):
            if len(rest) >= 4 and rest[0] in _HEBREW_PREFIXES:
                rest = rest[1:]
                out.append(rest)
        for form in list(out):  # and without a feminine or plural ending (אלרגיה → אלרגי)
            bare = _strip(form, _HEBREW_ENDINGS, 3)
            if len(form) >= 5 and bare != form and bare not in out:
                out.append(bare)
        return tuple(out)
    if language == "vietnamese":  # syllables are short and whole
        return (word,)
    # other Latin script: Snowball's English stem, accents dropped; in a Portuguese text also the
    # Portuguese stem (alergia/alérgica → alerg), so a name stemmed apart by one still meets
    english = _unaccented(_STEMMERS["english"](word))
    if language != "portuguese":
        return (english,)
    return tuple(dict.fromkeys((english, _unaccented(_STEMMERS["portuguese"](word)))))


def _words(text: str) -> list[str]:
    folded = _HEBREW_QUOTES.sub("", unicodedata.normalize("NFKC", text).casefold())
    return [w.strip("_") for w in _WORD.findall(folded)]


def words(text: str) -> list[Word]:
    """The index words of ``text`` in order, function words left out (see the module docstring)."""
    if len(text) <= _MEMO_CHARS:  # a turn's message is looked up in every list and document set
        return list(_memo_words(text))
    return _index_words(text)


_MEMO_CHARS = 2048


def word_count(text: str) -> int:
    """How many distinct index words ``text`` has (names and content words; function words,
    laughter and fillers are not index words); the recall benchmarks record it per message."""
    return len(set(words(text)))


@functools.lru_cache(maxsize=1024)
def _memo_words(text: str) -> tuple[Word, ...]:
    return tuple(_index_words(text))


def _index_words(text: str) -> list[Word]:
    raw = _words(text)
    language = _language(raw)
    stop = _VIETNAMESE_STOPWORDS if language == "vietnamese" else STOPWORDS
    return [_forms(word, language) for word in raw if _is_index_word(word, stop)]


def _is_index_word(folded: str, stop: frozenset[str]) -> bool:
    """Whether a case-folded word is indexed: two letters or more (or a number), not a function word."""
    return (len(folded) >= 2 or folded.isdigit()) and folded not in stop


def terms(text: str) -> list[str]:
    """Every index form of ``text`` in order (the forms of ``words``, flattened)."""
    return [form for word in words(text) for form in word]


_OPENERS = " \t\"'«»„“”‘’([{-—–*•>"
"""What may stand between a sentence's end (or a line's start) and its first word."""
_SENTENCE_ENDS = ".!?…\n"


class CaseWord(NamedTuple):
    """An index word and how it was written (for the person gate, ``Bm25.elsewhere``)."""

    forms: Word
    case: str
    """``upper`` (first letter a capital), ``lower`` (or a number), ``none`` (a caseless script)."""
    initial: bool
    """The first word of the text, of a sentence or of a line: a capital there says nothing."""
    raw: str = ""
    """The word as written, case-folded (names compare on it: ``adapters.recall.names``)."""


def case_words(text: str) -> tuple[CaseWord, ...]:
    """The index words of ``text`` in order (the forms of ``words``) with their case."""
    if len(text) <= _MEMO_CHARS:
        return _memo_case_words(text)
    return _case_words(text)


@functools.lru_cache(maxsize=1024)
def _memo_case_words(text: str) -> tuple[CaseWord, ...]:
    return _case_words(text)


def _case_words(text: str) -> tuple[CaseWord, ...]:
    raw = _HEBREW_QUOTES.sub("", unicodedata.normalize("NFKC", text))
    language = _language(_words(raw))
    stop = _VIETNAMESE_STOPWORDS if language == "vietnamese" else STOPWORDS
    out: list[CaseWord] = []
    last: int | None = None  # where the previous word (kept or not) ended
    for match in _WORD.finditer(raw):
        between = raw[0 if last is None else last : match.start()].rstrip(_OPENERS)
        initial = (last is None and not between) or (between != "" and between[-1] in _SENTENCE_ENDS)
        last = match.end()
        word = match.group().strip("_")
        folded = word.casefold()
        if not _is_index_word(folded, stop):
            continue
        first = word[0]
        case = "upper" if first.isupper() else "none" if first.isalpha() and not first.islower() else "lower"
        out.append(CaseWord(_forms(folded, language), case, initial, folded))
    return tuple(out)


STOPWORDS: frozenset[str] = frozenset(w for line in _STOPWORDS_TEXT for w in _words(line))
"""Function words dropped before stemming (whole words, case-folded)."""
_VIETNAMESE_STOPWORDS: frozenset[str] = frozenset(
    w for line in _VIETNAMESE_STOPWORDS_TEXT for w in _words(line)
)
"""In a Vietnamese text, the English and Portuguese function words are words (``em gái``, younger
sister; ``chó to``, big dogs; the name ``My``); laughter and Vietnamese ones are still dropped."""


class Parsed(msgspec.Struct, frozen=True, array_like=True):
    """What ``Bm25`` reads of one document's text (``parse``), to be stored beside the text and
    loaded instead of reading the text again: its index words with how often each occurs, in
    order of first occurrence, and its words written with a capital (case-folded) with their
    forms."""

    counts: tuple[tuple[Word, int], ...]
    names: dict[str, Word]


def parse(text: str) -> Parsed:
    """The index words and capitalized words of ``text`` (``words``, ``case_words``)."""
    names: dict[str, Word] = {}
    for w in case_words(text):
        if w.case == "upper":
            names.setdefault(w.raw, w.forms)
    return Parsed(counts=tuple(Counter(words(text)).items()), names=names)


@functools.lru_cache(maxsize=8)
def _cohort(background: tuple[str, ...]) -> tuple[Counter[str], ...]:
    """The background passages' term counts (the same few passages for every index)."""
    return tuple(Counter(terms(t)) for t in background)


class Bm25:
    """BM25 over ``texts`` (row i is document i), with ``background`` adding frequencies only.

    Args:
        texts: the documents to score.
        background: passages counted in document frequencies and the mean length, never scored.
        parsed: ``parse(texts[i])`` for every text, when stored (then the texts are not read
            again unless the person evidence is asked for: ``elsewhere``, ``plain_distinct``).
    """

    def __init__(
        self, texts: Sequence[str], background: Sequence[str] = (), parsed: Sequence[Parsed] | None = None
    ) -> None:
        self._texts = tuple(texts)
        if parsed is None:
            parsed = [parse(t) for t in self._texts] if len(self._texts) else []
        elif len(parsed) != len(self._texts):
            raise ValueError(f"{len(parsed)} parsed documents for {len(self._texts)} texts")
        self._given_names: dict[str, Word] = {}
        for one in parsed:
            for raw, forms in one.names.items():
                self._given_names.setdefault(raw, forms)
        doc_words = [[w for w, _ in one.counts] for one in parsed]
        docs: list[Counter[str]] = []
        for one in parsed:
            counts: Counter[str] = Counter()
            for word, n in one.counts:
                for form in word:
                    counts[form] += n
            docs.append(counts)
        cohort = _cohort(tuple(background))
        self.size = len(docs)
        lengths = np.array([sum(d.values()) for d in docs], dtype=np.float64)
        everyone = [*docs, *cohort]
        total = len(everyone)
        mean = (sum(sum(d.values()) for d in everyone) / total) if total else 1.0
        df: Counter[str] = Counter()
        for d in everyone:
            df.update(d.keys())
        self._idf = {t: math.log(1.0 + (total - n + 0.5) / (n + 0.5)) for t, n in df.items()}
        norm = BM25_K1 * (1.0 - BM25_B + BM25_B * lengths / max(mean, 1e-9))
        postings: dict[str, tuple[list[int], list[float]]] = {}
        for row, d in enumerate(docs):
            for term, tf in d.items():
                rows, weights = postings.setdefault(term, ([], []))
                rows.append(row)
                weights.append(tf * (BM25_K1 + 1.0) / (tf + norm[row]))
        self._unseen = math.log(1.0 + (total + 0.5) / 0.5)
        # a document's own weight: each distinct word once, by its commonest form
        self._weight = np.array(
            [sum(min(self._idf[f] for f in word) for word in w) for w in doc_words], dtype=np.float64
        )
        self._last: tuple[str, list[tuple[float, npt.NDArray[np.int64] | None, Word]]] | None = None
        self._last_aliases: tuple[str, dict[Word, Word]] | None = None
        self._postings = {
            t: (np.asarray(r, dtype=np.int64), np.asarray(w, dtype=np.float64))
            for t, (r, w) in postings.items()
        }

    def idf(self, term: str) -> float:
        """The inverse document frequency of an index term (0 for a term never seen)."""
        return self._idf.get(term, 0.0)

    def scores(self, query: str) -> npt.NDArray[np.float64]:
        """The BM25 score of every document for ``query`` (each distinct query term once)."""
        out = np.zeros(self.size, dtype=np.float64)
        aliases = self._aliases(query)
        for term in dict.fromkeys(f for word in words(query) for f in aliases.get(word, word)):
            found = self._postings.get(term)
            if found is not None:
                out[found[0]] += self._idf[term] * found[1]
        return out

    def _held(self, query: str) -> list[tuple[float, npt.NDArray[np.int64] | None, Word]]:
        """Per distinct query word: its weight (commonest known form; unseen: the rarest), the
        rows of the documents that hold any of its forms (sorted, each once; None: none; not a
        mask over every document, so a word costs its postings, not the set's size) and the
        word's forms. The last query's answer is kept: ``cover``, ``content`` and
        ``plain_distinct`` ask it of the same message one after the other."""
        last = self._last
        if last is not None and last[0] == query:
            return last[1]
        found = list(self._held_words(query))
        self._last = (query, found)
        return found

    def _held_words(self, query: str) -> Iterator[tuple[float, npt.NDArray[np.int64] | None, Word]]:
        aliases = self._aliases(query)
        for word in dict.fromkeys(aliases.get(w, w) for w in words(query)):
            known = [f for f in word if f in self._idf]
            weight = min((self._idf[f] for f in known), default=self._unseen)
            rows = [found[0] for form in known if (found := self._postings.get(form)) is not None]
            held = None if not rows else rows[0] if len(rows) == 1 else np.unique(np.concatenate(rows))
            yield weight, held, word

    def content(self, query: str) -> float:
        """The share of the query's IDF weight in words that fewer than two documents hold.

        A word several documents of the set share is, in a memory list, mostly the name of a
        person the list is about ("Kate" in each of Kate's memories): a message made only of
        such words and function words ("ok thanks Kate", "thanks Kate, see you later") names
        people without saying anything about them, and has content 0. A message without any
        index word has content 0 too.
        """
        total = rest = 0.0
        for weight, held, _ in self._held(query):
            total += weight
            if held is None or len(held) < 2:
                rest += weight
        return rest / total if total > 0 else 0.0

    def cover(
        self, query: str
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Per document, the shares of the query's and of the document's IDF weight they share.

        Counted by word: a word of several forms (a Hebrew word with and without its prefix)
        weighs as its commonest form the set knows, and a document that holds any of its forms
        shares it whole. A query word the index has never seen in any form (not in
        a document, not in the background) weighs as much as the rarest possible term: it is
        usually a name the set does not know. The *distinct* cover counts each shared word
        divided by the number of documents of the set that hold it: a name shared by all of a
        person's memories adds little to each.

        Returns:
            ``(query_cover, document_cover, distinct_cover)``, each ``(size,)`` in [0, 1].
        """
        shared = np.zeros(self.size, dtype=np.float64)
        distinct = np.zeros(self.size, dtype=np.float64)
        total = 0.0
        for weight, held, _ in self._held(query):
            total += weight
            if held is not None:
                shared[held] += weight
                distinct[held] += weight / len(held)
        query_cover = shared / total if total > 0 else shared
        return query_cover, self._of_own(shared), self._of_own(distinct)

    def _of_own(self, weights: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Per document, ``weights`` as a share of the document's own weight (at most 1)."""
        own = np.divide(weights, self._weight, out=np.zeros_like(weights), where=self._weight > 0)
        return np.minimum(own, 1.0)

    def plain_distinct(self, query: str) -> npt.NDArray[np.float64]:
        """Per document, the distinct cover (``cover``) without the set's people words (RECALL-3).

        The query's words that are people forms of the set (``_people``: name-like words at
        least two documents hold, mostly the names of the people a memory list is about; in a
        caseless script any word two documents share) add nothing: "morning Chloe" shares only a name with
        "Chloe is a Leo" and has 0 here, while ``cover`` gives a short memory a distinct cover
        of 0.15 from the name alone. The denominator is the document's whole weight, as in
        ``cover``, so the two compare on one scale.
        """
        everyone = self._people[1]
        distinct = np.zeros(self.size, dtype=np.float64)
        for weight, held, word in self._held(query):
            if held is not None and not any(form in everyone for form in word):
                distinct[held] += weight / len(held)
        return self._of_own(distinct)

    @functools.cached_property
    def _people(self) -> tuple[tuple[frozenset[str], ...], frozenset[str], frozenset[str]]:
        """Per document, its *people forms*: the forms of its name-like words (a capital
        anywhere, or any word of a caseless script) that at least two documents hold; all of
        them together; and the *weak* ones, written with a capital only where a sentence
        starts (``Con chó của Hạnh``, ``Con gái của Yến``: a capital there may be any word).
        Built on the first ``elsewhere`` (memory lists only)."""

        def shared(form: str) -> bool:
            found = self._postings.get(form)
            return found is not None and len(found[0]) >= 2

        said = [case_words(text) for text in self._texts]
        own = tuple(
            frozenset(f for w in words if w.case != "lower" for f in w.forms if shared(f)) for words in said
        )
        everyone: frozenset[str] = frozenset().union(*own)
        firm = {
            f
            for words in said
            for w in words
            if w.case == "none" or (w.case == "upper" and not w.initial)
            for f in w.forms
        }
        return own, everyone, everyone - firm

    def elsewhere(self, query: str) -> npt.NDArray[np.bool_]:
        """Per document, whether the query is about other people than the document's (RECALL-2).

        A document is *elsewhere* when it has people forms (``_people``: mostly the names of
        the people a memory list is about), the query holds none of them, and the query names
        someone: one of the set's people forms, or a capitalized word that is not the first of
        a sentence and that no document holds in any form (a person the set does not know).
        The query holds a weak people form only when it writes it with a capital too (``con
        chó của Quân`` does not hold ``Con``; ``ok thanks kate`` holds ``Kate`` when some
        memory writes it mid-sentence).
        A document without people forms is never elsewhere, and neither is any document for a
        query that names no one.

        A capitalized word that opens a sentence may be anybody's name or any word ("Маша
        так и не нашла паспорт", "Tired of these night shifts"), and so may any word of a
        caseless script ("נועה עדיין מחפשת?"): when such a word is the only sign of someone
        else — no document and no background passage holds it in any form — the query *may*
        name a stranger, and a document with people forms is elsewhere unless
        the query shares at least ``WEAK_STRANGER_KEEP`` of the document's weight in words
        that are not people forms (``plain_distinct``): a message about oneself that opens with
        an unknown word and says what the memory says keeps it.
        """
        own, everyone, weak = self._people
        out = np.zeros(self.size, dtype=np.bool_)
        if not everyone:
            return out
        aliases = self._aliases(query)
        said = tuple(w._replace(forms=aliases.get(w.forms, w.forms)) for w in case_words(query))
        forms = {f for w in said for f in w.forms if w.case != "lower" or f not in weak}
        if forms & everyone or self._names_a_stranger(said):
            for row, people in enumerate(own):
                out[row] = bool(people) and people.isdisjoint(forms)
        elif self._may_name_a_stranger(said):
            plain = self.plain_distinct(query)
            for row, people in enumerate(own):
                out[row] = bool(people) and plain[row] < WEAK_STRANGER_KEEP
        return out

    @property
    def _names(self) -> dict[str, Word]:
        """The documents' words written with a capital (case-folded) and their forms."""
        return self._given_names

    def _aliases(self, query: str) -> dict[Word, Word]:
        """The query's words written with a capital that may name a person the documents name
        otherwise (``same_person``: a nickname, a short form, another spelling), each with the
        forms of those names added ("Mel" holds the forms of "Melanie"). A capitalized word opening a
        sentence that only the background knows is an ordinary word and has no aliases. The last
        query's answer is kept."""
        last = self._last_aliases
        if last is not None and last[0] == query:
            return last[1]
        out: dict[Word, Word] = {}
        names = self._names
        for w in case_words(query) if names else ():
            if w.case != "upper" or w.forms in out:
                continue
            if w.initial and any(f in self._idf and f not in self._postings for f in w.forms):
                continue
            extra = [
                f for raw, forms in names.items() if raw != w.raw and same_person(w.raw, raw) for f in forms
            ]
            extra = [f for f in dict.fromkeys(extra) if f not in w.forms]
            if extra:
                out[w.forms] = (*w.forms, *extra)
        self._last_aliases = (query, out)
        return out

    def names_only(self, query: str) -> bool:
        """Whether every index word of ``query`` is a people form of the set (``_people``): the
        message names the set's people and says nothing about them ("thanks Cleo, see you
        later", "Phong có đó không?"; RECALL-3). False for a query without index words."""
        everyone = self._people[1]
        aliases = self._aliases(query)
        found = [aliases.get(w, w) for w in words(query)]
        return bool(found) and all(any(f in everyone for f in w) for w in found)

    def _names_a_stranger(self, said: Sequence[CaseWord]) -> bool:
        """Whether ``said`` holds a capitalized word inside a sentence that no document holds in
        any form (a person the set does not know)."""
        return any(
            w.case == "upper" and not w.initial and not any(f in self._postings for f in w.forms)
            for w in said
        )

    def _may_name_a_stranger(self, said: Sequence[CaseWord]) -> bool:
        """Whether ``said`` holds a word that may be a stranger's name: a capitalized word opening a
        sentence, or any word of a caseless script (Hebrew), that no document and no background
        passage holds in any form."""
        return any(
            (w.case == "none" or (w.case == "upper" and w.initial))
            and not any(f in self._idf for f in w.forms)
            for w in said
        )


class LexicalCache:
    """BM25 indexes per key, rebuilt when the source's version or ids change.

    Args:
        background: passages every index counts in its document frequencies.
        max_entries: indexes kept before the least recently used is dropped.
    """

    def __init__(self, background: Sequence[str] = (), *, max_entries: int = 512) -> None:
        self._background = tuple(background)
        self._entries: OrderedDict[Hashable, tuple[int, tuple[str, ...], Bm25]] = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_entries

    def get(
        self, key: Hashable, version: int, ids: Sequence[str], texts: Callable[[], Sequence[str]]
    ) -> Bm25:
        """The index of ``key`` at ``version`` over ``ids`` (row order), built from ``texts()``
        when nothing matching is cached."""
        names = tuple(ids)
        with self._lock:
            found = self._entries.get(key)
            if found is not None and found[0] == version and found[1] == names:
                self._entries.move_to_end(key)
                return found[2]
        index = Bm25(texts(), self._background)
        with self._lock:
            self._entries[key] = (version, names, index)
            self._entries.move_to_end(key)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)
        return index
