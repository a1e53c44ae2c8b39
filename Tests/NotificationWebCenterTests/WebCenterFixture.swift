import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NotificationEngine
import NotificationModel
import NotificationStoreSQLite
import NotificationWebCenter
import OpenUserNotificationsTesting
import Synchronization

/// An engine on an in-memory store with a manual clock, the relay a desktop presenter would use, and a web center
/// over both, with helpers for a browser's requests.
struct WebCenterFixture {
    let clock = ManualNotificationClock(now: Date(timeIntervalSince1970: 1_767_603_600))
    let presenter = RecordingPresenter()
    let scheduler: NotificationScheduler
    let relay = ResponseRelay()
    let secret = WebCenterSecret.random()
    let center: WebCenter
    let attachmentRoot: String

    /// - Parameters:
    ///   - maximumBodySize: The center's body limit.
    ///   - storePath: A SQLite file for the store (a daemon's durable store); `nil` for an in-memory one.
    init(maximumBodySize: Int = 64 * 1024, storePath: String? = nil) throws {
        attachmentRoot =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("webcenter-\(UUID().uuidString)").path
        var engine = EngineConfiguration(pendingCap: nil)
        engine.attachmentStoreRoot = attachmentRoot
        scheduler = NotificationScheduler(
            store: try storePath.map { try SQLiteNotificationStore(path: $0) } ?? SQLiteNotificationStore(),
            clock: clock, presenter: presenter, configuration: engine)
        relay.connect(scheduler)
        var configuration = WebCenterConfiguration(address: try WebCenterAddress(parsing: "127.0.0.1:0"))
        configuration.maximumBodySize = maximumBodySize
        configuration.attachmentStoreRoot = attachmentRoot
        center = WebCenter(scheduler: scheduler, relay: relay, secret: secret, configuration: configuration)
    }

    /// Closes a file store (its descriptors); an in-memory one is left to be freed.
    func close() throws {
        try (scheduler.store as? SQLiteNotificationStore)?.close()
    }

    /// Runs `body` against the center's router in-process.
    func test(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let application = Application(router: center.router())
        try await application.test(.router) { client in try await body(client) }
    }

    /// Delivers a notification now: adds it with no trigger and runs one pass of the engine.
    func deliver(
        _ identifier: String, app: String = "com.example.chat", title: String = "Title", body: String = "Body",
        category: String = "", thread: String = "", attachments: [AttachmentSpec] = []
    ) async throws {
        try await scheduler.setAuthorization(appID: app, status: .authorized, options: [.alert, .sound, .badge])
        var content = NotificationPayload()
        content.title = title
        content.body = body
        content.categoryIdentifier = category
        content.threadIdentifier = thread
        content.attachments = attachments
        try await scheduler.add(
            RequestSpec(identifier: identifier, content: content, trigger: .timeInterval(1, repeats: false)), appID: app
        )
        clock.advance(by: 1)
        await scheduler.deliverDue()
    }
}

/// A browser's session with the center: its cookie and the CSRF token the pages carry.
struct BrowserSession {
    var cookie: String
    var csrfToken: String

    /// Opens the link `unotify center` prints and reads the CSRF token off the page it redirects to.
    static func open(_ client: any TestClientProtocol, secret: WebCenterSecret) async throws -> BrowserSession {
        let redirect = try await client.execute(uri: "/?token=\(secret.hex)", method: .get)
        guard redirect.status == .seeOther, let setCookie = redirect.headers[.setCookie],
            let pair = setCookie.split(separator: ";").first
        else { throw FixtureError("no session cookie: \(redirect.status) \(redirect.headers)") }
        let cookie = String(pair)
        let page = try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie])
        let html = String(buffer: page.body)
        guard let range = html.range(of: "<meta name=\"csrf-token\" content=\""),
            let end = html[range.upperBound...].firstIndex(of: "\"")
        else { throw FixtureError("no CSRF token on the page") }
        return BrowserSession(cookie: cookie, csrfToken: String(html[range.upperBound..<end]))
    }

    /// Headers a same-origin form POST from the center's own page has.
    var postHeaders: HTTPFields {
        [
            .cookie: cookie, .contentType: "application/x-www-form-urlencoded",
            HTTPField.Name("Origin")!: "http://localhost", HTTPField.Name("Sec-Fetch-Site")!: "same-origin",
        ]
    }

    /// A form body with this session's CSRF token first.
    func form(_ fields: [(String, String)]) -> ByteBuffer {
        let all = [("csrf", csrfToken)] + fields
        return ByteBuffer(string: all.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&"))
    }

    private func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// A test app's process: records the responses its delegate's `didReceive` gets.
final class RecordingApp: ForegroundApp {
    private let received = Mutex<[ResponseSpec]>([])

    var responses: [ResponseSpec] { received.withLock { $0 } }

    func willPresent(_ notification: DeliveredNotification) async -> PresentationSet? { [.banner, .list] }

    func didReceive(_ response: ResponseSpec) async -> Bool {
        received.withLock { $0.append(response) }
        return true
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A value several tasks and callbacks share, behind a lock.
final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ value: Value) {
        self.value = Mutex(value)
    }

    var current: Value { value.withLock { $0 } }

    func set(_ newValue: Value) { value.withLock { $0 = newValue } }

    func update(_ change: @Sendable (inout Value) -> Void) { value.withLock { change(&$0) } }
}
