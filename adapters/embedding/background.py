"""Built-in background passages for background-relative match scores.

A query's cosine to a memory means little on its own: e5 puts almost every pair of short
texts between 0.72 and 0.90. What matters is how much closer the memory is than an
*ordinary* passage. These passages are that yardstick: short, everyday facts and remarks
in the five languages Hearth is tuned for, on many topics: most in the style of saved
memories, some as short as the shortest memories ("Is vegetarian"), some like small talk,
so that neither a two-word memory nor a "thanks, good night" looks special. They are
embedded once per process as passages (see ``scorer.embed_background``).

Changing this list shifts every score, so the policies in ``scorer.POLICIES`` must be
re-calibrated with ``bench/calibrate_threshold.py`` afterwards.
"""

from __future__ import annotations

__all__ = ["BACKGROUND_PASSAGES", "PHATIC_MESSAGES"]

BACKGROUND_PASSAGES: tuple[str, ...] = (
    # English
    "Goes to the gym on Tuesdays",
    "The meeting was moved to Thursday afternoon",
    "Bought a new laptop last month",
    "Grew up on a farm near the coast",
    "Likes hiking in the mountains on weekends",
    "Uses a blue umbrella when it rains",
    "The neighbours are renovating their kitchen",
    "Keeps houseplants on every windowsill",
    "Watches the news every evening",
    "Saving money for a new washing machine",
    "Prefers window seats on trains",
    "The library closes at eight on weekdays",
    "Is left-handed",
    "Likes jazz",
    "Is an early riser",
    "Said thanks and good night",
    "Asked how everyone was doing",
    # Russian
    "По выходным ездит к родителям за город",
    "Недавно покрасила стены в спальне",
    "Любит собирать грибы осенью",
    "Сломался телефон, отдала в ремонт",
    "Каждое утро слушает подкасты",
    "Соседи сверху шумят по ночам",
    "Копит на отпуск у моря",
    "Начала вязать шарф",
    "Ходит на работу пешком",
    "В субботу был на дне рождения коллеги",
    "Предпочитает смотреть сериалы на английском",
    "Выращивает помидоры на даче",
    "Левша",
    "Любит джаз",
    "Рано встаёт",
    "Поблагодарила и пожелала спокойной ночи",
    "Спросила, как у всех дела",
    # Portuguese
    "Gosta de acordar cedo aos domingos",
    "Comprou uma bicicleta usada",
    "Trabalha de casa às sextas-feiras",
    "A internet de casa caiu ontem à noite",
    "Está pintando o quarto de verde",
    "Coleciona selos antigos",
    "Vai à feira toda quarta-feira",
    "Prefere praia a montanha",
    "Assiste novela com a mãe",
    "Mudou de emprego no ano passado",
    "Tem um jardim pequeno no quintal",
    "Sempre esquece o guarda-chuva",
    "É canhoto",
    "Gosta de jazz",
    "Acorda cedo",
    "Agradeceu e deu boa noite",
    "Perguntou como todos estavam",
    # Vietnamese
    "Thích đi dạo công viên vào buổi chiều",
    "Mới mua một chiếc điện thoại mới",
    "Cuối tuần thường về quê thăm ông bà",
    "Đang sửa lại phòng bếp",
    "Thích trồng cây cảnh trên ban công",
    "Hay xem tin tức buổi tối",
    "Đi làm bằng xe buýt",
    "Đang tiết kiệm tiền mua máy giặt",
    "Thích chụp ảnh phong cảnh",
    "Hàng xóm mới chuyển đến tuần trước",
    "Thường dọn nhà vào sáng Chủ nhật",
    "Học nấu ăn qua video trên mạng",
    "Thuận tay trái",
    "Thích nhạc jazz",
    "Hay dậy sớm",
    "Cảm ơn và chúc mọi người ngủ ngon",
    "Hỏi thăm mọi người dạo này thế nào",
    # Hebrew
    "הולך לחדר כושר בימי שלישי",
    "קנתה מחשב נייד חדש בחודש שעבר",
    "אוהב לטייל בטבע בסופי שבוע",
    "השכנים משפצים את המטבח",
    "מגדלת עציצים על אדן החלון",
    "צופה בחדשות כל ערב",
    "חוסך כסף למכונת כביסה חדשה",
    "עובדת מהבית בימי חמישי",
    "אוספת בולים ישנים",
    "עבר דירה בשנה שעברה",
    "מעדיף לשבת ליד החלון ברכבת",
    "שכחה את המטריה באוטובוס",
    "שמאלי",
    "אוהב ג'אז",
    "קם מוקדם",
    "הודתה ואיחלה לילה טוב",
    "שאלה מה שלום כולם",
)

PHATIC_MESSAGES: tuple[str, ...] = (
    # English
    "hi, how are you?",
    "hey! what's up",
    "morning! how did you sleep?",
    "thanks, talk to you later",
    "bye, see you soon",
    "haha that's so funny",
    "lol",
    "ok sounds good",
    "yeah me too",
    "are you around later?",
    "let's meet at 7",
    "wanna grab lunch?",
    "that's awesome!",
    "omg really?",
    "take care",
    "sorry, I'm running late",
    # Russian
    "привет, как дела?",
    "спасибо, до связи",
    "пока, до завтра",
    "ахаха смешно",
    "ок, договорились",
    "ты где?",
    "давай встретимся вечером",
    "круто!",
    "я тоже",
    "извини, опаздываю",
    "доброе утро!",
    # Portuguese
    "oi, tudo bem?",
    "valeu, falou",
    "tchau, até amanhã",
    "kkkkk que engraçado",
    "beleza, combinado",
    "cadê você?",
    "bora almoçar?",
    "que legal!",
    "eu também",
    "desculpa, tô atrasado",
    "bom dia!",
    # Vietnamese
    "chào, khỏe không?",
    "cảm ơn nhé",
    "tạm biệt, mai gặp",
    "haha buồn cười quá",
    "ok nhé",
    "bạn đang ở đâu?",
    "tối nay đi ăn không?",
    "tuyệt quá!",
    "mình cũng vậy",
    "xin lỗi, mình đến muộn",
    "chào buổi sáng!",
    # Hebrew
    "היי, מה נשמע?",
    "תודה, נדבר",
    "ביי, נתראה מחר",
    "חחח מצחיק",
    "סבבה, סגרנו",
    "איפה אתה?",
    "בא לך לאכול צהריים?",
    "איזה כיף!",
    "גם אני",
    "סליחה, אני מאחר",
    "בוקר טוב!",
)
"""Everyday chit-chat in the five languages (RECALL-3): greetings, thanks, goodbyes, laughter,
agreement, checking in and plans to meet, as people write them in a chat. Embedded once per
process as *queries* (``scorer.embed_phatic``: they are compared with messages, not memories);
a message's ``phatic`` score is its best cosine to them (``hybrid.phatic_score``). Written
fresh for this purpose, not taken from the bench's chats. Changing the list shifts the scores:
re-calibrate ``FUSION`` (``bench/recall_quality.py --calibrate --split dev``) afterwards."""
