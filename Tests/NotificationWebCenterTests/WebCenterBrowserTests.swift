import Foundation
import NotificationEngine
import NotificationModel
import NotificationStoreSQLite
import NotificationWebCenter
import OpenUserNotificationsTesting
import Testing
import TestPrograms

/// The center in headless Chromium, driven by Selenium (Tests/Fixtures/WebCenterBrowser/center_browser.py): pages
/// checked against the store, a live delivery, an action and a reply that reach the test app's delegate, a removal.
///
/// Screenshots go to a temporary folder, or to `OPENUN_WEB_SCREENSHOTS` (docs/images when the docs' pictures are
/// made again).
@Suite(
    "Web center in Chromium",
    .enabled(
        if: browserPython != nil, "run scripts/test once (chromium, chromium-driver, selenium) or set OPENUN_PYTHON"),
    .timeLimit(.minutes(6)))
struct WebCenterBrowserTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    @Test(
        "a person opens the link, reads every page, sees a delivery arrive live, presses an action, replies, searches and snoozes"
    )
    func personInChromium() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wc-browser-\(UUID().uuidString)")
        let attachments = folder.appendingPathComponent("attachments").path
        try FileManager.default.createDirectory(
            atPath: attachments + "/com.example.photos/p1", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = attachments + "/com.example.photos/p1/sunrise.png"
        try FileManager.default.copyItem(
            atPath: Self.fixtures.appendingPathComponent("Images/sunrise.png").path, toPath: image)

        var engine = EngineConfiguration(pendingCap: nil)
        engine.attachmentStoreRoot = attachments
        let clock = SystemNotificationClock(timeZone: { TimeZone(identifier: "Europe/Paris")! })
        let scheduler = NotificationScheduler(
            store: try SQLiteNotificationStore(), clock: clock, presenter: RecordingPresenter(), configuration: engine)
        let relay = ResponseRelay()
        relay.connect(scheduler)
        let chat = "com.example.chat"
        try await scheduler.setCategories(
            [
                CategorySpec(
                    identifier: "message",
                    actions: [
                        ActionSpec(identifier: "like", title: "Like"),
                        ActionSpec(
                            identifier: "reply", title: "Reply",
                            textInput: .init(buttonTitle: "Send", placeholder: "Message")),
                    ]),
                CategorySpec(identifier: "invite", actions: [ActionSpec(identifier: "accept", title: "Accept")]),
            ], appID: chat)
        for app in [chat, "com.example.photos"] {
            try await scheduler.setAuthorization(appID: app, status: .authorized, options: [.alert, .sound, .badge])
        }
        func request(
            _ id: String, _ title: String, _ body: String, thread: String = "", trigger: TriggerSpec? = nil,
            attachment: String? = nil, category: String = "message"
        ) -> RequestSpec {
            var content = NotificationPayload()
            content.title = title
            content.body = body
            content.categoryIdentifier = category
            content.threadIdentifier = thread
            if let attachment {
                content.attachments = [
                    AttachmentSpec(identifier: "sunrise", url: URL(fileURLWithPath: attachment), type: "public.png")
                ]
            }
            return RequestSpec(identifier: id, content: content, trigger: trigger)
        }
        try await scheduler.add(request("n1", "Lunch at noon?", "Anna: the usual place?", thread: "anna"), appID: chat)
        try await scheduler.add(request("n2", "Build finished", "Ben: can you review it?", thread: "ben"), appID: chat)
        try await scheduler.add(
            request("hostile", "<img src=x onerror=window.hacked=1>", "<script>alert('x')</script>"), appID: chat)
        try await scheduler.add(
            request("photo", "Sunrise", "A new photo", attachment: image), appID: "com.example.photos")
        try await scheduler.add(
            request("invite1", "Dinner on Friday?", "Anna invites you", category: "invite"), appID: chat)
        try await scheduler.add(
            request(
                "standup", "Stand-up", "Daily",
                trigger: .calendar(
                    CalendarComponents(DateComponents(hour: 9, minute: 30)), repeats: true, matching: .apple)),
            appID: chat)
        try await scheduler.add(
            request("water", "Drink water", "", trigger: .timeInterval(7_200, repeats: true)), appID: chat)
        await scheduler.deliverDue()
        let app = RecordingApp()
        await scheduler.attach(app, appID: chat)

        var configuration = WebCenterConfiguration(address: try WebCenterAddress(parsing: "127.0.0.1:0"))
        configuration.attachmentStoreRoot = attachments
        configuration.eventPollInterval = 0.2
        let center = WebCenter(scheduler: scheduler, relay: relay, secret: .random(), configuration: configuration)
        let invite = BrowserInviteView()
        center.contentExtensions.register(appID: chat, categories: ["invite"], invite)
        let baseURL = Shared<String?>(nil)
        let server = Task { try await center.run { url in baseURL.set(url) } }
        defer { server.cancel() }
        let loop = Task { await scheduler.run() }
        defer { loop.cancel() }
        let deadline = Date().addingTimeInterval(30)
        while baseURL.current == nil {
            try #require(Date() < deadline, "the center did not start")
            try await Task.sleep(for: .milliseconds(20))
        }
        let link = try #require(baseURL.current) + "?token=" + center.secret.hex

        let shots = ProcessInfo.processInfo.environment["OPENUN_WEB_SCREENSHOTS"] ?? folder.path
        let script = Self.fixtures.appendingPathComponent("WebCenterBrowser/center_browser.py").path
        let browser = try LineReadingProcess(try #require(browserPython), [script, link, shots])
        defer { browser.kill() }
        try #require(
            await browser.waitForLine("loaded", upTo: 240), "the browser did not load the pages:\n\(browser.errors)")
        // A delivery now: the open page must show it without a reload.
        try await scheduler.add(request("live1", "Arrived live", "Delivered while the page was open"), appID: chat)
        try #require(await browser.waitForLine("done", upTo: 240), "the browser did not finish:\n\(browser.errors)")
        #expect(await browser.exitStatus() == 0, "\(browser.errors)")

        let responses = app.responses
        #expect(responses.map(\.actionIdentifier) == ["like", "reply", "accept"])
        #expect(invite.answered == ["accept"])
        #expect(responses.first { $0.actionIdentifier == "reply" }?.userText == "On my way")
        #expect(try await scheduler.pendingRequests(appID: chat).map(\.identifier) == ["water"])
        let snoozed = try await scheduler.pendingRequests(appID: "com.example.photos")
        #expect(snoozed.map(\.identifier) == ["photo.snoozed"])
        #expect(try await scheduler.deliveredNotifications(appID: "com.example.photos").isEmpty)
        #expect(FileManager.default.fileExists(atPath: image), "the snoozed copy's attachment was deleted")
        #expect(FileManager.default.fileExists(atPath: shots + "/web-center-delivered.png"))
    }
}

/// The content extension of the Chromium test: a view with inline style and script, and Accept forwarded to the app.
final class BrowserInviteView: ContentExtension {
    private let received = Shared<[String]>([])

    var answered: [String] { received.current }

    func view(of notification: DeliveredNotification) async throws -> String {
        """
        <body style="margin: 0; font: 15px system-ui, sans-serif; background: linear-gradient(90deg, #fdf2e9, #e8f4fd)">
        <div style="padding: 10px 14px"><h2 style="margin: 0 0 4px; color: #b3541e">\(notification.request.content.title)</h2>
        <p style="margin: 0">Drawn by the app's content extension: 3 going, 19:00 at Anna's.</p></div>
        <script>document.body.dataset.ran = "yes";</script></body>
        """
    }

    func answer(_ response: ResponseSpec) async throws -> ContentExtensionResponseOption {
        received.update { $0.append(response.actionIdentifier) }
        return response.actionIdentifier == "accept" ? .dismissAndForwardAction : .doNotDismiss
    }
}

/// A child process whose standard output is read line by line as it arrives.
final class LineReadingProcess: Sendable {
    private let process: TestProcess
    private let output = Shared("")
    private let errorText = Shared("")

    init(_ executable: String, _ arguments: [String]) throws {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        self.process = process
        out.fileHandleForReading.readToEnd { [output] data in
            output.update { $0 += String(decoding: data, as: UTF8.self) }
        }
        err.fileHandleForReading.readToEnd { [errorText] data in
            errorText.update { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
    }

    var errors: String { errorText.current + "\nstdout: " + output.current }

    /// Waits (bounded) until the process printed `line`; `false` when it did not in time or exited first.
    func waitForLine(_ line: String, upTo seconds: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if output.current.split(separator: "\n").contains(Substring(line)) { return true }
            if !process.isRunning { return output.current.split(separator: "\n").contains(Substring(line)) }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Waits for the process to end, off the concurrency pool, and returns its status.
    func exitStatus() async -> Int32 {
        await process.exited()
        return process.terminationStatus
    }

    func kill() {
        if process.isRunning { process.terminate() }
    }
}
