import Foundation
import NotificationModel
import Testing

@testable import NotificationPush

@Suite("apns-id of requests that came without one")
struct APNsIDTests {
    @Test("a random version 4 UUID in lowercase 8-4-4-4-12 hex digits, as Foundation parses it, new every time")
    func randomIDs() {
        var seen = Set<String>()
        for _ in 0..<10_000 {
            let id = APNsID.random()
            #expect(APNsRequest.isCanonicalUUID(id))
            #expect(id == id.lowercased())
            #expect(UUID(uuidString: id)?.uuidString.lowercased() == id)
            let characters = Array(id)
            #expect(characters[14] == "4")
            #expect("89ab".contains(characters[19]))
            seen.insert(id)
        }
        #expect(seen.count == 10_000)
    }

    @Test("a request without apns-id is answered with a new one, a request with one keeps it")
    func requestIDs() throws {
        let token = DeviceToken.random()
        let body = Data(#"{"aps":{"alert":"Hi"}}"#.utf8)
        let first = try APNsRequest(path: "/3/device/\(token.hex)", body: body).validate().apnsID
        let second = try APNsRequest(path: "/3/device/\(token.hex)", body: body).validate().apnsID
        #expect(APNsRequest.isCanonicalUUID(first) && APNsRequest.isCanonicalUUID(second) && first != second)
        let given = "3F2B8C1E-9A4D-4F6E-B1C2-7D8E9F0A1B2C"
        let kept = try APNsRequest(path: "/3/device/\(token.hex)", headers: [("apns-id", given)], body: body).validate()
        #expect(kept.apnsID == given.lowercased())
    }
}
