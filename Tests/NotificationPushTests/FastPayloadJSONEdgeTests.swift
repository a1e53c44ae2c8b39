import Foundation
import Testing

@testable import NotificationModel

/// Inputs at the edge of FastPayloadJSON's subset (long fractions, U+FEFF in a string), where it must answer as
/// JSONSerialization + PropertyListValue(json:) do, the path it stands in for.
@Suite("FastPayloadJSON at the edge of its subset")
struct FastPayloadJSONEdgeTests {
    private func reference(_ body: Data) -> [String: PropertyListValue]? {
        guard let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) as? [String: Any]
        else { return nil }
        return try? PropertyListValue.convert(json: object)
    }

    @Test(
        "13-17 significant digits: left to JSONSerialization, so the double does not depend on the reader",
        arguments: ["0.30000000000000004", "1.0000000000000002", "12.345678901234567", "-0.0007626763399436"])
    func longFractions(_ number: String) throws {
        let body = Data(#"{"aps":{},"v":\#(number)}"#.utf8)
        #expect(FastPayloadJSON.object(body) == nil)
        // 12 digits or fewer stay on the fast path and read as JSONSerialization reads them.
        let short = Data(#"{"aps":{},"v":\#(number.prefix(number.hasPrefix("-") ? 14 : 13))}"#.utf8)
        let fast = try #require(FastPayloadJSON.object(short))
        #expect(fast == reference(short))
    }

    @Test("a string or key holding U+FEFF is left to JSONSerialization (which strips it at a string's start)")
    func leadingBOMInString() throws {
        for text in ["{\"aps\":{\"alert\":\"\u{FEFF}Hi\"}}", "{\"\u{FEFF}aps\":{\"alert\":\"Hi\"}}"] {
            #expect(FastPayloadJSON.object(Data(text.utf8)) == nil, "\(text.debugDescription)")
        }
    }

    @Test("an escape elsewhere in the body does not change whether a payload is accepted")
    func bomKeyAcceptedOnlyWithEscape() {
        let fast = Data("{\"\u{FEFF}aps\":{\"alert\":\"Hi\"}}".utf8)
        let slow = Data("{\"\u{FEFF}aps\":{\"alert\":\"Hi\"},\"x\":\"\\n\"}".utf8)
        let fastAccepted = (try? APNsPayload.parse(fast)) != nil
        let slowAccepted = (try? APNsPayload.parse(slow)) != nil
        #expect(fastAccepted == slowAccepted, "fast path accepted: \(fastAccepted), JSONSerialization path: \(slowAccepted)")
    }
}
