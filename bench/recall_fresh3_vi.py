"""Fresh held-out recall templates, Vietnamese (written blind, round 8, third set)."""

from typing import Any

TABLE: dict[str, Any] = {
    "names": [
        "Hạnh",
        "Quân",
        "Thảo",
        "Minh",
        "Linh",
        "Tuấn",
        "Trang",
        "Huy",
        "Ngọc",
        "Dũng",
        "Vy",
        "Khoa",
    ],
    "facts": {
        "wake_time": (
            ["5 giờ sáng", "5 rưỡi sáng", "4 giờ 45 sáng", "6 giờ sáng", "9 giờ sáng", "10 giờ trưa"],
            "{p} thường thức dậy lúc {v}.",
            [
                "{p} ơi bình thường mấy giờ b dậy thế?",
                "ủa {p} ngày nào cũng dậy lúc {v} thật hả 😂",
                "công nhận giờ giấc ngủ nghỉ của {p} đều ghê",
                "mai phải xuất phát lúc 6h sáng, có cần gọi điện đánh thức {p} ko mn 🤔",
            ],
            [
                "{o} thường dậy lúc mấy giờ vậy mọi người?",
                "ko biết {o} có phải kiểu dậy sớm ko nhỉ, nhắn từ sáng mà chưa thấy rep",
            ],
        ),
        "commute_mode": (
            [
                "xe buýt",
                "tàu điện metro",
                "xe đạp",
                "xe ôm công nghệ",
                "xe đưa đón của công ty",
                "xe đạp điện",
            ],
            "{p} đi làm hằng ngày bằng {v}.",
            [
                "{p} hay đi làm bằng gì v?",
                "sáng nay gặp {p} trên đường đi làm, vẫn trung thành với {v} nhỉ 😆",
                "nghe bảo sáng nào {p} cũng mất cả tiếng trên đường đi làm 🥲",
                "mai mưa bão to lắm đấy, {p} đi làm có sao ko, có cần tớ qua đón ko?",
            ],
            [
                "{o} đi làm bằng gì thế, xe máy à?",
                "hình như {o} mới đổi cách đi làm phải ko, thấy ko còn đi như trước",
            ],
        ),
        "lost_item": (
            ["ví da", "chìa khóa nhà", "tai nghe không dây", "thẻ căn cước", "chiếc ô màu vàng", "kính râm"],
            "{p} vừa làm mất {v}.",
            [
                "ơ {p} mất cái gì thế, hôm qua thấy hốt hoảng lắm",
                "{p} ơi tìm thấy {v} chưa, tớ lục cả xe rồi mà ko có 😢",
                "dạo này {p} đãng trí quá trời luôn",
                "ai đi qua quán hôm trước thì hỏi giúp {p} món đồ thất lạc với nhé, mà mn nhớ nó trông ntn ko",
            ],
            [
                "{o} có hay làm rơi đồ ko, tớ nhớ hồi trước mất gì đó",
                "ơ {o} mất gì à, thấy lục túi nãy giờ",
            ],
        ),
        "nickname": (
            ["Bé Bơ", "Sâu Róm", "Mít Ướt", "Gấu Trúc", "Tí Nị", "Cà Rốt"],
            "Biệt danh của {p} trong nhóm là {v}.",
            [
                "biệt danh của {p} là gì ấy nhỉ, tự dưng quên mất 😅",
                "hahaha gọi {p} là {v} đúng chuẩn luôn",
                "nhớ hồi đầu quen {p} cả bọn toàn gọi trêu suốt 🤣",
                "làm bánh kem cho {p}, muốn ghi tên gọi thân mật lên cho dễ thương, ghi gì giờ mn?",
            ],
            [
                "{o} có biệt danh gì ko mọi người?",
                "ê hồi trước cả nhóm hay gọi {o} là gì ấy nhỉ",
            ],
        ),
        "favourite_flower": (
            ["hướng dương", "cẩm tú cầu", "tulip", "ly trắng", "cúc họa mi", "oải hương"],
            "{p} thích nhất là hoa {v}.",
            [
                "{p} thích hoa gì nhất thế?",
                "vừa đi ngang tiệm thấy hoa {v} đẹp lắm, nhớ ngay đến {p} 🌸",
                "mỗi lần đi chợ hoa là {p} đứng ngắm mãi ko chịu về",
                "định mua bó hoa tặng {p} cảm ơn vụ hôm trước, nên chọn loại nào mn",
            ],
            [
                "{o} có thích hoa ko nhỉ, thích loại nào?",
                "mn ai biết {o} thích hoa gì ko, tớ định đặt một bó",
            ],
        ),
        "hair_colour": (
            ["nâu hạt dẻ", "bạch kim", "đỏ rượu vang", "xanh rêu", "tím khói", "nâu socola"],
            "{p} vừa nhuộm tóc màu {v}.",
            [
                "{p} mới nhuộm tóc màu gì thế, chưa thấy ảnh",
                "tóc {v} hợp với {p} thật sự luôn á 😍",
                "{p} dạo này đổi style tóc hả, thấy khác khác",
                "cuối tuần chụp ảnh nhóm, {p} nên mặc áo màu gì cho hợp với tóc mới nhỉ?",
            ],
            [
                "{o} có nhuộm tóc ko hay vẫn để đen?",
                "nghe bảo {o} cũng định đi nhuộm, màu gì thế mn",
            ],
        ),
        "home_renovation": (
            ["phòng bếp", "nhà tắm", "ban công", "phòng ngủ", "phòng khách", "sân thượng"],
            "{p} đang sửa sang lại {v} ở nhà.",
            [
                "nhà {p} đang sửa chỗ nào thế?",
                "{p} ơi {v} sửa xong chưa, khoe ảnh đi 📸",
                "dạo này nhà {p} chắc bụi bặm lắm, thợ ra vào suốt",
                "định cả nhóm qua nhà {p} nấu ăn cuối tuần này, liệu có tiện ko nhỉ",
            ],
            [
                "nhà {o} có đang sửa gì ko, hôm trước thấy nói",
                "{o} định sửa lại phòng nào trong nhà thế?",
            ],
        ),
        "karaoke_song": (
            [
                "Em Của Ngày Hôm Qua",
                "Nơi Này Có Anh",
                "Hồng Nhan",
                "Bống Bống Bang Bang",
                "Để Mị Nói Cho Mà Nghe",
                "Có Chàng Trai Viết Lên Cây",
            ],
            "Bài tủ của {p} khi đi karaoke là “{v}”.",
            [
                "{p} đi hát karaoke hay chọn bài gì nhỉ?",
                "lần nào đi hát {p} cũng giành mic hát “{v}” 🎤😂",
                "{p} mà cầm mic là ko ai cản nổi đâu",
                "tối nay đi karaoke, tớ đặt trước một bài cho {p} mở màn nhé, chọn bài nào đây?",
            ],
            [
                "{o} hát karaoke hay hát bài gì thế?",
                "bài tủ của {o} là bài nào ấy nhỉ, lần trước hát hay phết",
            ],
        ),
        "wished_item": (
            [
                "một chiếc máy ảnh film",
                "một chiếc đèn ngủ hình mặt trăng",
                "bộ ấm chén gốm Bát Tràng",
                "một chiếc ghế công thái học",
                "một chiếc máy đọc sách Kindle",
                "một chiếc đồng hồ cơ",
            ],
            "{p} đang rất muốn có {v}.",
            [
                "{p} dạo này đang muốn sắm món gì thế?",
                "nghe {p} kể mãi về {v}, chắc mê lắm rồi 😆",
                "{p} toàn lướt shopee xem đồ rồi lại thôi 🥲",
                "sắp sinh nhật {p} rồi, cả nhóm góp tiền mua quà gì cho ý nghĩa đây?",
            ],
            [
                "{o} có đang muốn mua gì ko, tớ tính tặng quà",
                "mn biết dạo này {o} thích món đồ gì ko?",
            ],
        ),
        "group_item": (
            [
                "cái lều cắm trại",
                "chiếc loa bluetooth",
                "bộ bài Uno",
                "nồi lẩu điện",
                "máy chiếu mini",
                "bếp nướng than hoa",
            ],
            "{p} đang giữ {v} của cả nhóm.",
            [
                "đồ chung của nhóm giờ {p} đang cầm cái gì ấy nhỉ?",
                "{p} nhớ mang {v} theo nhé, đừng quên đấy",
                "nhà {p} chắc thành kho chứa đồ của hội rồi 😂",
                "thứ bảy tụ tập, tớ lo đồ ăn, còn {p} mang gì theo thì tiện nhất?",
            ],
            [
                "{o} có đang giữ đồ gì của nhóm ko?",
                "hình như {o} cũng đang cầm một món đồ chung của cả bọn thì phải",
            ],
        ),
        "weekly_day_off": (
            ["thứ Hai", "thứ Ba", "thứ Tư", "thứ Năm", "thứ Sáu", "Chủ nhật"],
            "{p} được nghỉ làm vào {v} hằng tuần.",
            [
                "{p} được nghỉ ngày nào trong tuần vậy?",
                "{v} là ngày nghỉ của {p} mà nhỉ, đi ăn trưa thôi",
                "lịch làm của {p} lạ lắm, chả giống ai",
                "muốn hẹn {p} đi xem phim buổi chiều trong tuần, chọn ngày nào cho chắc ăn?",
            ],
            [
                "{o} nghỉ làm vào ngày nào thế mn?",
                "ko biết tuần này {o} được off hôm nào nhỉ",
            ],
        ),
        "broken_appliance": (
            ["máy giặt", "tủ lạnh", "điều hòa", "bình nóng lạnh", "lò vi sóng", "máy lọc nước"],
            "Nhà {p} đang bị hỏng {v}, chưa sửa được.",
            [
                "nhà {p} hỏng cái gì thế, sửa chưa?",
                "{p} ơi {v} nhà b thợ đến xem chưa?",
                "{p} dạo này đen đủi thật, đồ trong nhà cứ trục trặc",
                "có ai quen thợ sửa đồ uy tín ko, giới thiệu cho {p} với",
            ],
            [
                "nhà {o} có đồ gì bị hỏng ko, nghe nói đang gọi thợ",
                "{o} ơi máy móc trong nhà vẫn ổn chứ, tuần trước thấy kêu",
            ],
        ),
    },
    "small": [
        "chào buổi sáng {p} ☀️",
        "cảm ơn {p} nhiều nha 🥰",
        "{p} ơi tối nay ăn gì đấy",
        "haha {p} lầy quá",
        "bye {p}, hẹn gặp lại nhé",
        "{p} đến chưa, tớ ngồi trong quán rồi",
        "xin lỗi {p} nha, tớ đến muộn 10 phút",
        "hôm nay trời nóng kinh khủng, {p} nhớ uống nhiều nước vào nhé, ra ngoài nắng như đổ lửa ấy",
        "{p} nay mặc đẹp thế 😍",
        "chuẩn luôn {p} 👍",
        "chúc {p} cuối tuần vui vẻ",
        "{p} xem tin nhắn trong nhóm chưa",
        "trời ơi {p} kể chuyện cười nhạt quá 😂",
        "chiều nay mưa to lắm, đường ngập hết rồi, {p} đang ở đâu thì cứ ngồi yên đấy đợi tạnh hẵng ra nha",
        "{p} gửi ảnh hôm qua vào nhóm đi, tớ chưa có tấm nào",
        "ok {p}, để tớ xem lại rồi báo nhé",
        "hôm nay công ty họp từ sáng đến chiều, mệt rã rời, {p} có rảnh ra ngoài ăn bát phở ko",
        "{p} ơi quán bún chả đầu ngõ mở cửa lại rồi đấy, hôm qua tớ ăn thử vẫn ngon như xưa, giá lại rẻ nữa",
        "ghê chưa, {p} nói chuẩn ko cần chỉnh",
        "{p} khỏe ko, lâu rồi ko thấy lên tiếng trong nhóm",
        "tuần này deadline dồn dập quá, tớ chưa có thời gian thở luôn, hẹn {p} tuần sau đi cà phê nhé",
        "hahaha {p} ơi cái meme kia đỉnh thật sự 🤣",
        "mấy hôm nay trời se lạnh dễ chịu ghê, tối nào tớ cũng muốn ra bờ hồ ngồi hóng gió, {p} có muốn đi cùng ko",
        "trưa nay căng tin hết cơm sớm, tớ phải chạy ra ngoài mua bánh mì ăn tạm, {p} ăn trưa chưa",
    ],
}
