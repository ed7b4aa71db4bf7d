"""Fresh held-out recall templates, Vietnamese (written blind, round 7)."""

from typing import Any

TABLE: dict[str, Any] = {
    "names": [
        "Minh",
        "Hương",
        "Lan",
        "Tuấn",
        "Linh",
        "Nam",
        "Trang",
        "Hùng",
        "Quỳnh",
        "Phúc",
        "Thảo",
        "Dũng",
    ],
    "facts": {
        "partner_name": (
            ["Khang", "Vy", "Bảo", "Nhung", "Quân", "Ngọc"],
            "Người yêu của {p} tên là {v}.",
            [
                "ủa người yêu {p} tên gì ấy nhỉ?",
                "hôm qua thấy {p} với {v} đi dạo hồ Tây, dễ thương ghê 😍",
                "{p} dạo này chuyện yêu đương sao rồi, vẫn ổn chứ?",
                "cuối tuần rủ {p} đi ăn, có nên rủ luôn người yêu {p} không ta 🤔",
            ],
            [
                "{o} có người yêu chưa nhỉ?",
                "người yêu của {o} tên gì thế?",
            ],
        ),
        "motorbike": (
            ["Vision", "SH", "Wave Alpha", "Vespa", "Air Blade", "Exciter"],
            "{p} đang đi xe {v}.",
            [
                "{p} đi xe gì ấy nhỉ, quên mất rồi",
                "vừa thấy chiếc {v} y hệt xe {p} ở bãi gửi xe luôn",
                "{p} mang xe đi bảo dưỡng chưa, nghe bảo dạo này hay chết máy lắm",
                "xăng lại lên giá rồi, không biết xe của {p} có tốn xăng không nhỉ",
            ],
            [
                "{o} đi xe gì vậy?",
                "{o} có xe máy chưa ta?",
            ],
        ),
        "favourite_dish": (
            ["bún chả", "phở bò", "bánh xèo", "cơm tấm", "bún bò Huế", "lẩu thái"],
            "Món ăn khoái khẩu của {p} là {v}.",
            [
                "{p} thích ăn món gì nhất nhỉ?",
                "gần công ty mới mở quán {v} ngon lắm, phải rủ {p} đi mới được",
                "hôm trước {p} bảo thèm món ruột lắm, không biết đã được ăn chưa",
                "mai {p} về muộn, mình định mua đồ ăn về sẵn, không biết mua gì {p} mới thích ta",
            ],
            [
                "{o} thích ăn món gì nhất?",
                "{o} có kén ăn không nhỉ?",
            ],
        ),
        "hometown": (
            ["Nghệ An", "Thái Bình", "Huế", "Cần Thơ", "Quảng Ngãi", "Nam Định"],
            "{p} quê ở {v}.",
            [
                "{p} quê ở đâu ấy nhỉ?",
                "tuần sau mình ghé {v} chơi, chắc phải hỏi {p} chỗ ăn ngon",
                "tết này {p} có về quê không?",
                "đặc sản quê {p} là gì ta, lần sau nhờ mang lên cho cả nhóm 😋",
            ],
            [
                "{o} quê ở đâu vậy?",
                "tết này {o} có về quê không nhỉ?",
            ],
        ),
        "university_major": (
            ["kế toán", "công nghệ thông tin", "kiến trúc", "luật", "dược", "báo chí"],
            "Hồi đại học {p} học ngành {v}.",
            [
                "hồi đại học {p} học ngành gì ấy?",
                "em họ mình đang định thi ngành {v}, chắc phải nhờ {p} tư vấn",
                "{p} có còn giữ giáo trình hồi sinh viên không ta",
                "không biết {p} có hối hận vì chọn ngành hồi đó không nhỉ",
            ],
            [
                "{o} học ngành gì hồi đại học vậy?",
                "{o} học trường nào ra thế?",
            ],
        ),
        "upcoming_trip": (
            ["Nhật Bản", "Phú Quốc", "Hàn Quốc", "Sa Pa", "Thái Lan", "Đà Nẵng"],
            "{p} sắp đi du lịch {v}.",
            [
                "{p} sắp đi du lịch ở đâu nhỉ?",
                "nghe nói {v} dạo này đông khách lắm, {p} đặt phòng chưa?",
                "{p} xếp vali xong chưa 😆",
                "hay nhờ {p} mua quà về cho cả nhóm nhỉ, bên đó có gì ngon?",
            ],
            [
                "{o} có kế hoạch đi du lịch đâu không?",
                "hè này {o} đi chơi đâu nhỉ?",
            ],
        ),
        "injury": (
            [
                "gãy tay",
                "bong gân cổ chân",
                "rạn xương sườn",
                "đứt dây chằng gối",
                "trật khớp vai",
                "gãy ngón chân",
            ],
            "{p} vừa bị {v}.",
            [
                "{p} bị làm sao mà phải nghỉ ở nhà thế?",
                "bị {v} như {p} thì bao lâu mới khỏi vậy mn?",
                "{p} tái khám chưa, bác sĩ nói sao?",
                "cuối tuần đi leo núi, chắc {p} chưa đi được đâu nhỉ 😢",
            ],
            [
                "{o} có bị thương gì không?",
                "{o} bị làm sao mà đi khập khiễng thế?",
            ],
        ),
        "diet": (
            ["ăn chay", "keto", "eat clean", "nhịn ăn gián đoạn", "low-carb", "thực dưỡng"],
            "{p} đang theo chế độ {v}.",
            [
                "{p} đang ăn kiêng kiểu gì ấy nhỉ?",
                "mình cũng định thử {v} giống {p}, có khó không ta",
                "tối nay liên hoan, {p} ăn được món gì nhỉ?",
                "định làm bánh mang qua cho {p}, không biết {p} có ăn được không 😅",
            ],
            [
                "{o} có đang ăn kiêng gì không?",
                "liên hoan tối nay {o} ăn được hết mọi thứ chứ?",
            ],
        ),
        "house_plant": (
            ["sen đá", "lan hồ điệp", "trầu bà", "xương rồng", "lưỡi hổ", "kim tiền"],
            "{p} đang chăm một chậu {v} ở nhà.",
            [
                "{p} trồng cây gì trong nhà ấy nhỉ?",
                "ra chợ hoa thấy chậu {v} đẹp quá, nhớ tới {p} ghê",
                "{p} đi vắng mấy hôm thì ai tưới cây cho vậy?",
                "định tặng {p} một chậu cây mà sợ mua trùng loại {p} đang trồng 😂",
            ],
            [
                "{o} có trồng cây gì trong nhà không?",
                "nhà {o} có chậu cây nào không nhỉ?",
            ],
        ),
        "coffee_order": (
            [
                "cà phê sữa đá",
                "bạc xỉu",
                "cà phê muối",
                "americano",
                "cà phê đen không đường",
                "latte yến mạch",
            ],
            "Đồ uống quen thuộc của {p} là {v}.",
            [
                "{p} hay uống gì nhỉ, mình order trước cho",
                "quán này làm {v} ngon nè, chắc {p} thích lắm",
                "{p} sáng nào cũng phải làm một ly mới tỉnh đúng không 😂",
                "mai mình đến sớm lấy nước cho cả nhóm, {p} vẫn uống như cũ hả?",
            ],
            [
                "{o} hay uống gì vậy?",
                "{o} có uống cà phê không nhỉ?",
            ],
        ),
        "side_business": (
            ["mỹ phẩm", "quần áo secondhand", "bánh bông lan", "nến thơm", "đồ ăn vặt", "trà sữa"],
            "Ngoài giờ làm, {p} còn bán {v} online.",
            [
                "{p} đang bán gì online ấy nhỉ?",
                "đang muốn mua ít {v}, chắc đặt của {p} ủng hộ luôn",
                "dạo này shop của {p} đông đơn không?",
                "{p} có ship tận nơi không nhỉ, mình muốn đặt mà ngại hỏi 😅",
            ],
            [
                "{o} có bán hàng online không?",
                "{o} có làm thêm gì ngoài giờ không nhỉ?",
            ],
        ),
        "collection": (
            ["tem", "tiền xu cổ", "đĩa than", "mô hình Gundam", "Lego", "gấu bông"],
            "{p} thích sưu tầm {v}.",
            [
                "{p} sưu tầm cái gì ấy nhỉ?",
                "chợ đồ cũ cuối tuần có bán {v} nè, rủ {p} đi không?",
                "bộ sưu tập của {p} giờ chắc to lắm rồi nhỉ",
                "muốn tìm quà cho {p} mà phải đúng sở thích, mua gì giờ mn?",
            ],
            [
                "{o} có sưu tầm gì không?",
                "{o} có thú chơi gì đặc biệt không nhỉ?",
            ],
        ),
    },
    "small": [
        "ok {p} 👍",
        "chào {p} nhé",
        "cảm ơn {p} nhiều nha 🙏",
        "{p} ơi mình đến muộn 10 phút, đợi xíu nhé",
        "haha {p} lầy quá 🤣",
        "ngủ ngon nha {p}",
        "{p} đâu rồi, sao không trả lời tin nhắn vậy?",
        "hôm nay nóng kinh khủng luôn {p} ơi",
        "mệt quá {p} ơi, chắc mình đi ngủ sớm đây",
        "chuẩn luôn, {p} nói đúng đó",
        "{p} hôm nay mặc đẹp thế 😍",
        "hẹn {p} 7h tối mai nha, đừng cao su đó",
        "bye {p}, mai nói chuyện tiếp",
        "ủa {p} đang ở đâu đấy?",
        "chúc {p} cuối tuần vui vẻ!",
        "trời mưa to quá, {p} về cẩn thận nhé",
        "{p} ơi",
        "xin lỗi {p} nha, hôm qua mình quên mất không rep",
        "đồng ý với {p} 100%",
        "hahaha trời ơi {p} ơi mình cười đau cả bụng",
        "dạo này {p} thế nào rồi? lâu lắm không thấy nhắn gì",
        "nghe {p} kể chuyện này mà mình không tin nổi luôn 😂",
        "tuyệt vời {p}, làm tốt lắm!",
        "để mình hỏi lại rồi báo {p} sau nhé. giờ đang bận tí",
    ],
}
