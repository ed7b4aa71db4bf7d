"""Fresh held-out recall templates, Vietnamese (written blind, round 7, second set)."""

from typing import Any

TABLE: dict[str, Any] = {
    "names": [
        "Linh",
        "Hùng",
        "Trang",
        "Minh",
        "Huy",
        "Thảo",
        "Dũng",
        "Ngọc",
        "Tuấn",
        "Hằng",
        "Quân",
        "Phương",
    ],
    "facts": {
        "baby_due": (
            ["tháng 2", "tháng 4", "tháng 6", "tháng 8", "tháng 10", "tháng 12"],
            "Nhà {p} sắp có em bé, dự sinh vào {v}",
            [
                "em bé nhà {p} dự sinh lúc nào ấy nhỉ?",
                "{v} này là nhà {p} lên chức rồi đó 🥰",
                "{p} dạo này chắc lo sắm đồ sơ sinh lắm nhỉ",
                "có nên rủ {p} đi Đà Lạt cuối năm không, hay lúc đó nhà {p} bận chăm bé rồi?",
            ],
            [
                "nhà {o} tính khi nào có em bé vậy?",
                "{o} có tin vui gì chưa nhỉ?",
            ],
        ),
        "wedding_venue": (
            ["White Palace", "Đà Lạt", "Phú Quốc", "khách sạn Melia", "Nam Định", "Hội An"],
            "Đám cưới của {p} sẽ được tổ chức ở {v}",
            [
                "đám cưới {p} tổ chức ở đâu ấy nhỉ?",
                "có ai đi {v} ăn cưới {p} chung không, cho mình đi ké với",
                "{p} dạo này chạy đôn chạy đáo lo cưới xin, tội ghê",
                "định mừng cưới {p} bao nhiêu đây, mà không biết có phải đi xa không ta",
            ],
            [
                "{o} có định cưới sớm không nhỉ?",
                "đám cưới của {o} tổ chức ở đâu vậy?",
            ],
        ),
        "health_condition": (
            ["tiểu đường", "đau nửa đầu", "huyết áp cao", "hen suyễn", "đau dạ dày", "mất ngủ kinh niên"],
            "{p} bị {v} và đang điều trị",
            [
                "{p} bị bệnh gì ấy nhỉ, lần trước có kể mà mình quên mất",
                "đọc bài báo về {v} xong lại nghĩ tới {p}",
                "{p} đi tái khám chưa nhỉ, kết quả sao rồi?",
                "tối nay đi ăn lẩu cay với bia, {p} ăn uống vậy có sao không ta?",
            ],
            [
                "{o} có bệnh gì không nhỉ?",
                "dạo này sức khoẻ {o} ổn không?",
            ],
        ),
        "tv_series": (
            ["Squid Game", "Breaking Bad", "Reply 1988", "Hospital Playlist", "Friends", "Game of Thrones"],
            "{p} đang mê bộ phim {v}",
            [
                "dạo này {p} đang cày phim gì vậy?",
                "ai xem {v} chưa, nghe {p} khen quá trời",
                "{p} lại thức tới 3h sáng cày phim nữa à 😂",
                "tính tặng {p} cái poster phim làm quà, chọn phim nào giờ",
            ],
            [
                "{o} có hay xem phim bộ không?",
                "{o} dạo này cày phim gì vậy?",
            ],
        ),
        "video_game": (
            [
                "Liên Quân",
                "Liên Minh Huyền Thoại",
                "PUBG Mobile",
                "Genshin Impact",
                "FIFA Online",
                "Minecraft",
            ],
            "{p} hay chơi game {v}",
            [
                "{p} chơi game gì ấy nhỉ, mình muốn rủ chơi chung",
                "tối nay ai vào {v} chơi chung không, gọi {p} nữa",
                "{p} lại cày game tới sáng rồi 🙄",
                "định mua thẻ nạp game tặng {p}, mà không biết nạp cho game nào",
            ],
            [
                "{o} có chơi game không?",
                "{o} hay chơi game gì vậy?",
            ],
        ),
        "sport_training": (
            ["yoga", "boxing", "gym", "bơi", "cầu lông", "pickleball"],
            "{p} đang tập {v} đều đặn mỗi tuần",
            [
                "dạo này {p} tập môn gì vậy, nhìn khoẻ hẳn",
                "mới đọc bài nói tập {v} tốt cho sức khoẻ lắm, chắc {p} đồng ý 😄",
                "{p} đi tập về chưa, hẹn cà phê mà",
                "muốn mua đồ tập tặng {p} mà không biết mua gì cho hợp",
            ],
            [
                "{o} có tập thể thao gì không?",
                "{o} dạo này có đi tập không?",
            ],
        ),
        "exam_prep": (
            ["cao học", "CFA", "ACCA", "IELTS", "công chức", "bằng lái ô tô"],
            "{p} đang ôn thi {v}",
            [
                "{p} đang ôn thi gì ấy nhỉ?",
                "nghe nói thi {v} khó lắm, {p} cố lên nha 💪",
                "{p} có ngày thi chưa, dạo này thấy căng quá",
                "có nên tặng {p} mấy cuốn sách ôn không nhỉ, không biết mua loại nào",
            ],
            [
                "{o} có định thi gì năm nay không?",
                "{o} dạo này có đi học thêm gì không?",
            ],
        ),
        "new_flat": (
            ["Quận 7", "Thủ Đức", "Long Biên", "Times City", "Vinhomes Ocean Park", "Bình Thạnh"],
            "{p} vừa mua một căn hộ ở {v}",
            [
                "{p} mua nhà ở đâu ấy nhỉ?",
                "đi ngang {v} thấy kẹt xe kinh khủng, không biết {p} đi lại kiểu gì",
                "{p} trả góp tiền nhà chắc mệt lắm nhỉ",
                "bao giờ {p} tân gia vậy, để còn tính đường đi",
            ],
            [
                "{o} đã mua nhà chưa?",
                "{o} đang ở thuê hay ở nhà riêng?",
            ],
        ),
        "neighbour_problem": (
            [
                "hát karaoke tới khuya",
                "để xe chắn cửa",
                "đục tường sửa nhà",
                "đốt vàng mã",
                "xả rác trước cửa",
                "phơi đồ sang ban công bên cạnh",
            ],
            "Hàng xóm của {p} hay {v}",
            [
                "hàng xóm nhà {p} phiền vụ gì ấy nhỉ?",
                "nhà mình cũng có ông hàng xóm {v}, giờ mới hiểu cảm giác của {p}",
                "{p} định báo tổ dân phố chưa?",
                "mình nên khuyên {p} nói chuyện thẳng với bên kia hay nhờ công an phường?",
            ],
            [
                "hàng xóm nhà {o} có dễ chịu không?",
                "{o} ở chung cư có hay bị làm phiền không?",
            ],
        ),
        "parent_surgery": (
            ["tim", "ruột thừa", "sỏi thận", "mắt", "dạ dày", "khớp gối"],
            "Bố của {p} vừa mổ {v}",
            [
                "bố {p} mổ gì ấy nhỉ, giờ đỡ chưa?",
                "nghe nói mổ {v} giờ hồi phục nhanh lắm, {p} đừng lo quá nha",
                "{p} xin nghỉ mấy hôm vào viện chăm bố đúng không?",
                "tính gửi ít đồ bồi bổ cho bố {p}, mà không biết phải kiêng ăn gì",
            ],
            [
                "bố mẹ {o} dạo này khoẻ không?",
                "bố {o} có bị bệnh gì không?",
            ],
        ),
        "tattoo": (
            ["con rồng", "hoa sen", "cá chép", "la bàn", "con hạc", "mặt trăng"],
            "{p} có hình xăm {v} ở cánh tay",
            [
                "{p} xăm hình gì vậy, mình chưa nhìn rõ",
                "mới thấy một bạn xăm {v} y chang {p} luôn",
                "{p} có định xăm thêm hình nữa không nhỉ?",
                "mặc áo ngắn tay thế kia thì bố mẹ {p} thấy hết rồi còn gì 😂",
            ],
            [
                "{o} có hình xăm không?",
                "{o} có định đi xăm không nhỉ?",
            ],
        ),
        "star_sign": (
            ["Bạch Dương", "Kim Ngưu", "Song Tử", "Sư Tử", "Bọ Cạp", "Song Ngư"],
            "{p} thuộc cung {v}",
            [
                "{p} cung gì ấy nhỉ?",
                "đọc tử vi thấy tuần này cung {v} gặp may lắm, báo {p} liền",
                "{p} tin mấy vụ cung hoàng đạo lắm đúng không?",
                "mình với {p} có hợp cung không ta 😆",
            ],
            [
                "{o} cung gì vậy?",
                "{o} có tin cung hoàng đạo không?",
            ],
        ),
    },
    "small": [
        "ok {p} 👍",
        "chào {p}, hôm nay sao rồi?",
        "cảm ơn {p} nhiều nha",
        "haha {p} lầy quá 😂",
        "{p} ơi, mình tới trễ 10 phút nhé, kẹt xe quá",
        "ngủ ngon nha {p}",
        "{p} nói chuẩn luôn",
        "trời hôm nay nóng quá {p} ơi",
        "{p} đang ở đâu đó?",
        "hẹn {p} 7h tối nay ở quán cũ nhé",
        "mệt quá {p} ơi, hôm nay chẳng muốn làm gì",
        "chúc {p} cuối tuần vui vẻ!",
        "ừ, {p} nói đúng đó",
        "tí nữa mình gọi lại cho {p} nha, đang bận xíu",
        "{p} ơi trưa nay ăn gì?",
        "thôi mình đi trước nha {p}, hẹn gặp lại",
        "{p} đúng là số một 😎",
        "mưa to quá, {p} về tới nhà chưa?",
        "xin lỗi {p} nha, hồi nãy mình trả lời hơi cộc",
        "{p} kể chuyện cười hoài, đau bụng quá 🤣",
        "{p} đợi chút nha, mình xuống liền",
        "lâu rồi không gặp {p}, nhớ ghê. Bữa nào đi cà phê nha!",
        "{p} gửi mình mấy tấm ảnh hôm qua với",
        "nghe {p} nói vậy là yên tâm rồi 😌",
    ],
}
