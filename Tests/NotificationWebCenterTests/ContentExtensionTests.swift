import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NotificationEngine
import NotificationModel
@testable import NotificationWebCenter
import Synchronization
import Testing

/// Content extensions: an app's HTML view of a notification in a sandboxed frame with its own policy, the actions
/// below it going to the extension first, whose answer keeps, dismisses, or dismisses and forwards; and bad
/// extensions (too large, not UTF-8, failing, too slow) leaving the plain notification with a note.
@Suite("Web center: content extensions", .timeLimit(.minutes(5)))
struct ContentExtensionTests {
    static let invite = CategorySpec(
        identifier: "invite",
        actions: [
            ActionSpec(identifier: "accept", title: "Accept"),
            ActionSpec(identifier: "comment", title: "Comment", textInput: .init(buttonTitle: "Post", placeholder: "")),
        ])

    /// An in-process extension that draws the title and answers every action with `option`, recording what it got.
    final class RecordingExtension: ContentExtension {
        let option: ContentExtensionResponseOption
        let html: String?
        private let received = Mutex<[ResponseSpec]>([])
        private let drawn = Mutex(0)

        init(option: ContentExtensionResponseOption = .dismissAndForwardAction, html: String? = nil) {
            self.option = option
            self.html = html
        }

        var responses: [ResponseSpec] { received.withLock { $0 } }
        var views: Int { drawn.withLock { $0 } }

        func view(of notification: DeliveredNotification) async throws -> String {
            drawn.withLock { $0 += 1 }
            return html ?? "<h1 style=\"color: teal\">Invite: \(notification.request.content.title)</h1>"
        }

        func answer(_ response: ResponseSpec) async throws -> ContentExtensionResponseOption {
            received.withLock { $0.append(response) }
            return option
        }
    }

    /// A fixture with the chat app's invite category, one delivered invite `i1`, and a running app.
    static func invited() async throws -> (WebCenterFixture, RecordingApp) {
        let fixture = try WebCenterFixture()
        try await fixture.scheduler.setCategories([Self.invite], appID: "com.example.chat")
        try await fixture.deliver("i1", title: "Dinner <Friday>", category: "invite")
        let app = RecordingApp()
        await fixture.scheduler.attach(app, appID: "com.example.chat")
        return (fixture, app)
    }

    static func press(
        _ client: any TestClientProtocol, _ session: BrowserSession, _ action: String, text: String? = nil
    ) async throws -> TestResponse {
        var fields = [("app", "com.example.chat"), ("id", "i1"), ("action", action)]
        if let text { fields.append(("text", text)) }
        return try await client.execute(
            uri: "/delivered/respond", method: .post, headers: session.postHeaders, body: session.form(fields))
    }

    @Test("the view is a sandboxed frame; its route serves the extension's HTML under a policy of its own")
    func frame() async throws {
        let (fixture, _) = try await Self.invited()
        let view = RecordingExtension()
        fixture.center.contentExtensions.register(appID: "com.example.chat", categories: ["invite"], view)
        try await fixture.deliver("plain", title: "No extension here")  // no category: no frame
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let page = String(
                buffer: try await client.execute(uri: "/", method: .get, headers: [.cookie: session.cookie]).body)
            #expect(
                page.contains(
                    "<iframe class=\"extension-view\" sandbox=\"allow-scripts\" src=\"/extension/com.example.chat/i1\"")
            )
            #expect(page.components(separatedBy: "<iframe").count == 2)
            #expect(!page.contains("allow-same-origin"))
            // The category's buttons are drawn below it, as on iOS.
            let frameAt = try #require(page.range(of: "<iframe")), acceptAt = try #require(page.range(of: ">Accept<"))
            #expect(frameAt.lowerBound < acceptAt.lowerBound)
            let frame = try await client.execute(
                uri: "/extension/com.example.chat/i1", method: .get, headers: [.cookie: session.cookie])
            #expect(frame.status == .ok)
            #expect(String(buffer: frame.body) == "<h1 style=\"color: teal\">Invite: Dinner <Friday></h1>")
            let policy = try #require(frame.headers[.contentSecurityPolicy])
            #expect(policy.hasPrefix("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "))
            #expect(policy.contains("sandbox allow-scripts"))
            #expect(policy.contains("frame-ancestors 'self'"))
            #expect(!policy.contains("https:"))
            #expect(!policy.contains("connect-src"))
            #expect(frame.headers[HTTPField.Name("X-Frame-Options")!] == nil)
            // The center's own pages still refuse to be framed.
            let own = try await client.execute(uri: "/", method: .get, headers: [.cookie: session.cookie])
            #expect(own.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
            // Without the secret, no view.
            let stranger = try await client.execute(uri: "/extension/com.example.chat/i1", method: .get)
            #expect(stranger.status == .unauthorized)
            let unknown = try await client.execute(
                uri: "/extension/com.example.chat/plain", method: .get, headers: [.cookie: session.cookie])
            #expect(unknown.status == .notFound)
        }
        // Drawn once for the page and its frame (and live refreshes), not once per request.
        #expect(view.views == 1)
    }

    @Test("an app that declares network gets https: sources in its view's policy")
    func network() async throws {
        let (fixture, _) = try await Self.invited()
        fixture.center.contentExtensions.register(
            appID: "com.example.chat", categories: ["invite"], allowsNetwork: true, RecordingExtension())
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let frame = try await client.execute(
                uri: "/extension/com.example.chat/i1", method: .get, headers: [.cookie: session.cookie])
            let policy = try #require(frame.headers[.contentSecurityPolicy])
            #expect(policy.contains("img-src data: https:"))
            #expect(policy.contains("connect-src https:"))
            #expect(policy.contains("sandbox allow-scripts"))
        }
    }

    @Test("doNotDismiss: the extension hears the action, the notification stays (read), the app hears nothing")
    func doNotDismiss() async throws {
        let (fixture, app) = try await Self.invited()
        let view = RecordingExtension(option: .doNotDismiss)
        fixture.center.contentExtensions.register(appID: "com.example.chat", categories: ["invite"], view)
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            _ = try await client.execute(uri: "/", method: .get, headers: [.cookie: session.cookie])
            let pressed = try await Self.press(client, session, "comment", text: "Can I bring wine?")
            #expect(pressed.status == .seeOther)
            let page = String(
                buffer: try await client.execute(uri: "/", method: .get, headers: [.cookie: session.cookie]).body)
            #expect(page.contains("<article class=\"notification\" data-id=\"i1\">"))  // listed, and read
        }
        #expect(view.responses.map(\.actionIdentifier) == ["comment"])
        #expect(view.responses.first?.userText == "Can I bring wine?")
        #expect(view.responses.first?.notification.identifier == "i1")
        #expect(view.views == 2)  // drawn again after the action, to show what changed
        #expect(app.responses.isEmpty)
        #expect(try await fixture.scheduler.deliveredNotifications(appID: "com.example.chat").count == 1)
    }

    @Test("dismiss: the notification goes, the app hears nothing")
    func dismiss() async throws {
        let (fixture, app) = try await Self.invited()
        let view = RecordingExtension(option: .dismiss)
        fixture.center.contentExtensions.register(appID: "com.example.chat", categories: ["invite"], view)
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            #expect(try await Self.press(client, session, "accept").status == .seeOther)
        }
        #expect(view.responses.map(\.actionIdentifier) == ["accept"])
        #expect(app.responses.isEmpty)
        #expect(try await fixture.scheduler.deliveredNotifications(appID: "com.example.chat").isEmpty)
        #expect(fixture.presenter.withdrawn == ["i1"])
    }

    @Test("dismissAndForwardAction: the notification goes and the app's delegate gets the action, as a desktop click")
    func forward() async throws {
        let (fixture, app) = try await Self.invited()
        let view = RecordingExtension(option: .dismissAndForwardAction)
        fixture.center.contentExtensions.register(appID: "com.example.chat", categories: ["invite"], view)
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            #expect(try await Self.press(client, session, "accept").status == .seeOther)
            // Open goes to the app directly, not through the extension.
        }
        #expect(view.responses.map(\.actionIdentifier) == ["accept"])
        #expect(app.responses.map(\.actionIdentifier) == ["accept"])
        #expect(try await fixture.scheduler.deliveredNotifications(appID: "com.example.chat").isEmpty)
        let history = try await fixture.scheduler.history(appID: "com.example.chat", limit: 5)
        #expect(history.first?.outcome == .action)
    }

    @Test("Open and an unknown action do not reach the extension")
    func openAndUnknown() async throws {
        let (fixture, app) = try await Self.invited()
        let view = RecordingExtension(option: .doNotDismiss)
        fixture.center.contentExtensions.register(appID: "com.example.chat", categories: ["invite"], view)
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            #expect(try await Self.press(client, session, "fly").status == .unprocessableContent)
            #expect(try await Self.press(client, session, ResponseSpec.defaultActionIdentifier).status == .seeOther)
        }
        #expect(view.responses.isEmpty)
        #expect(app.responses.map(\.actionIdentifier) == [ResponseSpec.defaultActionIdentifier])
    }

    @Test("unregistering a session's extension leaves one registered after it by a newer process")
    func unregisterIfStill() async throws {
        let (fixture, _) = try await Self.invited()
        let notification = try #require(
            try await fixture.scheduler.deliveredNotifications(appID: "com.example.chat").first)
        let registry = fixture.center.contentExtensions
        let old = RecordingExtension(), new = RecordingExtension()
        registry.register(appID: "com.example.chat", categories: ["invite"], old)
        registry.register(appID: "com.example.chat", categories: ["invite"], new)
        registry.unregister(appID: "com.example.chat", ifStill: old)
        #expect(await registry.view(of: notification) != nil)
        #expect(new.views == 1 && old.views == 0)
        registry.unregister(appID: "com.example.chat", ifStill: new)
        #expect(await registry.view(of: notification) == nil)
    }

    @Test("a view over the size limit leaves the plain notification with a note, and no frame")
    func tooLarge() async throws {
        let (fixture, _) = try await Self.invited()
        let huge = String(repeating: "x", count: fixture.center.configuration.contentExtensionMaximumSize + 1)
        fixture.center.contentExtensions.register(
            appID: "com.example.chat", categories: ["invite"], RecordingExtension(html: huge))
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let page = String(
                buffer: try await client.execute(uri: "/", method: .get, headers: [.cookie: session.cookie]).body)
            #expect(!page.contains("<iframe"))
            #expect(page.contains("could not draw this notification (it answered more than 262144 bytes)"))
            #expect(page.contains("Dinner &lt;Friday&gt;"))
            let frame = try await client.execute(
                uri: "/extension/com.example.chat/i1", method: .get, headers: [.cookie: session.cookie])
            #expect(frame.status == .notFound)
        }
    }
}

/// Content extensions an app declared as executables (shell scripts here), run one process per call.
@Suite("Web center: content extension executables", .timeLimit(.minutes(5)))
struct ContentExtensionProcessTests {
    /// Writes an executable script into a new temporary folder.
    static func script(_ body: String) throws -> (path: String, folder: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("extension").path
        try ("#!/bin/sh\n" + body).write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return (path, folder)
    }

    /// The Delivered page's HTML with the invite delivered and the script declared as the app's extension.
    static func page(declaring body: String, advancingClock: Bool = false) async throws -> (String, WebCenterFixture) {
        let (path, folder) = try script(body)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (fixture, _) = try await ContentExtensionTests.invited()
        try await fixture.scheduler.setContentExtension(
            ContentExtensionDeclaration(categories: ["invite"], command: [path]), appID: "com.example.chat")
        // The time limit runs on the engine's clock: with `advancingClock`, it moves on (a second every 20 ms,
        // bounded) while the pages load, the first of which (opening the session) asks the extension.
        let ticker = Task {
            let deadline = Date().addingTimeInterval(60)
            while advancingClock, !Task.isCancelled, Date() < deadline {
                fixture.clock.advance(by: 1)
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        defer { ticker.cancel() }
        let html = Shared("")
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            html.set(
                String(
                    buffer: try await client.execute(uri: "/", method: .get, headers: [.cookie: session.cookie]).body))
        }
        return (html.current, fixture)
    }

    @Test("the declared executable draws the view from the notification it reads on standard input")
    func draws() async throws {
        let (html, fixture) = try await Self.page(
            declaring: """
                read -r line
                case "$line" in *'"view"'*'"Dinner <Friday>"'*) ;; *) exit 4 ;; esac
                printf '<p>%s draws Dinner</p>' "$OPENUN_BUNDLE_ID"
                """)
        #expect(html.contains("<iframe class=\"extension-view\""), "\(html)")
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            _ = try await client.execute(uri: "/", method: .get, headers: [.cookie: session.cookie])
            let frame = try await client.execute(
                uri: "/extension/com.example.chat/i1", method: .get, headers: [.cookie: session.cookie])
            #expect(String(buffer: frame.body) == "<p>com.example.chat draws Dinner</p>")
        }
    }

    @Test("an executable that answers bytes that are not UTF-8 leaves the plain notification with a note")
    func notUTF8() async throws {
        let (html, _) = try await Self.page(declaring: "cat >/dev/null\nprintf '<p>\\377\\376</p>'\n")
        #expect(!html.contains("<iframe"))
        #expect(html.contains("(it answered bytes that are not UTF-8)"), "\(html)")
    }

    @Test("an executable that fails leaves the plain notification with a note naming its status and error")
    func fails() async throws {
        let (html, _) = try await Self.page(declaring: "cat >/dev/null\necho 'no database' >&2\nexit 3\n")
        #expect(!html.contains("<iframe"))
        #expect(html.contains("(it exited with status 3: no database)"), "\(html)")
    }

    @Test("an executable that answers too much is stopped and noted")
    func tooMuch() async throws {
        let (html, _) = try await Self.page(declaring: "cat >/dev/null\nexec yes '<p>again</p>'\n")
        #expect(!html.contains("<iframe"))
        #expect(html.contains("(it answered more than 262144 bytes)"), "\(html)")
    }

    @Test("an executable that does not answer in time is killed; the plain notification shows with a note")
    func timesOut() async throws {
        let (html, _) = try await Self.page(declaring: "exec sleep 120\n", advancingClock: true)
        #expect(!html.contains("<iframe"))
        #expect(html.contains("(it did not answer within 10 s)"), "\(html)")
        #expect(html.contains("Dinner &lt;Friday&gt;"))
    }

    @Test("the executable answers an action: dismiss removes the notification without telling the app")
    func answersAction() async throws {
        let (path, folder) = try Self.script(
            """
            read -r line
            case "$line" in
              *'"response"'*'"accept"'*) printf 'dismiss\\n' ;;
              *'"view"'*) printf '<p>view</p>' ;;
              *) exit 5 ;;
            esac
            """)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (fixture, app) = try await ContentExtensionTests.invited()
        try await fixture.scheduler.setContentExtension(
            ContentExtensionDeclaration(categories: ["invite"], command: [path]), appID: "com.example.chat")
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            #expect(try await ContentExtensionTests.press(client, session, "accept").status == .seeOther)
        }
        #expect(app.responses.isEmpty)
        #expect(try await fixture.scheduler.deliveredNotifications(appID: "com.example.chat").isEmpty)
    }

    @Test("an executable that answers an action with nonsense counts as dismissAndForwardAction: the app gets it")
    func badAnswerForwards() async throws {
        let (path, folder) = try Self.script("cat >/dev/null\nprintf 'maybe'\n")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (fixture, app) = try await ContentExtensionTests.invited()
        try await fixture.scheduler.setContentExtension(
            ContentExtensionDeclaration(categories: ["invite"], command: [path]), appID: "com.example.chat")
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            #expect(try await ContentExtensionTests.press(client, session, "accept").status == .seeOther)
        }
        #expect(app.responses.map(\.actionIdentifier) == ["accept"])
    }

    @Test("a declaration needs a category and an absolute command")
    func declarationChecked() async throws {
        let fixture = try WebCenterFixture()
        await #expect(throws: EngineError.self) {
            try await fixture.scheduler.setContentExtension(
                ContentExtensionDeclaration(categories: [], command: ["/bin/true"]), appID: "com.example.chat")
        }
        await #expect(throws: EngineError.self) {
            try await fixture.scheduler.setContentExtension(
                ContentExtensionDeclaration(categories: ["invite"], command: ["relative"]), appID: "com.example.chat")
        }
        try await fixture.scheduler.setContentExtension(
            ContentExtensionDeclaration(categories: ["invite"], command: ["/bin/true"], allowsNetwork: true),
            appID: "com.example.chat")
        let stored = try await fixture.scheduler.store.contentExtension(appID: "com.example.chat")
        #expect(
            stored == ContentExtensionDeclaration(categories: ["invite"], command: ["/bin/true"], allowsNetwork: true))
        try await fixture.scheduler.setContentExtension(nil, appID: "com.example.chat")
        #expect(try await fixture.scheduler.store.contentExtension(appID: "com.example.chat") == nil)
    }
}
