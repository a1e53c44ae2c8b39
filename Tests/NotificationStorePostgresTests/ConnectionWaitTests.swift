import Foundation
import NotificationEngine
import NotificationStorePostgres
import PostgresNIO
import Testing

/// A store whose server cannot be reached fails its calls after its connection wait, not after the minute
/// PostgresNIO's pool waits before it gives up on connecting.
@Suite("PostgreSQL store's connection wait", .timeLimit(.minutes(2)))
struct ConnectionWaitTests {
    @Test("with no server behind the socket, a read and a transaction each fail with storeFailure after the connection wait")
    func unreachableServer() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("no-postgres-\(UUID().uuidString)")
        let configuration = PostgresClient.Configuration(
            unixSocketPath: folder.path + "/.s.PGSQL.5432", username: "nobody", password: nil, database: "none")
        let store = PostgresNotificationStore(configuration: configuration, connectionWait: .milliseconds(500))
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await store.run() }
            defer { group.cancelAll() }
            for call in [Self.read, Self.write] {
                let started = ContinuousClock.now
                let error = await #expect(throws: EngineError.self) { try await call(store) }
                let waited = ContinuousClock.now - started
                #expect(error?.code == .storeFailure)
                #expect(error?.message.contains("no connection within") == true, "\(String(describing: error))")
                #expect(waited >= .milliseconds(500) && waited < .seconds(30), "waited \(waited)")
            }
        }
    }

    static func read(_ store: PostgresNotificationStore) async throws { _ = try await store.pendingCount() }

    static func write(_ store: PostgresNotificationStore) async throws { try await store.migrate() }
}
