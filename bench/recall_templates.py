"""Templates of the recall development set (bench/recall_devset.py), five languages.

Per language: ``names`` (people of the chats), ``facts`` (12 kinds of fact a persona would
save, each: values, the memory as a model saves it, four messages that should recall it and
two near-misses asking the same thing about *another* person) and ``small`` (small talk that
names people). Slots: ``{p}`` the memory's person, ``{o}`` another person of the same chat,
``{v}`` the fact's value; Russian also has ``{p_gen}``/``{o_gen}`` (genitive) and
``{p_dat}``/``{o_dat}`` (dative).

Split rule (docs/RECALL.md, RECALL-1): development conversations use questions 0-1, near-miss 0
and the first half of ``small``; held-out conversations use questions 2-3, near-miss 1 and the
second half. Nothing held-out is looked at while tuning.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LANGUAGES"]

Fact = tuple[list[str], str, list[str], list[str]]

EN: dict[str, Any] = {
    "names": ["Juno", "Bau", "Maya", "Tom", "Priya", "Leo", "Nina", "Sam", "Ravi", "Elena", "Omar", "Kate"],
    "facts": {
        "cat": (
            ["Mochi", "Biscuit", "Pepper", "Luna", "Tofu", "Ziggy"],
            "{p}'s cat is called {v}",
            [
                "how is {v} doing?",
                "did {p}'s cat get over the cold?",
                "{v} knocked a glass off {p}'s table again lol",
                "is {p} still buying that fancy cat food?",
            ],
            ["does {o} have a cat?", "what's the name of {o}'s cat?"],
        ),
        "moved": (
            ["Porto", "Lisbon", "Oslo", "Riga", "Valencia", "Kraków"],
            "{p} moved to {v} in May",
            [
                "how does {p} like living in {v}?",
                "has {p} settled into the new city yet?",
                "I heard rents in {v} went up a lot this year",
                "when exactly did {p} move?",
            ],
            ["is {o} thinking of moving somewhere?", "where does {o} live these days?"],
        ),
        "job": (
            ["nurse", "architect", "baker", "translator", "pharmacist", "plumber"],
            "{p} works as a {v}",
            [
                "is {p} still doing night shifts as a {v}?",
                "how is {p}'s job going?",
                "{p} said work was crazy this week",
                "we need a good {v}, maybe {p} knows one",
            ],
            ["what does {o} do for a living?", "does {o} like the new job?"],
        ),
        "sister": (
            ["Ana", "Lena", "Irina", "Dora", "Nadia", "Sofia"],
            "{p} has a younger sister named {v}",
            [
                "how old is {v} now?",
                "is {p}'s little sister coming to visit?",
                "{v} got into university, {p} is so proud!",
                "does {p} get along with the sister?",
            ],
            ["does {o} have any siblings?", "is {o} an only child?"],
        ),
        "allergy": (
            ["peanuts", "shellfish", "sesame", "strawberries", "gluten", "penicillin"],
            "{p} is allergic to {v}",
            [
                "I'm cooking something with {v}, is that ok for {p}?",
                "what can't {p} eat again?",
                "{p} had a bad reaction at the restaurant last night",
                "should we keep {v} away from the party food?",
            ],
            ["is {o} allergic to anything?", "can {o} eat everything?"],
        ),
        "band": (
            ["cello", "drums", "violin", "trumpet", "piano", "bass guitar"],
            "{p} plays the {v} in a local band",
            [
                "when is {p}'s next gig?",
                "is {p} still practising the {v} every day?",
                "{p}'s band is playing on Saturday, right?",
                "{p} finally bought a new {v}",
            ],
            ["does {o} play any instrument?", "is {o} musical at all?"],
        ),
        "team": (
            ["Benfica", "Arsenal", "Flamengo", "Ajax", "Celtic", "Napoli"],
            "{p} supports {v}",
            [
                "did {v} win yesterday?",
                "{p} must be happy after that match",
                "is {p} going to the {v} game on Sunday?",
                "how is {p}'s team doing this season?",
            ],
            ["which team does {o} support?", "does {o} even watch football?"],
        ),
        "son": (
            ["Ollie", "Max", "Theo", "Noah", "Felix", "Hugo"],
            "{p}'s son {v} started school in September",
            [
                "how is {v} liking school?",
                "is {p}'s boy enjoying first grade?",
                "{v} lost his first tooth, {p} sent a photo",
                "does {p} walk the kid to school every morning?",
            ],
            ["does {o} have kids?", "how old are {o}'s children?"],
        ),
        "language": (
            ["Japanese", "Korean", "Italian", "Greek", "Spanish", "Turkish"],
            "{p} is learning {v}",
            [
                "how is {p}'s {v} coming along?",
                "is {p} still taking those language lessons?",
                "{p} ordered dinner in {v} last night!",
                "any good apps for learning {v}? asking for {p}",
            ],
            ["does {o} speak any other languages?", "is {o} learning a language?"],
        ),
        "birthday": (
            ["3 March", "12 July", "9 November", "21 January", "30 April", "15 August"],
            "{p}'s birthday is on {v}",
            [
                "what should we get {p} for the birthday?",
                "is {p}'s birthday on {v}?",
                "we should plan a party for {p}'s birthday",
                "how old is {p} turning this year?",
            ],
            ["when is {o}'s birthday?", "did we miss {o}'s birthday?"],
        ),
        "fear": (
            ["flying", "spiders", "heights", "deep water", "thunderstorms", "big dogs"],
            "{p} is afraid of {v}",
            [
                "is {p} still scared of {v}?",
                "how is {p} coping with the phobia?",
                "{p} panicked again yesterday because of {v}",
                "will {p} be ok with all the {v} on the trip?",
            ],
            ["is {o} afraid of anything?", "what scares {o}?"],
        ),
        "marathon": (
            ["Berlin", "Boston", "Tokyo", "Paris", "Chicago", "Rome"],
            "{p} is training for the {v} marathon",
            [
                "how is {p}'s marathon training going?",
                "is the {v} marathon next month?",
                "{p} ran 30 km this morning before work",
                "did {p} get new running shoes for the race?",
            ],
            ["does {o} do any sport?", "is {o} into running?"],
        ),
    },
    "small": [
        "ok thanks {p}",
        "lol {p} that's hilarious",
        "good morning {p}!",
        "{p}, are you coming tonight?",
        "haha same, {p}",
        "see you tomorrow {p}",
        "{p} you're the best",
        "thanks {p}, good night",
        "hey {p}, what's up?",
        "{p} lol no way",
        "miss you {p}",
        "{p} brb",
    ],
}

RU: dict[str, Any] = {
    "names": ["Оля", "Катя", "Лена", "Маша", "Таня", "Ира", "Саша", "Женя", "Настя", "Юля", "Вера", "Соня"],
    "facts": {
        "cat": (
            ["Мочи", "Барсик", "Пушок", "Луна", "Тофу", "Зефир"],
            "Кошку {p_gen} зовут {v}",
            [
                "как там {v}?",
                "кошка {p_gen} уже выздоровела?",
                "{v} опять уронила стакан со стола у {p_gen} ахах",
                "{p} всё ещё покупает тот дорогой корм для кошки?",
            ],
            ["у {o_gen} есть кошка?", "как зовут кошку {o_gen}?"],
        ),
        "moved": (
            ["Казань", "Питер", "Тбилиси", "Ригу", "Калининград", "Новосибирск"],
            "{p} переехала в {v} в мае",
            [
                "как {p_dat} живётся после переезда в {v}?",
                "{p} уже освоилась на новом месте?",
                "говорят, аренда в городе, куда уехала {p}, сильно подорожала",
                "когда именно {p} переехала?",
            ],
            ["{o} не собирается переезжать?", "где сейчас живёт {o}?"],
        ),
        "job": (
            ["медсестрой", "архитектором", "пекарем", "переводчиком", "фармацевтом", "сантехником"],
            "{p} работает {v}",
            [
                "{p} всё ещё работает {v} в ночные смены?",
                "как у {p_gen} дела на работе?",
                "{p} говорит, на работе на этой неделе завал",
                "нам нужен хороший специалист, может {p} кого-то знает по работе",
            ],
            ["кем работает {o}?", "{o_dat} нравится новая работа?"],
        ),
        "sister": (
            ["Аня", "Лиза", "Даша", "Надя", "Поля", "Алина"],
            "У {p_gen} есть младшая сестра {v}",
            [
                "сколько сейчас лет {v}?",
                "младшая сестра {p_gen} приедет в гости?",
                "{v} поступила в университет, {p} так гордится!",
                "{p} ладит с сестрой?",
            ],
            ["у {o_gen} есть братья или сёстры?", "{o} единственный ребёнок в семье?"],
        ),
        "allergy": (
            ["арахис", "морепродукты", "кунжут", "клубнику", "глютен", "пенициллин"],
            "У {p_gen} аллергия на {v}",
            [
                "я готовлю блюдо, там есть {v}, {p_dat} можно?",
                "что {p_dat} нельзя есть?",
                "у {p_gen} вчера в ресторане была сильная реакция",
                "может, уберём {v} из еды на вечеринке?",
            ],
            ["у {o_gen} есть на что-нибудь аллергия?", "{o} может есть всё?"],
        ),
        "band": (
            ["виолончели", "барабанах", "скрипке", "трубе", "пианино", "бас-гитаре"],
            "{p} играет на {v} в местной группе",
            [
                "когда следующий концерт у {p_gen}?",
                "{p} всё ещё каждый день занимается на {v}?",
                "группа {p_gen} играет в субботу, да?",
                "{p} наконец купила новый инструмент",
            ],
            ["{o} играет на каком-нибудь инструменте?", "{o} вообще музыкальная?"],
        ),
        "team": (
            ["Спартак", "Зенит", "ЦСКА", "Локомотив", "Динамо", "Рубин"],
            "{p} болеет за {v}",
            [
                "{v} вчера выиграл?",
                "{p} наверное довольна после матча",
                "{p} пойдёт на игру {v} в воскресенье?",
                "как дела у команды {p_gen} в этом сезоне?",
            ],
            ["за какую команду болеет {o}?", "{o} вообще смотрит футбол?"],
        ),
        "son": (
            ["Лёва", "Макс", "Тёма", "Никита", "Федя", "Гоша"],
            "Сын {p_gen} {v} пошёл в школу в сентябре",
            [
                "как {v} нравится в школе?",
                "сыну {p_gen} нравится в первом классе?",
                "у {v} выпал первый зуб, {p} прислала фото",
                "{p} каждое утро провожает ребёнка в школу?",
            ],
            ["у {o_gen} есть дети?", "сколько лет детям {o_gen}?"],
        ),
        "language": (
            ["японский", "корейский", "итальянский", "греческий", "испанский", "турецкий"],
            "{p} учит {v}",
            [
                "как у {p_gen} успехи с языком, {v} идёт?",
                "{p} всё ещё ходит на курсы языка?",
                "{p} вчера заказала ужин на языке, который учит!",
                "есть хорошие приложения, чтобы учить {v}? спрашиваю для {p_gen}",
            ],
            ["{o} говорит на других языках?", "{o} учит какой-нибудь язык?"],
        ),
        "birthday": (
            ["3 марта", "12 июля", "9 ноября", "21 января", "30 апреля", "15 августа"],
            "День рождения {p_gen} — {v}",
            [
                "что подарим {p_dat} на день рождения?",
                "день рождения {p_gen} ведь {v}?",
                "надо устроить вечеринку на день рождения {p_gen}",
                "сколько {p_dat} исполняется в этом году?",
            ],
            ["когда день рождения у {o_gen}?", "мы не пропустили день рождения {o_gen}?"],
        ),
        "fear": (
            ["летать", "пауков", "высоты", "глубокой воды", "грозы", "больших собак"],
            "{p} боится {v}",
            [
                "{p} всё ещё боится {v}?",
                "как {p} справляется со своим страхом?",
                "у {p_gen} вчера опять была паника из-за {v}",
                "{p} справится в поездке, там ведь будет много {v}?",
            ],
            ["{o} чего-нибудь боится?", "что пугает {o_gen}?"],
        ),
        "marathon": (
            ["Берлинскому", "Бостонскому", "Токийскому", "Парижскому", "Чикагскому", "Римскому"],
            "{p} готовится к {v} марафону",
            [
                "как идёт подготовка {p_gen} к марафону?",
                "{v} марафон уже в следующем месяце?",
                "{p} сегодня утром пробежала 30 км перед работой",
                "{p} купила новые кроссовки для забега?",
            ],
            ["{o} занимается каким-нибудь спортом?", "{o} бегает?"],
        ),
    },
    "small": [
        "ок, спасибо, {p}",
        "{p}, ахах, это смешно",
        "доброе утро, {p}!",
        "{p}, ты придёшь вечером?",
        "хаха, {p}, у меня так же",
        "до завтра, {p}",
        "{p}, ты лучшая",
        "спасибо, {p}, спокойной ночи",
        "привет, {p}, как дела?",
        "{p}, да ладно, не может быть",
        "скучаю, {p}",
        "{p}, щас вернусь",
    ],
}

PT: dict[str, Any] = {
    "names": [
        "Bia",
        "Duda",
        "Lia",
        "Nanda",
        "Malu",
        "Iara",
        "Carol",
        "Júlia",
        "Nina",
        "Lara",
        "Clara",
        "Manu",
    ],
    "facts": {
        "cat": (
            ["Mochi", "Biscoito", "Pipoca", "Luna", "Tofu", "Paçoca"],
            "A gata da {p} se chama {v}",
            [
                "e a {v}, como está?",
                "a gata da {p} já melhorou do resfriado?",
                "a {v} derrubou um copo da mesa da {p} de novo kkk",
                "a {p} ainda compra aquela ração cara pra gata?",
            ],
            ["a {o} tem gato?", "qual é o nome da gata da {o}?"],
        ),
        "moved": (
            ["Porto", "Lisboa", "Recife", "Curitiba", "Floripa", "Belém"],
            "{p} se mudou para {v} em maio",
            [
                "a {p} está gostando de morar em {v}?",
                "a {p} já se adaptou à cidade nova?",
                "ouvi dizer que o aluguel em {v} subiu muito esse ano",
                "quando foi mesmo que a {p} se mudou?",
            ],
            ["a {o} está pensando em se mudar?", "onde a {o} mora agora?"],
        ),
        "job": (
            ["enfermeira", "arquiteta", "padeira", "tradutora", "farmacêutica", "encanadora"],
            "{p} trabalha como {v}",
            [
                "a {p} ainda faz plantão noturno como {v}?",
                "como está o trabalho da {p}?",
                "a {p} disse que o trabalho essa semana está uma loucura",
                "precisamos de uma boa {v}, talvez a {p} conheça alguém",
            ],
            ["a {o} trabalha com o quê?", "a {o} está gostando do emprego novo?"],
        ),
        "sister": (
            ["Ana", "Lena", "Cecília", "Dora", "Nádia", "Sofia"],
            "{p} tem uma irmã mais nova chamada {v}",
            [
                "quantos anos a {v} tem agora?",
                "a irmã mais nova da {p} vem visitar?",
                "a {v} passou no vestibular, a {p} está tão orgulhosa!",
                "a {p} se dá bem com a irmã?",
            ],
            ["a {o} tem irmãos?", "a {o} é filha única?"],
        ),
        "allergy": (
            ["amendoim", "camarão", "gergelim", "morango", "glúten", "penicilina"],
            "{p} tem alergia a {v}",
            [
                "vou cozinhar algo com {v}, tudo bem pra {p}?",
                "o que a {p} não pode comer mesmo?",
                "a {p} teve uma reação forte no restaurante ontem",
                "melhor deixar {v} fora da comida da festa?",
            ],
            ["a {o} tem alergia a alguma coisa?", "a {o} come de tudo?"],
        ),
        "band": (
            ["violoncelo", "bateria", "violino", "trompete", "piano", "baixo"],
            "{p} toca {v} numa banda local",
            [
                "quando é o próximo show da {p}?",
                "a {p} ainda treina {v} todo dia?",
                "a banda da {p} toca no sábado, né?",
                "a {p} finalmente comprou um instrumento novo",
            ],
            ["a {o} toca algum instrumento?", "a {o} é musical?"],
        ),
        "team": (
            ["Flamengo", "Corinthians", "Palmeiras", "Grêmio", "Benfica", "Vasco"],
            "{p} torce pelo {v}",
            [
                "o {v} ganhou ontem?",
                "a {p} deve estar feliz depois do jogo",
                "a {p} vai ao jogo do {v} no domingo?",
                "como está o time da {p} nessa temporada?",
            ],
            ["pra que time a {o} torce?", "a {o} assiste futebol?"],
        ),
        "son": (
            ["Léo", "Théo", "Miguel", "Davi", "Heitor", "Gael"],
            "O filho da {p}, {v}, começou na escola em setembro",
            [
                "o {v} está gostando da escola?",
                "o filho da {p} está curtindo o primeiro ano?",
                "o {v} perdeu o primeiro dente, a {p} mandou foto",
                "a {p} leva o menino pra escola toda manhã?",
            ],
            ["a {o} tem filhos?", "quantos anos têm os filhos da {o}?"],
        ),
        "language": (
            ["japonês", "coreano", "italiano", "grego", "alemão", "turco"],
            "{p} está aprendendo {v}",
            [
                "como vai o {v} da {p}?",
                "a {p} ainda faz aquelas aulas de idioma?",
                "a {p} pediu o jantar em {v} ontem!",
                "algum app bom pra aprender {v}? é pra {p}",
            ],
            ["a {o} fala outras línguas?", "a {o} está aprendendo algum idioma?"],
        ),
        "birthday": (
            ["3 de março", "12 de julho", "9 de novembro", "21 de janeiro", "30 de abril", "15 de agosto"],
            "O aniversário da {p} é em {v}",
            [
                "o que vamos dar pra {p} de aniversário?",
                "o aniversário da {p} é em {v}, né?",
                "temos que organizar uma festa pro aniversário da {p}",
                "quantos anos a {p} faz esse ano?",
            ],
            ["quando é o aniversário da {o}?", "a gente esqueceu o aniversário da {o}?"],
        ),
        "fear": (
            ["avião", "aranhas", "altura", "água funda", "trovoadas", "cachorros grandes"],
            "{p} tem medo de {v}",
            [
                "a {p} ainda tem medo de {v}?",
                "como a {p} está lidando com a fobia?",
                "a {p} entrou em pânico de novo ontem por causa de {v}",
                "a {p} vai ficar bem com tanto {v} na viagem?",
            ],
            ["a {o} tem medo de alguma coisa?", "o que assusta a {o}?"],
        ),
        "marathon": (
            ["Berlim", "Boston", "Tóquio", "Paris", "Chicago", "Roma"],
            "{p} está treinando para a maratona de {v}",
            [
                "como está o treino da {p} pra maratona?",
                "a maratona de {v} é mês que vem?",
                "a {p} correu 30 km hoje de manhã antes do trabalho",
                "a {p} comprou tênis novo pra prova?",
            ],
            ["a {o} pratica algum esporte?", "a {o} gosta de correr?"],
        ),
    },
    "small": [
        "ok, valeu {p}",
        "kkkk {p} que engraçado",
        "bom dia {p}!",
        "{p}, você vem hoje à noite?",
        "haha {p}, comigo também",
        "até amanhã {p}",
        "{p} você é demais",
        "obrigada {p}, boa noite",
        "oi {p}, tudo bem?",
        "{p} sério? não acredito",
        "saudade {p}",
        "{p} já volto",
    ],
}

VI: dict[str, Any] = {
    "names": ["Lan", "Minh", "Hùng", "Mai", "Tuấn", "Hoa", "Nam", "Linh", "Bảo", "Thảo", "Dũng", "Trang"],
    "facts": {
        "cat": (
            ["Mochi", "Bông", "Mướp", "Luna", "Tofu", "Su Su"],
            "Con mèo của {p} tên là {v}",
            [
                "{v} dạo này thế nào rồi?",
                "mèo của {p} hết cảm chưa?",
                "{v} lại làm rơi cái ly trên bàn của {p} haha",
                "{p} vẫn mua loại thức ăn mèo đắt tiền đó à?",
            ],
            ["{o} có nuôi mèo không?", "mèo của {o} tên gì?"],
        ),
        "moved": (
            ["Đà Nẵng", "Huế", "Đà Lạt", "Cần Thơ", "Hải Phòng", "Nha Trang"],
            "{p} đã chuyển đến {v} vào tháng Năm",
            [
                "{p} sống ở {v} có thích không?",
                "{p} đã quen với thành phố mới chưa?",
                "nghe nói tiền thuê nhà ở {v} năm nay tăng nhiều lắm",
                "{p} chuyển nhà hồi nào vậy?",
            ],
            ["{o} có định chuyển nhà không?", "dạo này {o} sống ở đâu?"],
        ),
        "job": (
            ["y tá", "kiến trúc sư", "thợ làm bánh", "phiên dịch viên", "dược sĩ", "thợ sửa ống nước"],
            "{p} làm {v}",
            [
                "{p} vẫn làm ca đêm {v} à?",
                "công việc của {p} dạo này sao rồi?",
                "{p} nói tuần này ở chỗ làm bận kinh khủng",
                "mình cần một {v} giỏi, chắc {p} biết ai đó",
            ],
            ["{o} làm nghề gì?", "{o} có thích công việc mới không?"],
        ),
        "sister": (
            ["Vy", "Ngọc", "Hà", "My", "Quỳnh", "Châu"],
            "{p} có một em gái tên là {v}",
            [
                "{v} giờ bao nhiêu tuổi rồi?",
                "em gái của {p} có sang chơi không?",
                "{v} đậu đại học rồi, {p} tự hào lắm!",
                "{p} với em gái có hợp nhau không?",
            ],
            ["{o} có anh chị em không?", "{o} là con một à?"],
        ),
        "allergy": (
            ["đậu phộng", "tôm", "mè", "dâu tây", "gluten", "penicillin"],
            "{p} bị dị ứng với {v}",
            [
                "mình nấu món có {v}, {p} ăn được không?",
                "{p} không ăn được gì ấy nhỉ?",
                "tối qua {p} bị phản ứng nặng ở nhà hàng",
                "có nên bỏ {v} ra khỏi đồ ăn tiệc không?",
            ],
            ["{o} có bị dị ứng gì không?", "{o} ăn được hết mọi thứ à?"],
        ),
        "band": (
            ["đàn cello", "trống", "violin", "kèn trumpet", "piano", "guitar bass"],
            "{p} chơi {v} trong một ban nhạc địa phương",
            [
                "khi nào {p} diễn buổi tiếp theo?",
                "{p} vẫn tập {v} mỗi ngày à?",
                "ban nhạc của {p} diễn vào thứ Bảy đúng không?",
                "{p} cuối cùng cũng mua nhạc cụ mới rồi",
            ],
            ["{o} có chơi nhạc cụ nào không?", "{o} có năng khiếu âm nhạc không?"],
        ),
        "team": (
            ["Hà Nội FC", "Viettel", "Hải Phòng FC", "Nam Định", "Bình Định", "Thanh Hóa"],
            "{p} là fan của {v}",
            [
                "{v} hôm qua thắng không?",
                "{p} chắc vui lắm sau trận đấu đó",
                "{p} có đi xem {v} đá chủ nhật này không?",
                "đội bóng của {p} mùa này đá sao rồi?",
            ],
            ["{o} cổ vũ đội nào?", "{o} có xem bóng đá không?"],
        ),
        "son": (
            ["Bin", "Tí", "Bo", "Khang", "Phúc", "Cún"],
            "Con trai của {p} là {v} đã vào lớp một hồi tháng Chín",
            [
                "{v} đi học có thích không?",
                "con trai {p} học lớp một có vui không?",
                "{v} rụng cái răng đầu tiên rồi, {p} gửi ảnh nè",
                "{p} sáng nào cũng đưa con đi học à?",
            ],
            ["{o} có con chưa?", "con của {o} mấy tuổi rồi?"],
        ),
        "language": (
            ["tiếng Nhật", "tiếng Hàn", "tiếng Ý", "tiếng Hy Lạp", "tiếng Tây Ban Nha", "tiếng Đức"],
            "{p} đang học {v}",
            [
                "{p} học {v} tới đâu rồi?",
                "{p} vẫn còn đi học lớp ngoại ngữ à?",
                "tối qua {p} gọi món bằng {v} luôn đó!",
                "có app nào học {v} hay không? mình hỏi giùm {p}",
            ],
            ["{o} có nói được ngoại ngữ nào không?", "{o} có đang học ngôn ngữ nào không?"],
        ),
        "birthday": (
            [
                "ngày 3 tháng 3",
                "ngày 12 tháng 7",
                "ngày 9 tháng 11",
                "ngày 21 tháng 1",
                "ngày 30 tháng 4",
                "ngày 15 tháng 8",
            ],
            "Sinh nhật của {p} là {v}",
            [
                "mình nên tặng {p} gì vào sinh nhật?",
                "sinh nhật {p} là {v} phải không?",
                "mình phải tổ chức tiệc sinh nhật cho {p}",
                "năm nay {p} bao nhiêu tuổi rồi?",
            ],
            ["sinh nhật của {o} là khi nào?", "mình có quên sinh nhật {o} không?"],
        ),
        "fear": (
            ["đi máy bay", "nhện", "độ cao", "nước sâu", "sấm sét", "chó to"],
            "{p} sợ {v}",
            [
                "{p} vẫn còn sợ {v} à?",
                "{p} vượt qua nỗi sợ đó thế nào rồi?",
                "hôm qua {p} lại hoảng loạn vì {v}",
                "chuyến đi có nhiều {v} lắm, {p} có ổn không?",
            ],
            ["{o} có sợ gì không?", "điều gì làm {o} sợ?"],
        ),
        "marathon": (
            ["Berlin", "Boston", "Tokyo", "Paris", "Chicago", "Rome"],
            "{p} đang tập luyện cho giải marathon {v}",
            [
                "{p} tập chạy marathon tới đâu rồi?",
                "giải marathon {v} là tháng sau à?",
                "sáng nay {p} chạy 30 km trước khi đi làm",
                "{p} đã mua giày chạy mới cho cuộc đua chưa?",
            ],
            ["{o} có chơi môn thể thao nào không?", "{o} có thích chạy bộ không?"],
        ),
    },
    "small": [
        "ok cảm ơn {p}",
        "haha {p} buồn cười quá",
        "chào buổi sáng {p}!",
        "{p} tối nay có tới không?",
        "hihi {p} mình cũng vậy",
        "mai gặp nha {p}",
        "{p} tuyệt nhất",
        "cảm ơn {p}, ngủ ngon",
        "ê {p}, có gì mới không?",
        "{p} thiệt hả trời",
        "nhớ {p} quá",
        "{p} đợi chút nha",
    ],
}

HE: dict[str, Any] = {
    "names": ["יואב", "איתי", "עומר", "דניאל", "אורי", "גיל", "רון", "נדב", "אייל", "תומר", "עידן", "ליאור"],
    "facts": {
        "cat": (
            ["מוצ'י", "ביסקוויט", "פלפל", "לונה", "טופו", "זיגי"],
            "לחתולה של {p} קוראים {v}",
            [
                "מה שלום {v}?",
                "החתולה של {p} כבר החלימה מההצטננות?",
                "{v} שוב הפילה כוס מהשולחן של {p} חחח",
                "{p} עדיין קונה את האוכל היקר הזה לחתולה?",
            ],
            ["יש ל{o} חתול?", "איך קוראים לחתולה של {o}?"],
        ),
        "moved": (
            ["חיפה", "באר שבע", "אילת", "ירושלים", "ברלין", "לונדון"],
            "{p} עבר לגור ב{v} במאי",
            [
                "איך ל{p} לגור ב{v}?",
                "{p} כבר התאקלם בעיר החדשה?",
                "שמעתי שהשכירות ב{v} עלתה מאוד השנה",
                "מתי בדיוק {p} עבר דירה?",
            ],
            ["{o} חושב לעבור דירה?", "איפה {o} גר היום?"],
        ),
        "job": (
            ["אח במחלקה", "אדריכל", "אופה", "מתרגם", "רוקח", "אינסטלטור"],
            "{p} עובד בתור {v}",
            [
                "{p} עדיין עושה משמרות לילה בתור {v}?",
                "איך הולך ל{p} בעבודה?",
                "{p} אמר שהשבוע בעבודה היה מטורף",
                "אנחנו צריכים {v} טוב, אולי {p} מכיר מישהו",
            ],
            ["במה {o} עובד?", "{o} נהנה בעבודה החדשה?"],
        ),
        "sister": (
            ["אנה", "לנה", "הדס", "דורית", "נדיה", "סופי"],
            "ל{p} יש אחות קטנה בשם {v}",
            [
                "בת כמה {v} עכשיו?",
                "האחות הקטנה של {p} באה לבקר?",
                "{v} התקבלה לאוניברסיטה, {p} כל כך גאה!",
                "{p} מסתדר טוב עם האחות?",
            ],
            ["יש ל{o} אחים?", "{o} בן יחיד?"],
        ),
        "allergy": (
            ["בוטנים", "שרימפס", "שומשום", "תותים", "גלוטן", "פניצילין"],
            "{p} אלרגי ל{v}",
            [
                "אני מבשל משהו עם {v}, זה בסדר בשביל {p}?",
                "מה {p} לא יכול לאכול?",
                "ל{p} הייתה תגובה קשה במסעדה אתמול בלילה",
                "כדאי להרחיק {v} מהאוכל במסיבה?",
            ],
            ["{o} אלרגי למשהו?", "{o} אוכל הכול?"],
        ),
        "band": (
            ["צ'לו", "תופים", "כינור", "חצוצרה", "פסנתר", "גיטרה בס"],
            "{p} מנגן על {v} בלהקה מקומית",
            [
                "מתי ההופעה הבאה של {p}?",
                "{p} עדיין מתאמן על {v} כל יום?",
                "הלהקה של {p} מופיעה בשבת, נכון?",
                "{p} סוף סוף קנה כלי חדש",
            ],
            ["{o} מנגן על כלי כלשהו?", "{o} מוזיקלי בכלל?"],
        ),
        "team": (
            ["מכבי חיפה", "הפועל באר שבע", "מכבי תל אביב", 'בית"ר ירושלים', "הפועל תל אביב", "בני סכנין"],
            "{p} אוהד של {v}",
            [
                "{v} ניצחה אתמול?",
                "{p} בטח שמח אחרי המשחק",
                "{p} הולך למשחק של {v} בשבת?",
                "איך הקבוצה של {p} עושה העונה?",
            ],
            ["איזו קבוצה {o} אוהד?", "{o} בכלל רואה כדורגל?"],
        ),
        "son": (
            ["אלון", "איתן", "נבו", "יונתן", "אריאל", "עידו"],
            "הבן של {p}, {v}, התחיל ללמוד בבית ספר בספטמבר",
            [
                "איך ל{v} בבית הספר?",
                "הבן של {p} נהנה בכיתה א'?",
                "ל{v} נפלה השן הראשונה, {p} שלח תמונה",
                "{p} מלווה את הילד לבית הספר כל בוקר?",
            ],
            ["יש ל{o} ילדים?", "בני כמה הילדים של {o}?"],
        ),
        "language": (
            ["יפנית", "קוריאנית", "איטלקית", "יוונית", "ספרדית", "טורקית"],
            "{p} לומד {v}",
            [
                "איך מתקדמת ה{v} של {p}?",
                "{p} עדיין הולך לשיעורי השפה?",
                "{p} הזמין ארוחה ב{v} אתמול בערב!",
                "יש אפליקציה טובה ללמוד {v}? שואל בשביל {p}",
            ],
            ["{o} מדבר שפות אחרות?", "{o} לומד שפה כלשהי?"],
        ),
        "birthday": (
            ["3 במרץ", "12 ביולי", "9 בנובמבר", "21 בינואר", "30 באפריל", "15 באוגוסט"],
            "יום ההולדת של {p} ב-{v}",
            [
                "מה נקנה ל{p} ליום ההולדת?",
                "יום ההולדת של {p} ב-{v}, נכון?",
                "צריך לארגן מסיבה ליום ההולדת של {p}",
                "בן כמה {p} נהיה השנה?",
            ],
            ["מתי יום ההולדת של {o}?", "פספסנו את יום ההולדת של {o}?"],
        ),
        "fear": (
            ["טיסות", "עכבישים", "גבהים", "מים עמוקים", "סופות רעמים", "כלבים גדולים"],
            "{p} מפחד מ{v}",
            [
                "{p} עדיין מפחד מ{v}?",
                "איך {p} מתמודד עם הפוביה?",
                "{p} שוב נכנס לפאניקה אתמול בגלל {v}",
                "{p} יסתדר עם כל ה{v} בטיול?",
            ],
            ["{o} מפחד ממשהו?", "ממה {o} מפחד?"],
        ),
        "marathon": (
            ["ברלין", "בוסטון", "טוקיו", "פריז", "שיקגו", "רומא"],
            "{p} מתאמן למרתון {v}",
            [
                "איך הולכים האימונים של {p} למרתון?",
                "מרתון {v} בחודש הבא?",
                '{p} רץ הבוקר 30 ק"מ לפני העבודה',
                "{p} קנה נעלי ריצה חדשות למרוץ?",
            ],
            ["{o} עושה ספורט כלשהו?", "{o} אוהב לרוץ?"],
        ),
    },
    "small": [
        "אוקיי תודה {p}",
        "חחח {p} זה מצחיק",
        "בוקר טוב {p}!",
        "{p}, אתה בא הערב?",
        "חחח {p} גם אצלי",
        "נתראה מחר {p}",
        "{p} אתה הכי טוב",
        "תודה {p}, לילה טוב",
        "היי {p}, מה קורה?",
        "{p} מה באמת? לא מאמין",
        "מתגעגע {p}",
        "{p} עוד רגע חוזר",
    ],
}

LANGUAGES: dict[str, dict[str, Any]] = {"en": EN, "ru": RU, "pt": PT, "vi": VI, "he": HE}
