import NotificationLocalization
import NotificationModel
import Testing

@Suite("Localization: formatting")
struct FormatTests {
    typealias Argument = LocalizableString.Argument

    @Test("conversions", arguments: [
        ("Hello, %@!", [Argument.string("Ann")], "Hello, Ann!"),
        ("%d new messages", [.int(3)], "3 new messages"),
        ("%ld items, %lu left, %zd, %lld, %qd", [.int(1), .int(2), .int(3), .int(4), .int(5)], "1 items, 2 left, 3, 4, 5"),
        ("%.1f°", [.double(21.25)], "21.2°"),
        ("%@ °C", [.double(21.5)], "21.5 °C"),
        ("%@ items", [.int(7)], "7 items"),
        ("%@", [.double(2)], "2"),
        ("%2$@ sent %1$@", [.string("a photo"), .string("Ann")], "Ann sent a photo"),
        ("%2$@，%1$d", [.int(5), .string("剩余")], "剩余，5"),
        ("%1$@ and %1$@", [.string("x")], "x and x"),
        ("100%%", [], "100%"),
        ("%d%% done", [.int(50)], "50% done"),
        ("%05d|%-4d|%x|%X|%o", [.int(42), .int(7), .int(255), .int(255), .int(8)], "00042|7   |ff|FF|10"),
        ("[%5@][%-5@][%.2@]", [.string("ab"), .string("ab"), .string("abc")], "[   ab][ab   ][ab]"),
        ("%c%c", [.int(72), .string("i!")], "Hi"),
        ("%u", [.uint(UInt64.max)], "18446744073709551615"),
        ("%e", [.double(1500)], "1.500000e+03"),
    ])
    func conversions(format: String, arguments: [Argument], expected: String) {
        #expect(NotificationFormat.format(format, arguments: arguments) == expected)
    }

    @Test("arguments of the wrong type are converted, never crash")
    func mismatched() {
        #expect(NotificationFormat.format("%d", arguments: [.string("12")]) == "12")
        #expect(NotificationFormat.format("%d", arguments: [.string("twelve")]) == "0")
        #expect(NotificationFormat.format("%d", arguments: [.double(3.9)]) == "3")
        #expect(NotificationFormat.format("%.2f", arguments: [.string("2.5")]) == "2.50")
        #expect(NotificationFormat.format("%f", arguments: [.int(2)]) == "2.000000")
        #expect(NotificationFormat.format("%s", arguments: [.int(2)]) == "2")
        #expect(NotificationFormat.format("%d", arguments: [.double(.infinity)]) == "0")
        #expect(NotificationFormat.format("%d", arguments: [.double(1e300)]) == String(Int64.max))
    }

    @Test("what cannot be formatted is left as written")
    func leftAlone() {
        #expect(NotificationFormat.format("%@ and %@", arguments: [.string("one")]) == "one and %@")
        #expect(NotificationFormat.format("%3$@", arguments: [.string("one")]) == "%3$@")
        #expect(NotificationFormat.format("%n %p %*d", arguments: [.int(1), .int(2), .int(3)]) == "%n %p %*d")
        #expect(NotificationFormat.format("50% off", arguments: []) == "50% off")
        #expect(NotificationFormat.format("trailing %", arguments: []) == "trailing %")
        #expect(NotificationFormat.format("%Ω", arguments: [.int(1)]) == "%Ω")
        #expect(NotificationFormat.format("no conversions", arguments: [.int(1)]) == "no conversions")
    }
}
