import Foundation
import OpenUserNotificationsTesting
import Testing

@testable import NotificationModel

/// What `JSONSerialization` and `PropertyListValue(json:)` make of a body: the path `APNsPayload.parse` takes when
/// `FastPayloadJSON` answers `nil`. `nil` when the body is not a JSON object, or holds a `null`.
private func reference(_ body: Data) -> [String: PropertyListValue]? {
    guard let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) as? [String: Any]
    else { return nil }
    return try? PropertyListValue.convert(json: object)
}

@Suite("Reading payloads without JSONSerialization")
struct FastPayloadJSONTests {
    @Test(
        "common payloads are read, exactly as JSONSerialization reads them",
        arguments: [
            Fixtures.chatMessage, Fixtures.appleSample, Fixtures.criticalAlert, Fixtures.backgroundRefresh,
            Fixtures.localized,
            #"{"aps":{"alert":"Hi"}}"#, #" { "aps" : { "alert" : "Hi" , "badge" : 3 } } "#, "{\r\n\t\"aps\":{}\n}",
            #"{"aps":{"badge":0,"x":-7,"y":123456789012345678,"z":-123456789012345678,"w":-0}}"#,
            #"{"aps":{"content-available":1,"mutable-content":true,"f":false},"list":[1,"a",[],{},[true,[false]]]}"#,
            #"{"aps":{"alert":{"title":"Ça va ? 😀","body":"日本語 \#u{10FF00}"}},"é":"é"}"#,
            #"{"aps":{"alert":"%@ %d '/'"},"k":"<>&"}"#, "{}",
            #"{"aps":{"relevance-score":0.5,"a":1e2,"b":1E-2,"c":3.0,"d":-0.0,"e":12.5e+3,"f":0.1,"g":1e300}}"#,
        ])
    func common(_ text: String) throws {
        let body = Data(text.utf8)
        let fast = try #require(FastPayloadJSON.object(body), "read by the fast path")
        #expect(fast == reference(body))
    }

    @Test(
        "anything outside the subset is left to JSONSerialization",
        arguments: [
            #"{"aps":{"alert":"a\"b"}}"#, #"{"aps":{"alert":"\u00e9"}}"#, #"{"aps":{"alert":"a\/b"}}"#,
            #"{"aps":{"badge":1.}}"#, #"{"aps":{"badge":.5}}"#, #"{"aps":{"badge":1e}}"#, #"{"aps":{"badge":1e999}}"#,
            #"{"aps":{"badge":007}}"#, #"{"aps":{"badge":-}}"#, #"{"aps":{"badge":+1}}"#,
            #"{"aps":{"badge":1234567890123456789}}"#, #"{"aps":{"badge":null}}"#, #"{"aps":{},"aps":{}}"#,
            "\u{FEFF}{\"aps\":{}}", "{\"aps\":{\"alert\":\"a\u{1}b\"}}", #"{"aps":{}} x"#, #"{"aps":{}"#, #"{"aps":}"#,
            #"{"aps":{"alert":"x",}}"#, #"{"aps":[1,]}"#, #"{"aps":tru}"#, #"{"aps":truex}"#, #"{"aps":1x}"#,
            "[1]", "\"aps\"", "", " ", "{'aps':{}}", #"{aps:{}}"#,
            String(repeating: "{\"a\":", count: 40) + "1" + String(repeating: "}", count: 40),
        ])
    func outside(_ text: String) {
        #expect(FastPayloadJSON.object(Data(text.utf8)) == nil)
    }

    @Test("invalid UTF-8 and other encodings are left to JSONSerialization")
    func encodings() {
        let invalid: [[UInt8]] = [
            Array(#"{"aps":{"alert":""#.utf8) + [0xC3] + Array(#""}}"#.utf8),
            Array(#"{"aps":{"alert":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}}"#.utf8),
            Array(#"{"aps":{"alert":""#.utf8) + [0xFF] + Array(#""}}"#.utf8),
        ]
        for bytes in invalid { #expect(FastPayloadJSON.object(Data(bytes)) == nil) }
        let utf16 = Data(#"{"aps":{}}"#.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        #expect(FastPayloadJSON.object(utf16) == nil)
    }

    @Test(
        "12,000 random and mutated bodies: whatever the fast path reads, JSONSerialization reads the same",
        arguments: [4, 5, 6])
    func fuzz(seed: UInt64) {
        var input = FuzzInput(rng: SeededGenerator(seed: seed))
        var read = 0
        for index in 0..<4000 {
            let body = input.body()
            guard let fast = FastPayloadJSON.object(body) else { continue }
            read += 1
            #expect(fast == reference(body), "seed \(seed) case \(index): \(String(decoding: body, as: UTF8.self))")
        }
        #expect(read > 400, "the generator should also produce bodies in the subset")
    }

    /// `JSONSerialization`'s `NSNumber` of a 0 or 1 also bridges to `Bool`; the payload's values are told apart by the
    /// number's type, so a badge of 0 still clears the badge and `content-available` 1 is still the flag.
    @Test("the slow way (a null in the payload) keeps badge 0 and 1 numbers and content-available 1 a flag")
    func slowWayBadgeZeroAndOne() throws {
        for (text, badge) in [
            (#"{"aps":{"badge":0},"x":null}"#, 0), (#"{"aps":{"badge":1},"x":null}"#, 1),
            (#"{"aps":{"badge":2},"x":null}"#, 2), (#"{"aps":{"badge":0.0},"x":null}"#, 0),
        ] {
            #expect(FastPayloadJSON.object(Data(text.utf8)) == nil, "\(text) takes the slow way")
            let payload = try APNsPayload.parse(Data(text.utf8), pushType: .alert)
            #expect(payload.badge == badge && payload.content(bundleDirectory: nil).badge == badge, "\(text)")
        }
        let flags = try APNsPayload.parse(
            Data(#"{"aps":{"content-available":1,"mutable-content":0,"badge":0},"x":null}"#.utf8), pushType: .alert)
        #expect(flags.contentAvailable && !flags.mutableContent && flags.badge == 0 && !flags.isBackground)
        let booleans = try APNsPayload.parse(Data(#"{"aps":{"badge":true},"x":null}"#.utf8), pushType: .alert)
        #expect(booleans.badge == nil && booleans.ignoredKeys.contains("aps.badge"))
    }
}
