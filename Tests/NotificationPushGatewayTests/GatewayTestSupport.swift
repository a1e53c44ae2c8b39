import Foundation
import NotificationEngine
import NotificationModel
import NotificationPush
import NotificationPushGateway
import OpenUserNotifications
import OpenUserNotificationsTesting
import Synchronization
import Testing
import TestPrograms

/// The app every test pushes to.
let testAppID = "com.example.gateway"

/// A notification system with a registered device token and an APNs endpoint on an ephemeral loopback port.
final class EndpointFixture: Sendable {
    let system: NotificationTestSystem
    let token: DeviceToken
    let endpoint: APNsEndpoint
    let port: Int

    /// Starts an endpoint whose gateway takes `environment`'s tokens; `adjust` edits its configuration (TLS, provider
    /// tokens, limits) first.
    init(
        environment: PushEnvironment = .development, adjust: (inout APNsEndpointConfiguration) -> Void = { _ in }
    ) async throws {
        system = try NotificationTestSystem(
            configuration: OpenUserNotificationsConfiguration(deliveryLanguages: { ["en"] }))
        _ = try await system.center(for: testAppID)
        token = try await system.scheduler.registerForRemoteNotifications(appID: testAppID).token
        var configuration = APNsEndpointConfiguration(address: APNsEndpointAddress(host: "127.0.0.1", port: 0))
        adjust(&configuration)
        endpoint = APNsEndpoint(
            configuration: configuration, gateway: PushGateway(scheduler: system.scheduler, environment: environment))
        port = try await endpoint.start()
    }

    var url: String { "http://127.0.0.1:\(port)/3/device/\(token.hex)" }

    /// Bodies the presenter showed.
    var shown: [String] { system.presenter.presentations.map(\.body) }
}

/// A value shared by concurrent tasks.
final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
    func update<R: Sendable>(_ body: (inout Value) -> R) -> R { value.withLock { body(&$0) } }
    var current: Value { value.withLock { $0 } }
}

/// One HTTP response as curl printed it with `-D -`.
struct CurlResponse: Sendable {
    var httpVersion: String
    var status: Int
    var headers: [String: String]
    var body: String

    /// The `reason` of a JSON error body.
    var reason: String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else {
            return nil
        }
        return object["reason"] as? String
    }
}

/// Runs curl with `-s -D -` and parses the status line, headers and body. curl gets two minutes: the whole suite on
/// two loaded cores has made an answer take over 30 s.
func curl(_ arguments: [String]) async throws -> CurlResponse {
    let result = try await runProgram("/usr/bin/curl", ["-s", "-S", "-D", "-", "-o", "-"] + arguments, timeout: 120)
    try #require(result.status == 0, "curl \(arguments) exited with \(result.status) (9: killed after 120 s): \(result.stderr)")
    let text = result.stdout
    let split = try #require(text.range(of: "\r\n\r\n"), "no header end in \(text)")
    let lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
    let statusLine = lines[0].split(separator: " ")
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return CurlResponse(
        httpVersion: String(statusLine[0]), status: Int(statusLine[1]) ?? 0, headers: headers,
        body: String(text[split.upperBound...]))
}

/// Whether a text is a lowercase canonical UUID, as the apns-id header carries it.
func isLowercaseUUID(_ text: String) -> Bool {
    text.utf8.count == 36 && UUID(uuidString: text) != nil && text == text.lowercased()
}

/// The python the client tests run: `OPENUN_PYTHON` when it names one, else the virtual environment `scripts/test`
/// makes with httpx[http2], aioapns, pyjwt and cryptography, `${XDG_CACHE_HOME:-~/.cache}/openusernotifications/
/// test-python`, when it exists; `nil` skips the tests.
let testPython: String? = {
    let environment = ProcessInfo.processInfo.environment
    if let given = environment["OPENUN_PYTHON"], !given.isEmpty {
        return FileManager.default.isExecutableFile(atPath: given) ? given : nil
    }
    let cache =
        environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.cache")
    let venv = cache + "/openusernotifications/test-python/bin/python"
    return FileManager.default.isExecutableFile(atPath: venv) ? venv : nil
}()
