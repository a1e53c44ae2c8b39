import Foundation
import NotificationModel
import OpenUserNotifications
import OpenUserNotificationsTesting
import Testing

@Suite("Content, requests and errors")
struct ContentTests {
    @Test("copy() and mutableCopy() behave as on Apple platforms")
    func copying() throws {
        let content = UNMutableNotificationContent()
        content.title = "Original"
        content.userInfo = ["n": 1]
        let frozen = try #require(content.copy() as? UNNotificationContent)
        #expect(!(frozen is UNMutableNotificationContent))
        content.title = "Changed"
        #expect(frozen.title == "Original")
        let editable = try #require(frozen.mutableCopy() as? UNMutableNotificationContent)
        editable.title = "Edited"
        #expect(frozen.title == "Original" && editable.title == "Edited")
        #expect(editable.userInfo["n"] as? Int == 1)
    }

    @Test("a request copies its content at creation")
    func requestCopiesContent() {
        let content = UNMutableNotificationContent()
        content.title = "Before"
        let request = UNNotificationRequest(identifier: "r", content: content, trigger: nil)
        content.title = "After"
        #expect(request.content.title == "Before")
    }

    @Test("userInfo round-trips property-list values through the store", arguments: NotificationTestSystem.Mode.allCases)
    func userInfoRoundTrip(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: "com.example.app")
        let content = UNMutableNotificationContent()
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        content.userInfo = [
            "string": "s", "int": 42, "double": 1.5, "bool": true, "date": date, "data": Data([1, 2]),
            "array": [1, "two"], "nested": ["k": ["v"]], "number": NSNumber(value: 7),
        ]
        try await center.add(UNNotificationRequest(identifier: "u", content: content, trigger: nil))
        let info = try #require(await center.pendingNotificationRequests().first?.content.userInfo)
        #expect(info["string"] as? String == "s")
        #expect(info["int"] as? Int == 42)
        #expect(info["double"] as? Double == 1.5)
        #expect(info["bool"] as? Bool == true)
        #expect(info["date"] as? Date == date)
        #expect(info["data"] as? Data == Data([1, 2]))
        #expect((info["array"] as? [Any])?.count == 2)
        #expect((info["nested"] as? [String: Any])?["k"] as? [String] == ["v"])
        #expect(info["number"] as? Int == 7)
    }

    @Test("a userInfo value that is not a property list is a clear error at add", arguments: NotificationTestSystem.Mode.allCases)
    func userInfoRejected(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: "com.example.app")
        let content = UNMutableNotificationContent()
        content.userInfo = ["when": [1, NSObject()]]
        do {
            try await center.add(UNNotificationRequest(identifier: "bad", content: content, trigger: nil))
            Issue.record("add accepted a non-property-list userInfo")
        } catch let error as NotificationRequestError {
            #expect(error.kind == .invalidUserInfo)
            #expect(error.message.contains(#"userInfo["when"][1]"#))
        }
        content.userInfo = [1: "integer key"]
        await #expect(throws: NotificationRequestError.self) {
            try await center.add(UNNotificationRequest(identifier: "bad", content: content, trigger: nil))
        }
        #expect(await center.pendingNotificationRequests().isEmpty)
    }

    @Test(
        "userInfo past the limits (nested deeper than 32, NaN) is refused at add; at the limit it is listed and delivered",
        arguments: NotificationTestSystem.Mode.allCases)
    func userInfoLimits(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: "com.example.app")
        func nested(_ levels: Int) -> [AnyHashable: Any] {
            var value: Any = "bottom"
            for _ in 0..<levels { value = ["next": value] }
            return ["top": value]
        }
        let content = UNMutableNotificationContent()
        content.title = "deep"
        for (userInfo, words) in [(nested(251), "nests 251 levels deep"), (["ratio": Double.nan], "numbers must be finite")] {
            content.userInfo = userInfo
            do {
                try await center.add(UNNotificationRequest(identifier: "poison", content: content, trigger: nil))
                Issue.record("add accepted \(words)")
            } catch let error as NotificationRequestError {
                #expect(error.kind == .invalidUserInfo)
                #expect(error.message.contains(words), "\(error.message)")
            }
        }
        // The path names the first number that is not finite, however deep (spelled only when there is one).
        let limits = [
            "ok": PropertyListValue.array([.double(1.5), .dictionary(["inner": .double(-.infinity)])]),
        ]
        do {
            try PropertyListValue.checkLimits(of: limits, path: "userInfo")
            Issue.record("checkLimits accepted -inf")
        } catch {
            #expect(error.description == #"userInfo["ok"][1]["inner"] is -inf; numbers must be finite"#)
        }
        let finite: [String: PropertyListValue] = ["a": .array([.double(2), .integer(3), .dictionary([:])])]
        try PropertyListValue.checkLimits(of: finite, path: "userInfo")
        let small = PropertyListValue.dictionary(["a": .array([.dictionary(["b": .string("c")])]), "d": .bool(true)])
        #expect(small.depth == 3)
        content.userInfo = nested(32)  // 32 levels below userInfo
        let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: false)
        try await center.add(UNNotificationRequest(identifier: "deep", content: content, trigger: trigger))
        #expect(await center.pendingNotificationRequests().map(\.identifier) == ["deep"])
        await system.advance(by: 60)
        #expect(system.presenter.presentations.map(\.identifier) == ["deep"])
    }

    @Test("a trigger Apple would trap on fails add with an error instead, through both forms", arguments: NotificationTestSystem.Mode.allCases)
    func invalidTriggers(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: "com.example.app")
        let zero = UNNotificationRequest(
            identifier: "z", content: UNNotificationContent(), trigger: UNTimeIntervalNotificationTrigger(timeInterval: 0, repeats: false))
        await #expect(throws: NotificationRequestError.self) { try await center.add(zero) }
        let error: (any Error)? = await withCheckedContinuation { continuation in
            let short = UNNotificationRequest(
                identifier: "s", content: UNNotificationContent(),
                trigger: UNTimeIntervalNotificationTrigger(timeInterval: 30, repeats: true))
            center.add(short) { continuation.resume(returning: $0) }
        }
        #expect((error as? NotificationRequestError)?.kind == .invalidTrigger)
        var past = DateComponents()
        past.year = 2000
        past.month = 1
        past.day = 1
        let never = UNNotificationRequest(
            identifier: "p", content: UNNotificationContent(), trigger: UNCalendarNotificationTrigger(dateMatching: past, repeats: false))
        do {
            try await center.add(never)
            Issue.record("a date in the past was accepted")
        } catch UNError.notificationInvalidNoDate {}
        #expect(await center.pendingNotificationRequests().isEmpty)
    }

    @Test("a weekday ordinal no month has (6) fails add with notificationInvalidNoDate at once, in both modes", arguments: NotificationTestSystem.Mode.allCases)
    func impossibleWeekdayOrdinal(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: "com.example.app")
        var components = DateComponents()
        components.hour = 9
        components.weekdayOrdinal = 6
        let trigger = UNCalendarNotificationTrigger(dateMatching: components, repeats: true)
        await #expect(throws: UNError.self) {
            try await center.add(UNNotificationRequest(identifier: "never", content: UNMutableNotificationContent(), trigger: trigger))
        }
        #expect(await center.pendingNotificationRequests().isEmpty)
    }

    @Test("UNError has Apple's domain and codes")
    func errorCodes() {
        #expect(UNErrorDomain == "UNErrorDomain")
        let codes: [UNError.Code: Int] = [
            .notificationsNotAllowed: 1, .attachmentInvalidURL: 100, .attachmentUnrecognizedType: 101,
            .attachmentInvalidFileSize: 102, .attachmentNotInDataStore: 103, .attachmentMoveIntoDataStoreFailed: 104,
            .attachmentCorrupt: 105, .notificationInvalidNoDate: 1400, .notificationInvalidNoContent: 1401,
            .contentProvidingObjectNotAllowed: 1500, .contentProvidingInvalid: 1501, .badgeInputInvalid: 1600,
        ]
        for (code, raw) in codes { #expect(code.rawValue == raw) }
        let error = UNError(.attachmentCorrupt) as NSError
        #expect(error.domain == "UNErrorDomain" && error.code == 105)
        #expect(UNNotificationDefaultActionIdentifier == "com.apple.UNNotificationDefaultActionIdentifier")
        #expect(UNNotificationDismissActionIdentifier == "com.apple.UNNotificationDismissActionIdentifier")
    }

    @Test("attachments are checked at creation: existence, type and size")
    func attachments() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = folder.appendingPathComponent("a.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]).write(to: png)  // recognised by content (AttachmentTests)
        let attachment = try UNNotificationAttachment(identifier: "", url: png)
        #expect(attachment.type == "public.png" && !attachment.identifier.isEmpty)
        func code(_ body: () throws -> Void) -> UNError.Code? {
            do { try body() } catch let error as UNError { return error.code } catch {}
            return nil
        }
        #expect(code { _ = try UNNotificationAttachment(identifier: "m", url: folder.appendingPathComponent("missing.png")) } == .attachmentInvalidURL)
        let text = folder.appendingPathComponent("a.txt")
        try Data("x".utf8).write(to: text)
        #expect(code { _ = try UNNotificationAttachment(identifier: "t", url: text) } == .attachmentUnrecognizedType)
        let big = folder.appendingPathComponent("big.wav")
        let wav: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8)
        _ = FileManager.default.createFile(atPath: big.path, contents: Data(wav + [UInt8](repeating: 0, count: 5_000_001 - wav.count)))
        #expect(code { _ = try UNNotificationAttachment(identifier: "b", url: big) } == .attachmentInvalidFileSize)
    }

    @Test("nextTriggerDate: the planned date for pending requests, computed from now for new triggers", arguments: NotificationTestSystem.Mode.allCases)
    func nextTriggerDate(mode: NotificationTestSystem.Mode) async throws {
        let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 3_600, repeats: false)
        let next = try #require(trigger.nextTriggerDate())
        #expect(abs(next.timeIntervalSinceNow - 3_600) < 5)
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: "com.example.app")
        try await center.add(UNNotificationRequest(identifier: "t", content: UNNotificationContent(), trigger: trigger))
        await system.advance(by: 600)
        let pending = try #require(await center.pendingNotificationRequests().first?.trigger as? UNTimeIntervalNotificationTrigger)
        #expect(pending.nextTriggerDate() == system.clock.now.addingTimeInterval(3_000))
        #expect(pending.timeInterval == 3_600)
    }

    @Test("the body shows %% as % and drops other printf escapes")
    func bodyEscapes() {
        #expect(TerminalBody.display("50%% off %@ today %d") == "50% off  today ")
    }
}

import NotificationDelivery

enum TerminalBody {
    static func display(_ body: String) -> String { TerminalPresenter.displayBody(body) }
}
