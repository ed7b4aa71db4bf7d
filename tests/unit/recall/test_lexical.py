"""RECALL-1: Unicode-aware terms, BM25 and covers (adapters.recall.lexical), and the exact
hybrid shortlist (adapters.recall.hybrid)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from adapters.recall.hybrid import hits
from adapters.recall.lexical import Bm25, LexicalCache, terms
from engine.memory.fusion import FusionRule


def test_terms_fold_case_and_inflection_in_five_languages() -> None:
    assert terms("Juno's CAT is called Mochi") == terms("juno cats called mochi")
    assert set(terms("кошка Оли")) & set(terms("Кошку Оля зовут Мочи")) >= {"ол"}
    assert set(terms("a gata da Bia")) & set(terms("as gatas")) == {"gata"}  # Snowball
    assert set(terms("Carol tem alergia a glúten")) & set(terms("a Carol é alérgica")) >= {"alerg"}
    asked = set(terms("как у Нины дела на работе?"))
    assert set(terms("Нина работает сантехником")) & asked >= {"нин", "работ"}
    assert terms("Con mèo của Lan tên là Bông") == ["con", "mèo", "lan", "tên", "bông"]
    assert terms("Thảo sống ở Chicago") == ["thảo", "sống", "chicago"]  # Vietnamese: no Latin stems
    assert "נועה" in terms("לנועה יש חתול") and "מוצי" in terms("לחתולה קוראים מוצ'י")
    assert "sam" not in terms("haha same, Ravi")  # a word is not cut into a name


def test_hebrew_words_also_count_without_a_feminine_or_plural_ending() -> None:
    asked = set(terms("האלרגיה של יואב רצינית?"))
    assert asked & set(terms("יואב אלרגי לגלוטן")) == {"יואב", "אלרגי"}
    assert "איטלקי" in terms("הוא לומד איטלקית") and "תות" in terms("אלרגי לתותים")


def test_a_vietnamese_text_keeps_words_that_are_english_or_portuguese_function_words() -> None:
    assert terms("Hoa có một em gái tên là My") == ["hoa", "một", "em", "gái", "tên", "my"]
    assert terms("Mai sợ chó to") == ["mai", "sợ", "chó", "to"]
    assert terms("haha cảm ơn Lan nha") == ["lan"]  # Vietnamese function words and laughter still go
    assert terms("my cat is a treat to me") == ["cat", "treat"]  # elsewhere they are function words


def test_function_words_and_single_letters_are_not_terms() -> None:
    assert terms("ok thanks, see you") == [] and terms("lol haha") == [] and terms("חחח") == []
    assert terms("спасибо, пока") == [] and terms("valeu, até mais") == []


def test_bm25_ranks_the_document_sharing_the_rare_word_first() -> None:
    index = Bm25(["Juno's cat is called Mochi", "Bau moved to Porto in May"], ["Goes to the gym on Tuesdays"])
    scores = index.scores("how is Mochi doing?")
    assert scores[0] > 0 and scores[1] == 0


def test_covers_count_unknown_names_against_the_query_and_shared_names_less() -> None:
    index = Bm25(["Juno's cat is called Mochi", "Juno moved to Porto", "Juno plays the drums"])
    known, _, _ = index.cover("is Juno's cat ok?")
    stranger, _, _ = index.cover("is Kai's cat ok?")
    assert known[0] > stranger[0] > 0
    _, own, distinct = index.cover("thanks Juno")
    assert own[0] > 0 and distinct[0] < own[0] / 2  # "juno" is in all three memories
    _, own, distinct = index.cover("how is Mochi?")
    assert distinct[0] == own[0] > 0  # "mochi" is in one


def test_content_is_zero_for_a_message_that_only_names_the_lists_people() -> None:
    index = Bm25(["Kate works as a translator", "Kate moved to Porto", "Omar plays the drums"])
    assert index.content("ok thanks Kate") == 0.0  # "kate" is in two memories, the rest function words
    assert index.content("thanks Kate, see you later") == 0.0
    assert index.content("ok thanks") == 0.0
    assert 0.5 < index.content("how is Kate's job going?") < 1.0
    assert index.content("is Omar still drumming?") == 1.0  # "omar" is in one memory only


def test_a_hebrew_word_counts_once_with_or_without_its_prefix() -> None:
    index = Bm25(["לנועה יש חתולה", "נועה עברה לחיפה"])
    asked, own, _ = index.cover("איך החתולה של נועה?")
    plain, _, _ = index.cover("איך חתולה של נועה?")
    assert asked[0] == plain[0] > 0.5 and own[0] == 1.0  # ``החתולה``, ``לנועה`` found by their forms


JUNO_AND_BAU = [
    "Juno's cat is called Mochi",
    "Juno works night shifts as a nurse",
    "Bau moved to Porto in May",
    "Bau is allergic to peanuts",
    "The user prefers rainy days",
]


def _elsewhere(index: Bm25, query: str) -> list[int]:
    return [int(x) for x in index.elsewhere(query)]


def test_recall_2_a_message_about_one_person_puts_the_others_memories_elsewhere() -> None:
    index = Bm25(JUNO_AND_BAU)
    assert _elsewhere(index, "what is Juno's cat called?") == [0, 0, 1, 1, 0]
    assert _elsewhere(index, "where did Bau move, remind me") == [1, 1, 0, 0, 0]
    assert _elsewhere(index, "Juno and Bau say hi") == [0, 0, 0, 0, 0]
    # a memory that names no one of the list is never elsewhere
    assert _elsewhere(index, "what is Lara's cat called?") == [1, 1, 1, 1, 0]


def test_recall_2_a_name_in_lower_case_counts_when_the_list_writes_it_mid_sentence() -> None:
    # "Bau" only ever opens a memory: in lower case it may be any word, so it names no one
    assert _elsewhere(Bm25(JUNO_AND_BAU), "where did bau move, remind me") == [0] * 5
    index = Bm25([*JUNO_AND_BAU, "The user met Bau at a concert"])
    assert _elsewhere(index, "where did bau move, remind me") == [1, 1, 0, 0, 0, 0]


def test_recall_2_a_common_word_that_opens_two_memories_is_no_name_in_lower_case() -> None:
    vi = Bm25(
        ["Con chó của Hạnh tên là Bánh Bao", "Hạnh bị dị ứng với tôm", "Con gái của Yến là Su", "Yến sợ ong"]
    )
    assert _elsewhere(vi, "con chó của Quân tên là gì?") == [1, 1, 1, 1]  # Quân: a stranger here
    assert _elsewhere(vi, "con chó của Hạnh tên là gì?") == [0, 0, 1, 1]


def test_recall_2_a_message_that_names_no_one_gates_nothing() -> None:
    index = Bm25(JUNO_AND_BAU)
    assert _elsewhere(index, "what was the cat called again?") == [0] * 5
    # a capital that opens a sentence names no one
    assert _elsewhere(index, "Peanuts? I think someone was allergic") == [0] * 5
    assert _elsewhere(index, "ok. Cats are great") == [0] * 5
    assert _elsewhere(index, "did someone move to Porto?") == [0] * 5  # a word the list holds is no stranger


def test_recall_2_a_capitalized_word_no_memory_holds_names_a_stranger() -> None:
    index = Bm25(JUNO_AND_BAU)
    assert _elsewhere(index, "how is the cat of Kai doing?") == [1, 1, 1, 1, 0]
    # the first word of a line may be a name too (round 10): no memory or background passage
    # holds "Kai", and the message says nothing Juno's or Bau's memories say
    assert _elsewhere(index, "lol\nKai says hi") == [1, 1, 1, 1, 0]


def test_recall_2_an_unknown_word_opening_a_sentence_may_name_a_stranger() -> None:
    ru = Bm25(
        [
            "Оля покрасила волосы в рыжий",
            "Оля работает медсестрой",
            "Миша переехал в Казань",
            "Миша любит джаз",
        ]
    )
    # another chat's Маша, named only where the sentence starts
    assert _elsewhere(ru, "Маша так и не нашла паспорт?") == [1, 1, 1, 1]
    assert _elsewhere(ru, "Ну что, Маша нашла паспорт?") == [1, 1, 1, 1]  # mid-sentence, as before
    # a word the list or the background holds opens the sentence: nobody else is named
    assert _elsewhere(ru, "Медсестрой быть тяжело") == [0, 0, 0, 0]
    assert _elsewhere(ru, "Миша уже в Казани?") == [1, 1, 0, 0]  # a people word, as before


def test_recall_2_an_unknown_hebrew_word_may_name_a_stranger() -> None:
    he = Bm25(["נועה אלרגית לבוטנים", "נועה עובדת כאחות", "אורי עבר לחיפה", "אורי מנגן בגיטרה"])
    # Hebrew has no capitals: a word no memory and no background passage holds may be a name
    assert _elsewhere(he, "דנה כבר מצאה את הדרכון?") == [1, 1, 1, 1]
    assert _elsewhere(he, "נועה עדיין עובדת?") == [0, 0, 1, 1]  # the list's own person, as before
    # the writer about herself, saying what her memory says, keeps it
    assert _elsewhere(he, "מתה מעייפות, עובדת כאחות כל הלילה") == [1, 0, 1, 1]


def test_recall_2_a_message_about_oneself_that_opens_with_an_unknown_word_keeps_what_it_says() -> None:
    index = Bm25(JUNO_AND_BAU)
    # Juno writes about herself: "Exhausted" is no one, and the message says what her memory says
    assert _elsewhere(index, "Exhausted after these night shifts") == [1, 0, 1, 1, 0]
    # what it does not say stays gated: only the unknown opening word is left to judge by
    assert _elsewhere(index, "Exhausted, honestly") == [1, 1, 1, 1, 0]


def test_recall_2_a_name_held_by_one_memory_only_is_not_a_people_word() -> None:
    # Mochi is in one memory: asking about Mochi alone does not gate Juno's memories
    index = Bm25(JUNO_AND_BAU)
    assert _elsewhere(index, "how is Mochi?") == [0, 0, 0, 0, 0]
    assert Bm25(["Mochi is a cat", "Porto is rainy"]).elsewhere("how is Kai?").tolist() == [False, False]


def test_recall_2_people_words_in_russian_portuguese_vietnamese_and_hebrew() -> None:
    ru = Bm25(
        ["У Оли есть кошка Муся", "Оля работает медсестрой", "Миша переехал в Казань", "Миша любит джаз"]
    )
    assert _elsewhere(ru, "как зовут кошку Оли?") == [0, 0, 1, 1]  # Оли and Оля: one stem
    pt = Bm25(
        [
            "A gata da Bia chama-se Nina",
            "Bia trabalha num hospital",
            "Caio mudou para o Porto",
            "Caio toca bateria",
        ]
    )
    assert _elsewhere(pt, "Como se chama a gata do Caio?") == [1, 1, 0, 0]
    vi = Bm25(
        [
            "Dũng nuôi một con mèo tên Mập",
            "Dũng làm y tá",
            "Lan chuyển đến Đà Nẵng",
            "Lan bị dị ứng đậu phộng",
        ]
    )
    assert _elsewhere(vi, "con mèo của Dũng tên là gì?") == [0, 0, 1, 1]  # syllables kept whole in context
    he = Bm25(["לנועה יש חתולה בשם מוצ'י", "נועה עובדת כאחות", "דן עבר לחיפה", "דן אלרגי לבוטנים"])
    assert _elsewhere(he, "איך קוראים לחתולה של נועה?") == [0, 0, 1, 1]  # a caseless script


def test_recall_3_the_plain_distinct_cover_leaves_the_names_out() -> None:
    chloe = [
        "Chloe is a Leo.",
        "Chloe is binge-watching The Bear right now.",
        "Chloe borrowed the camping tent.",
        "Noah wears size 44 shoes.",
        "Noah plays Zelda on weekends.",
        "Mochi the cat sleeps on the piano.",
    ]
    index = Bm25(chloe)
    # "morning Chloe": the name alone gives the short memory a distinct cover, not a plain one
    assert index.cover("morning Chloe ☀️")[2][0] > 0.05
    assert index.plain_distinct("morning Chloe ☀️").tolist() == [0.0] * 6
    # a word beside the name still counts, on the same scale as the distinct cover
    plain = index.plain_distinct("is Chloe still watching the bear?")
    assert plain[1] > 0.3 and plain[1] <= index.cover("is Chloe still watching the bear?")[2][1]
    assert plain[[0, 2, 3, 4, 5]].tolist() == [0.0] * 5
    # a word one memory holds is no people word: "Mochi" counts
    assert index.plain_distinct("haha Mochi again")[5] > 0.2
    # Russian forms of a name and a Hebrew name (caseless: any word two memories share)
    ru = Bm25(["Оля любит кофе.", "Оля живёт в Казани.", "У Оли есть кот Барсик."])
    assert ru.plain_distinct("привет, Оля!").tolist() == [0.0] * 3
    assert ru.plain_distinct("как там Барсик у Оли?")[2] > 0.2
    he = Bm25(["נועה אוהבת קפה", "נועה גרה בחיפה", "לנועה יש חתול בשם מוקה"])
    assert he.plain_distinct("בוקר טוב נועה").tolist() == [0.0] * 3
    assert he.plain_distinct("איך מוקה של נועה?")[2] > 0.2


def test_cache_rebuilds_only_when_version_or_ids_change() -> None:
    cache = LexicalCache()
    built: list[int] = []

    def texts() -> list[str]:
        built.append(1)
        return ["a memory about Mochi"]

    first = cache.get("k", 1, ["m1"], texts)
    assert cache.get("k", 1, ["m1"], texts) is first and len(built) == 1
    assert cache.get("k", 2, ["m1"], texts) is not first and len(built) == 2
    cache.get("k", 2, ["m2"], texts)
    assert len(built) == 3


arrays = st.lists(st.floats(-10, 10, allow_nan=False), min_size=1, max_size=40)


@given(
    dense=st.lists(st.floats(-3, 6, allow_nan=False), min_size=0, max_size=60),
    seed=st.integers(0, 2**16),
    threshold=st.floats(-1, 4),
    limit=st.integers(1, 5),
    ties=st.booleans(),
)
def test_doc_1_the_first_chunks_are_the_same_when_only_they_are_asked_for(
    dense: list[float], seed: int, threshold: float, limit: int, ties: bool
) -> None:
    # a document or archive rule decides chunk by chunk: asking for the first `limit` lets the
    # search drop what cannot be among them, and returns the same first ones
    rng = np.random.default_rng(seed)
    n = len(dense)
    values = np.round(np.array(dense), 0) if ties else np.array(dense)  # many equal scores
    evidence = (values, rng.random(n), rng.random(n), rng.random(n), rng.random(n))
    rule = FusionRule(query_weight=1.0, distinct_weight=0.5, threshold=threshold)
    ids = [f"c{i:03d}" for i in range(n)][::-1]  # ids against index order: ties go by id
    first = hits(rule, ids, evidence, limit=limit)[:limit]
    assert first == hits(rule, ids, evidence)[:limit]
