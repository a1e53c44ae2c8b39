import Foundation
import NotificationDaemon
import NotificationEngine
import NotificationModel
import NotificationServer
import NotificationStorePostgres
import OpenUserNotificationsTesting
import PostgresNIO
import PostgresTestServer

/// The configuration of a new, empty database on the test process's PostgreSQL server.
func freshDatabase() async throws -> PostgresClient.Configuration {
    let server = try await PostgresTestServer.shared()
    return PostgresClient.Configuration(
        unixSocketPath: server.socketPath, username: server.user, password: nil,
        database: try await server.makeDatabase())
}

/// Runs `body` with a device scheduler over a new database: its engine on a manual clock at 2026-11-26 12:00 UTC, no
/// delivery loop (it only adds).
func withDeviceScheduler<T: Sendable>(
    _ body: @escaping @Sendable (PostgresNotificationStore, DeviceScheduler) async throws -> T
) async throws -> T {
    let configuration = try await freshDatabase()
    return try await PostgresNotificationStore.withStore(configuration: configuration) { store in
        let clock = ManualNotificationClock(now: instant("2026-11-26T12:00:00Z"), timeZone: TimeZone(identifier: "UTC")!)
        let scheduler = NotificationScheduler(store: store, clock: clock, presenter: NoPresenter())
        return try await body(store, DeviceScheduler(store: store, scheduler: scheduler))
    }
}

/// A registration with a fixed token per identifier.
func registration(_ id: String, zone: String, token: String? = nil) -> DeviceRegistration {
    let digits = String(id.utf8.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }, radix: 16)
    let hex = token ?? String((String(repeating: "0", count: 64) + digits).suffix(64))
    return DeviceRegistration(
        id: id, token: hex, topic: "com.example.app", environment: .development, timeZoneIdentifier: zone,
        localeIdentifier: "en_US")
}

/// A request with its identifier as title.
func spec(_ id: String, _ trigger: TriggerSpec?) -> RequestSpec {
    var content = NotificationPayload()
    content.title = id
    content.body = "body of \(id)"
    return RequestSpec(identifier: id, content: content, trigger: trigger)
}

/// Daily floating calendar components at `hour:minute`.
func daily(_ hour: Int, _ minute: Int) -> TriggerSpec {
    var components = CalendarComponents()
    (components.hour, components.minute) = (hour, minute)
    return .calendar(components, repeats: true, matching: .apple)
}

/// `2026-03-08T07:00:00Z` as a date.
func instant(_ iso: String) -> Date {
    try! Date(iso, strategy: .iso8601)
}

/// A presenter for an engine that only adds requests.
struct NoPresenter: NotificationPresenter {
    let name = "none"
    func present(_ notification: DeliveredNotification, options: PresentationSet, category: CategorySpec?) async {}
    func withdraw(appID: String, identifiers: [String]) async {}
    func badgeDidChange(appID: String, count: Int) async {}
}

/// Parses `unotifyd` arguments that must fail validation.
enum ValidationErrorProbe {
    static func error(_ arguments: [String]) -> (any Error)? {
        do {
            _ = try DaemonOptions.parse(arguments)
            return nil
        } catch {
            return error
        }
    }
}
