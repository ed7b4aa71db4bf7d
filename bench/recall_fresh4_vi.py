"""Fresh held-out recall templates, Vietnamese (written blind, round 9, fourth set)."""

from typing import Any

TABLE: dict[str, Any] = {
    "names": [
        "Dũng",
        "Trâm",
        "Phúc",
        "Ngọc",
        "Đạt",
        "Hương",
        "Tuấn",
        "Khánh",
        "Thắng",
        "Hiếu",
        "Yến",
        "Lộc",
    ],
    "facts": {
        "lives_district": (
            ["quận Bình Thạnh", "quận Cầu Giấy", "quận 7", "TP Thủ Đức", "quận Hoàn Kiếm", "quận Hải Châu"],
            "{p} đang sống ở {v}.",
            [
                "{p} ơi giờ nhà m ở khu nào z?",
                "chiều nay t chạy qua {v} nè, tiện ghé nhà {p} lấy đồ luôn đc ko 😆",
                "khu nhà {p} dạo này nghe nói đông đúc ghê ha",
                "cuối tuần tụ tập thì chọn chỗ nào cho gần {p} nhỉ, đỡ bắt nó chạy xa",
            ],
            [
                "ủa {o} đang ở khu nào vậy mọi người?",
                "nhà {o} ở gần chỗ nào, t ship đồ qua cho",
            ],
        ),
        "payment_app": (
            ["MoMo", "ZaloPay", "Vietcombank", "Techcombank", "MB Bank", "VPBank"],
            "{p} thường nhận tiền chuyển khoản qua {v}.",
            [
                "{p} ơi chuyển tiền cho m qua app nào z, ngân hàng gì?",
                "oke t bắn qua {v} cho {p} rồi nha, check đi",
                "tiền ăn hôm qua ai chưa gửi {p} thì nhớ gửi nha",
                "t đang cần trả lại tiền vé cho {p} mà ko biết chuyển kiểu nào cho nó tiện nhất 🤔",
            ],
            [
                "{o} xài ví gì để t chuyển tiền vậy?",
                "số tk của {o} là ngân hàng nào ha mn",
            ],
        ),
        "mobile_carrier": (
            ["Viettel", "Vinaphone", "Mobifone", "Vietnamobile", "iTel", "Gmobile"],
            "{p} đang dùng sim {v}.",
            [
                "{p} xài sim mạng gì vậy?",
                "hèn chi gọi {p} hoài ko đc, sim {v} ở chỗ này sóng yếu lắm",
                "sóng điện thoại của {p} lúc nào cũng chập chờn á",
                "t định nạp thẻ tặng {p} mà ko biết mua thẻ nhà mạng nào",
            ],
            [
                "{o} đang xài nhà mạng nào thế?",
                "sim của {o} là mạng gì để t mua gói data giùm",
            ],
        ),
        "off_work_time": (
            ["5 giờ chiều", "5 rưỡi chiều", "6 giờ tối", "7 giờ tối", "4 rưỡi chiều", "8 giờ tối"],
            "{p} thường tan làm lúc {v}.",
            [
                "{p} mấy giờ tan làm z?",
                "nhớ là {v} {p} mới ra khỏi công ty đó, đừng hẹn sớm quá",
                "giờ giấc ở công ty của {p} cực ghê luôn",
                "tối thứ 6 đặt bàn mấy giờ để {p} kịp tới vậy mn?",
            ],
            [
                "{o} thường mấy giờ mới xong việc vậy?",
                "hôm nay {o} có được về sớm ko mn?",
            ],
        ),
        "perfume": (
            [
                "Chanel Coco Mademoiselle",
                "Dior Sauvage",
                "Jo Malone Wood Sage",
                "Le Labo Santal 33",
                "Versace Eros",
                "YSL Libre",
            ],
            "{p} hay dùng nước hoa {v}.",
            [
                "{p} xịt nước hoa gì mà thơm dữ vậy, chỉ t với",
                "vừa đi ngang quầy {v} là nhớ tới {p} liền 😂",
                "mùi thơm của {p} hôm bữa t vẫn nhớ á",
                "t muốn mua quà cảm ơn {p}, tính mua nước hoa mà sợ chọn sai mùi quá",
            ],
            [
                "{o} xài nước hoa hiệu gì vậy mn?",
                "mùi nước hoa của {o} là chai nào thế, thơm ghê",
            ],
        ),
        "shirt_size": (
            ["S", "M", "L", "XL", "XXL", "XS"],
            "{p} mặc áo size {v}.",
            [
                "{p} mặc áo size gì nhỉ?",
                "đặt áo nhóm rồi nha, {p} size {v} đúng ko",
                "áo lần trước {p} mặc hơi chật thì phải",
                "t đang đặt đồng phục đi chơi cho cả nhóm, phần của {p} chọn cỡ nào đây",
            ],
            [
                "{o} mặc size áo nào vậy, t đặt luôn",
                "áo của {o} lấy size mấy mn ơi",
            ],
        ),
        "spice_tolerance": (
            [
                "không ăn được cay chút nào",
                "chỉ ăn được cay nhẹ",
                "ăn cay cực giỏi",
                "ăn được mì cay cấp 7",
                "thích cho thật nhiều ớt",
                "ăn cay vừa phải",
            ],
            "Về khoản ăn cay, {p} {v}.",
            [
                "{p} ăn cay được ko z?",
                "nhớ là {p} {v} nha, gọi món thì để ý",
                "{p} với ớt là cả một câu chuyện 😂",
                "tối nay đi ăn lẩu thái, gọi nước lẩu kiểu gì cho hợp {p} đây?",
            ],
            [
                "{o} có chịu được cay ko mn?",
                "{o} ăn ớt được tới đâu vậy, t sợ làm món cay quá",
            ],
        ),
        "eyesight": (
            ["1 độ", "2 độ rưỡi", "3 độ", "4 độ", "5 độ rưỡi", "7 độ"],
            "{p} bị cận {v}.",
            [
                "{p} cận mấy độ rồi?",
                "cận {v} mà {p} dám ko đeo kính chạy xe 😳",
                "kính của {p} dày ghê á",
                "{p} ngồi hàng cuối có nhìn rõ màn chiếu ko, hay mình lên trên ngồi?",
            ],
            [
                "{o} cận nhiều ko ta?",
                "mắt {o} mấy độ vậy, t thấy hay nheo mắt lắm",
            ],
        ),
        "fav_cafe": (
            ["Highlands", "The Coffee House", "Cộng Cà Phê", "Starbucks", "Katinat", "Trung Nguyên Legend"],
            "Quán cà phê ruột của {p} là {v}.",
            [
                "{p} hay ngồi quán cà phê nào nhất vậy?",
                "ghé {v} lại gặp {p} ngồi chỗ cũ nữa 😂 đúng là khách ruột",
                "{p} lại đi cà phê ngồi cả buổi rồi đó",
                "mai rủ {p} ra ngồi cà phê nói chuyện, chọn chỗ nào để nó chịu đi liền?",
            ],
            [
                "{o} thích ngồi quán cà phê nào vậy?",
                "quán ruột của {o} là quán gì ha",
            ],
        ),
        "supermarket": (
            ["Co.opmart", "WinMart", "Bách Hóa Xanh", "Lotte Mart", "Aeon", "Emart"],
            "{p} hay đi siêu thị {v}.",
            [
                "{p} thường đi siêu thị nào z?",
                "cuối tuần {p} lại đi {v} mua đồ cho cả tuần hả",
                "{p} mà đi siêu thị là mất nguyên buổi chiều luôn á",
                "t nhờ {p} mua giùm ít đồ khô, ko biết chỗ nó hay đi có bán ko",
            ],
            [
                "{o} hay mua đồ ở siêu thị nào vậy?",
                "siêu thị quen của {o} là chỗ nào mn?",
            ],
        ),
        "cinema_chain": (
            ["CGV", "Lotte Cinema", "Galaxy", "BHD Star", "Beta Cinemas", "Cinestar"],
            "{p} hay xem phim ở rạp {v}.",
            [
                "{p} hay đi rạp nào xem phim vậy?",
                "có thẻ thành viên {v} nên {p} toàn đi đó thôi",
                "{p} mê ra rạp ghê, tuần nào cũng thấy check in",
                "tối thứ 7 đặt vé xem phim với {p}, đặt rạp nào cho nó vui đây?",
            ],
            [
                "{o} thích đi rạp nào nhất?",
                "{o} hay xem phim ở rạp nào vậy mn",
            ],
        ),
        "fav_season": (
            ["mùa xuân", "mùa hè", "mùa thu", "mùa đông", "mùa mưa", "mùa khô"],
            "{p} thích {v} nhất trong năm.",
            [
                "{p} thích mùa nào nhất trong năm?",
                "{v} tới rồi, {p} chắc vui lắm ha 😆",
                "chuyển mùa kiểu này chắc hợp ý {p} lắm",
                "tính rủ {p} đi chơi xa, nên đi vào tháng nào để nó thích nhất ta?",
            ],
            [
                "{o} thích mùa nào nhất vậy?",
                "{o} có ghét mùa nào trong năm ko mn?",
            ],
        ),
    },
    "small": [
        "chào buổi sáng {p} 🌞",
        "cảm ơn {p} nha, hôm qua vui ghê",
        "{p} ơi ngủ ngon nha",
        "haha {p} lầy quá trời 🤣",
        "ủa {p} đâu rồi, seen mà ko rep kìa",
        "t tới trễ chút nha {p}, đợi t xíu",
        "hôm nay nhìn {p} tươi tỉnh ghê",
        "ok {p}, hẹn gặp lại nha",
        "trời nay mưa quá trời, {p} về tới nhà chưa? đường Điện Biên Phủ ngập tới mắt cá chân luôn đó",
        "{p} ơi chúc mừng nha 🎉 giỏi quá",
        "chết cười với {p} 😂😂",
        "nay sếp bắt họp liên tục từ sáng tới trưa, mệt xỉu luôn, {p} có rảnh ko nói chuyện xíu cho đỡ chán",
        "{p} ơi t mới nấu nồi canh chua cá lóc, ngon bá cháy, tiếc là ăn hết rồi mới nhớ ra chưa chụp hình",
        "tuần này t bị deadline dí ngập đầu, chắc qua tuần sau mới rảnh đi chơi với {p} được",
        "happy weekend {p} ơi 🥳",
        "{p} nói chuẩn luôn 👍",
        "sáng nay trời mát dễ chịu ghê, có gió nhẹ nữa, {p} ra đường thì tranh thủ hít thở chút nha",
        "{p} ơi hôm nay trời nắng gắt lắm, ra ngoài nhớ uống nhiều nước với bôi kem chống nắng nha",
        "gửi {p} cái meme này nè, coi xong cười đau bụng",
        "xin lỗi {p} nha, hôm qua t lỡ hẹn",
        "{p} giỏi thiệt sự 😍",
        "ai đi chơi tối nay điểm danh nào, {p} có đi ko?",
        "trưa nay công ty đặt cơm hộp, món gà kho hơi mặn nhưng cũng tạm, {p} ăn trưa chưa?",
        "bye {p}, mai gặp nha 👋",
    ],
}
