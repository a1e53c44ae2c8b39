import Foundation
import NotificationEngine
import NotificationModel
import NotificationServer
import NotificationStorePostgres
import OpenUserNotificationsTesting
import PushTestSupport
import Testing
import TestPrograms

/// The push statistics pages in headless Chromium (Tests/Fixtures/PushCenterBrowser/push_center_browser.py): the link
/// `unotify server center` prints, the cookie, the list, a push's page with its chart, and a receipt a device reports
/// while the page is open appearing without a reload (the page's own script).
///
/// The screenshot goes to a temporary folder, or to `OPENUN_PUSH_SCREENSHOT` (docs/images/push-statistics.png when
/// the docs' picture is made again).
@Suite(
    "Push service: statistics pages in Chromium",
    .enabled(
        if: browserPython != nil, "run scripts/test once (chromium, chromium-driver, selenium) or set OPENUN_PYTHON"),
    .timeLimit(.minutes(5)))
struct PushCenterBrowserTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    @Test(
        "unotify server center's link opens the pages; the push's page shows its chart and a new receipt without a reload"
    )
    func pushPageInChromium() async throws {
        let side = try await DeviceSide()
        defer { side.removeFiles() }
        let folder = try temporaryFolder("push-center-browser")
        defer { try? FileManager.default.removeItem(at: folder) }
        let start = instant("2026-11-26T12:00:00Z")
        let clock = ManualNotificationClock(now: start, timeZone: TimeZone(identifier: "UTC")!)
        try await WorkerDeliveryTests().withTwoWorkers(side: side, clock: clock, running: (true, false)) { a, _, _ in
            let push = PushService(store: a.store, clock: clock)
            var tokens: [String: String] = [:]
            for index in 0..<20 {
                let device = registration(String(format: "phone-%02d", index), zone: "Europe/Paris")
                try await a.devices.register(device)
                try await push.bindTags(index % 5 == 4 ? ["news", "muted"] : ["news"], deviceID: device.id)
                tokens[device.id] = device.token
            }
            side.answer(.unregistered, token: tokens["phone-01"]!)
            side.answer(.unregistered, token: tokens["phone-02"]!)
            side.answer(.badDeviceToken, token: tokens["phone-03"]!)
            var content = NotificationPayload()
            content.title = "<b>Match</b> tonight"
            content.body = "Kick-off at 21:00"
            content.categoryIdentifier = "match"
            let expression = try TagExpression(json: ["and": [["tag": "news"], ["not": ["tag": "muted"]]]])
            let message = PushMessage(
                target: .tag(expression), content: content, sendTime: .now, collapseID: "match-42",
                createdAt: clock.now)
            try await push.send([message])
            a.fanOut.wake()
            let answered = await eventually {
                guard let statistics = try? await push.statistics(id: message.id) else { return false }
                return statistics.targeted == 16 && statistics.sent == 16
            }
            try #require(answered)
            // Receipts over the afternoon: received and opened falling off hour by hour, two actions, a dismissal.
            let reached = tokens.keys.sorted().filter { !["phone-01", "phone-02", "phone-03"].contains($0) }
                .filter { !$0.hasSuffix("4") && !$0.hasSuffix("9") }
            let plan: [(hour: Int, received: Int, opened: Int)] = [(12, 5, 3), (13, 3, 2), (14, 1, 1), (15, 1, 0)]
            var next = 0
            for (hour, received, opened) in plan {
                for index in 0..<received {
                    let device = reached[next]
                    next += 1
                    var receipts = [
                        PushReceipt(
                            messageID: message.id, kind: .received,
                            date: start.addingTimeInterval(Double((hour - 12) * 3600 + 60 * (index + 1))))
                    ]
                    if index < opened {
                        receipts.append(
                            PushReceipt(
                                messageID: message.id, kind: .opened,
                                date: start.addingTimeInterval(Double((hour - 12) * 3600 + 60 * (index + 10)))))
                    }
                    _ = try await push.recordReceipts(receipts, deviceID: device, token: tokens[device]!)
                }
            }
            _ = try await push.recordReceipts(
                [PushReceipt(messageID: message.id, kind: .action, action: "watch", date: start.addingTimeInterval(900))],
                deviceID: reached[0], token: tokens[reached[0]]!)
            _ = try await push.recordReceipts(
                [PushReceipt(messageID: message.id, kind: .dismissed, date: start.addingTimeInterval(1200))],
                deviceID: reached[1], token: tokens[reached[1]]!)
            let quiet = reached[next]
            let before = try #require(try await push.statistics(id: message.id))

            // The API on a real port, its token in a file, and the link from the real `unotify server center`.
            let api = ServerAPI(
                devices: a.devices, token: ServerAPITests.token,
                configuration: ServerAPIConfiguration(host: "127.0.0.1", port: 0))
            let baseURL = DeviceSide.Locked<String?>(nil)
            let server = Task { try await api.run { url in baseURL.withLock { $0 = url } } }
            defer { server.cancel() }
            let listening = await eventually(within: 30) { baseURL.withLock { $0 } != nil }
            try #require(listening, "the API did not start")
            let base = try #require(baseURL.withLock { $0 })
            let tokenFile = folder.appendingPathComponent("api.token").path
            try ServerAPITests.token.write(toFile: tokenFile, atomically: true, encoding: .utf8)
            let unotify = try ServerProcessTests().unotify()
            let printed = try await runProgram(unotify, ["server", "center", "--url", base, "--token-file", tokenFile])
            #expect(printed.status == 0, "\(printed.stderr)")
            let link = printed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            // A one-time link: not the API's token.
            #expect(link.hasPrefix(base + "center?token=") && !link.contains(ServerAPITests.token), "\(link)")
            #expect(link.count == (base + "center?token=").count + 64)
            let wrongFile = folder.appendingPathComponent("wrong.token").path
            try "wrong".write(toFile: wrongFile, atomically: true, encoding: .utf8)
            let refused = try await runProgram(unotify, ["server", "center", "--url", base, "--token-file", wrongFile])
            #expect(refused.status != 0 && refused.stdout.isEmpty)
            #expect(refused.stderr.contains("401"), "\(refused.stderr)")

            let screenshot =
                ProcessInfo.processInfo.environment["OPENUN_PUSH_SCREENSHOT"]
                ?? folder.appendingPathComponent("push-statistics.png").path
            let script = Self.fixtures.appendingPathComponent("PushCenterBrowser/push_center_browser.py").path
            let browser = try await runProgram(
                try #require(browserPython),
                [script, link, screenshot, message.id, quiet, tokens[quiet]!, String(plan.count)], timeout: 240)
            #expect(browser.status == 0, "\(browser.stderr)\n\(browser.stdout)")
            #expect(browser.stdout.contains("done"))
            #expect(FileManager.default.fileExists(atPath: screenshot))
            let after = try #require(try await push.statistics(id: message.id))
            #expect(after.opened == before.opened + 1)
        }
        await side.stop()
    }
}
