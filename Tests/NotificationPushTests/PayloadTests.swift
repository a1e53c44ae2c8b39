import Foundation
import NotificationModel
import NotificationPush
import Testing

private func parse(_ text: String, _ type: APNsPushType = .alert) throws -> APNsPayload {
    try APNsPayload.parse(Data(text.utf8), pushType: type)
}

/// The reason a body is refused with, or `nil` when it parses.
private func reason(_ body: Data, _ type: APNsPushType = .alert) -> APNsReason? {
    do throws(APNsReason) {
        _ = try APNsPayload.parse(body, pushType: type)
        return nil
    } catch {
        return error
    }
}

/// A payload of exactly `size` bytes.
private func payload(ofSize size: Int) -> Data {
    let frame = #"{"aps":{"alert":"x"},"pad":""}"#
    let padding = String(repeating: "a", count: size - frame.utf8.count)
    let data = Data(#"{"aps":{"alert":"x"},"pad":"\#(padding)"}"#.utf8)
    precondition(data.count == size)
    return data
}

@Suite("APNs payloads")
struct PayloadTests {
    @Test("every aps key of Apple's table is read")
    func everyKey() throws {
        let payload = try parse(Fixtures.chatMessage)
        let alert = try #require(payload.alert)
        #expect(alert.title == "Anna")
        #expect(alert.subtitle == "Weekend trip")
        #expect(alert.bodyLocalization == LocalizableString(key: "MESSAGE_FROM", arguments: [.string("Anna"), .string("3")]))
        #expect(payload.badge == 3)
        #expect(payload.sound == SoundSpec())
        #expect(payload.threadIdentifier == "conversation-42")
        #expect(payload.categoryIdentifier == "MESSAGE")
        #expect(payload.mutableContent)
        #expect(!payload.contentAvailable)
        #expect(payload.targetContentIdentifier == "conversation-42")
        #expect(payload.interruptionLevel == 2)
        #expect(payload.relevanceScore == 0.75)
        #expect(payload.simulatorTargetBundle == "com.example.chat")
        #expect(payload.ignoredKeys.isEmpty)
        #expect(!payload.isBackground)

        let content = payload.content(bundleDirectory: "/opt/chat")
        #expect(content.title == "Anna")
        #expect(LocalizableString.decode(content.body)?.key == "MESSAGE_FROM")
        #expect(LocalizableString.decode(content.body)?.bundleDirectory == "/opt/chat")
        #expect(content.badge == 3)
        #expect(content.threadIdentifier == "conversation-42")
        #expect(content.categoryIdentifier == "MESSAGE")
        #expect(content.interruptionLevel == 2)
        #expect(content.relevanceScore == 0.75)
        #expect(content.targetContentIdentifier == "conversation-42")

        let critical = try parse(Fixtures.criticalAlert)
        #expect(critical.alert?.body == "Smoke detected in the kitchen")
        #expect(critical.sound == SoundSpec(name: "siren.caf", isCritical: true, volume: 0.9))
        #expect(critical.interruptionLevel == 3)
        #expect(critical.filterCriteria == "home")
        #expect(critical.content(bundleDirectory: "/opt/alarm").sound?.bundleDirectory == "/opt/alarm")
    }

    @Test("the alert is a string (the body) or a dictionary; the rest of the dictionary's keys")
    func alertForms() throws {
        #expect(try parse(#"{"aps":{"alert":"Hello"}}"#).alert?.body == "Hello")
        let alert = try #require(
            try parse(
                #"{"aps":{"alert":{"title":"T","subtitle":"S","body":"B","launch-image":"splash.png","title-loc-key":"TK","title-loc-args":["a"],"subtitle-loc-key":"SK","subtitle-loc-args":[1.5],"summary-arg":"Anna","summary-arg-count":2}}}"#
            ).alert)
        #expect(alert.title == "T" && alert.subtitle == "S" && alert.body == "B" && alert.launchImage == "splash.png")
        #expect(alert.titleLocalization == LocalizableString(key: "TK", arguments: [.string("a")]))
        #expect(alert.subtitleLocalization == LocalizableString(key: "SK", arguments: [.double(1.5)]))
        #expect(alert.summaryArgument == "Anna" && alert.summaryArgumentCount == 2)
        let content = try parse(#"{"aps":{"alert":{"title":"T","title-loc-key":"TK","launch-image":"l.png"}}}"#)
            .content(bundleDirectory: nil)
        #expect(LocalizableString.decode(content.title)?.key == "TK", "a loc key wins over the plain text")
        #expect(content.launchImageName == "l.png")
    }

    @Test(
        "sound forms",
        arguments: [
            (#""default""#, SoundSpec()),
            (#""chime.caf""#, SoundSpec(name: "chime.caf")),
            (#"{"critical":1,"name":"default","volume":0.5}"#, SoundSpec(isCritical: true, volume: 0.5)),
            (#"{"critical":0,"name":"bell.aiff"}"#, SoundSpec(name: "bell.aiff")),
            (#"{"name":"bell.aiff","volume":2}"#, SoundSpec(name: "bell.aiff")),
        ] as [(String, SoundSpec)])
    func soundForms(json: String, expected: SoundSpec) throws {
        #expect(try parse(#"{"aps":{"alert":"x","sound":\#(json)}}"#).sound == expected)
    }

    @Test("userInfo is the whole payload, aps included, without Simulator Target Bundle")
    func userInfo() throws {
        let payload = try parse(Fixtures.chatMessage)
        #expect(payload.userInfo["conversationID"] == .integer(42))
        #expect(payload.userInfo["sender"] == .dictionary(["name": .string("Anna"), "id": .string("u-7")]))
        guard case let .dictionary(aps)? = payload.userInfo["aps"] else {
            Issue.record("no aps in userInfo")
            return
        }
        #expect(aps["badge"] == .integer(3))
        #expect(payload.userInfo[APNsPayload.simulatorTargetBundleKey] == nil)
        #expect(payload.content(bundleDirectory: nil).userInfo == payload.userInfo)
        let withNull = try parse(#"{"aps":{"alert":"x"},"gone":null,"kept":[1,null,true]}"#)
        #expect(withNull.userInfo["gone"] == nil)
        #expect(withNull.userInfo["kept"] == .array([.integer(1), .bool(true)]))
        #expect(withNull.ignoredKeys == ["gone", "kept[1]"])
    }

    @Test("size limits: 4096 bytes, 5120 for VoIP")
    func limits() throws {
        #expect(reason(payload(ofSize: 4096)) == nil)
        #expect(reason(payload(ofSize: 4097)) == .payloadTooLarge)
        #expect(reason(payload(ofSize: 4097))?.status == 413)
        #expect(reason(payload(ofSize: 5120), .voip) == nil)
        #expect(reason(payload(ofSize: 5121), .voip) == .payloadTooLarge)
        #expect(reason(payload(ofSize: 4097), .background) == .payloadTooLarge)
    }

    @Test(
        "bodies without a payload answer PayloadEmpty (400)",
        arguments: ["", "   ", "not json", "[1,2]", "42", #""aps""#, "{}", #"{"aps":"alert"}"#, #"{"aps":[1]}"#, #"{"aps":{"alert":"x""#]
    )
    func payloadEmpty(body: String) {
        let refused = reason(Data(body.utf8))
        #expect(refused == .payloadEmpty)
        #expect(refused?.status == 400)
    }

    @Test("wrong types inside aps are ignored and listed, as a device ignores them")
    func ignoredKeys() throws {
        let payload = try parse(
            #"{"aps":{"alert":7,"badge":"3","sound":5,"thread-id":1,"category":[],"content-available":"1","mutable-content":2,"target-content-id":false,"interruption-level":"loud","relevance-score":1.5,"filter-criteria":{}}}"#
        )
        #expect(payload.alert == nil && payload.badge == nil && payload.sound == nil && payload.interruptionLevel == nil)
        #expect(payload.relevanceScore == nil && !payload.contentAvailable && !payload.mutableContent)
        #expect(payload.ignoredKeys.count == 11)
        #expect(try parse(#"{"aps":{"badge":-1}}"#).badge == nil)
        #expect(try parse(#"{"aps":{"badge":2.0}}"#).badge == 2)
        #expect(try parse(#"{"aps":{"badge":0}}"#).badge == 0)
    }

    @Test("a background push is content-available without alert, sound or badge")
    func background() throws {
        #expect(try parse(Fixtures.backgroundRefresh).isBackground)
        #expect(try parse(#"{"aps":{"content-available":true,"alert":{}}}"#).isBackground)
        #expect(!(try parse(#"{"aps":{"content-available":1,"alert":"x"}}"#).isBackground))
        #expect(!(try parse(#"{"aps":{"content-available":1,"badge":1}}"#).isBackground))
        #expect(!(try parse(#"{"aps":{"content-available":1,"sound":"default"}}"#).isBackground))
        #expect(!(try parse(#"{"aps":{}}"#).isBackground))
        let push = RemoteNotification(payload: try parse(#"{"aps":{"alert":"x"}}"#), pushType: .background)
        #expect(push.isBackground, "apns-push-type background is never shown")
    }

    @Test("reasons: every string of Apple's table with its status; the 410 body carries the timestamp")
    func reasons() throws {
        #expect(APNsReason.allReasons.count == 32)
        #expect(Set(APNsReason.allReasons.map(\.reason)).count == 32)
        for reason in APNsReason.allReasons {
            #expect(APNsReason(reason: reason.reason)?.status == reason.status)
            let body = try #require(try JSONSerialization.jsonObject(with: reason.responseBody) as? [String: Any])
            #expect(body["reason"] as? String == reason.reason)
            #expect(body["timestamp"] == nil)
        }
        let gone = APNsReason.unregistered.with(timestamp: Date(timeIntervalSince1970: 1_767_603_600.25))
        #expect(String(decoding: gone.responseBody, as: UTF8.self) == #"{"reason":"Unregistered","timestamp":1767603600250}"#)
        #expect(gone.status == 410)
    }

    @Test("device tokens: 32 bytes as 64 hex digits, either case in, lowercase out")
    func tokens() throws {
        let token = DeviceToken.random()
        #expect(token.bytes.count == 32)
        #expect(token.hex.count == 64)
        #expect(token.hex.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(DeviceToken(hex: token.hex) == token)
        #expect(DeviceToken(hex: token.hex.uppercased()) == token)
        #expect(DeviceToken(hex: String(token.hex.dropLast())) == nil)
        #expect(DeviceToken(hex: String(repeating: "g", count: 64)) == nil)
        #expect(DeviceToken(hex: String(token.hex.dropLast()) + "x") == nil)
        #expect(DeviceToken(hex: String(repeating: "é", count: 32)) == nil)  // 64 bytes, no hex digit
        #expect(DeviceToken(hex: String(repeating: "0", count: 64))?.bytes == Data(count: 32))
        #expect(DeviceToken(bytes: Data(count: 31)) == nil)
        let decoded = try JSONDecoder().decode(DeviceToken.self, from: try JSONEncoder().encode(token))
        #expect(decoded == token)
    }
}
