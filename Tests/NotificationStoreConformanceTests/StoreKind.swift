import Foundation
import NotificationEngine
import NotificationStorePostgres
import NotificationStoreSQLite
import PostgresNIO
import PostgresTestServer
import Testing

/// The stores the conformance suite holds to the same behaviour; every test runs once per kind.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// An in-memory SQLite store.
    case sqlite
    /// A PostgreSQL store on a fresh database of the test process's throwaway server.
    case postgres

    var testDescription: String { rawValue }

    /// Runs `body` with a new, empty store of this kind.
    func withStore(_ body: (any NotificationStore) async throws -> Void) async throws {
        switch self {
        case .sqlite:
            try await body(try SQLiteNotificationStore())
        case .postgres:
            try await PostgresNotificationStore.withStore(configuration: try await Self.freshDatabase()) { store in
                try await body(store)
            }
        }
    }

    /// The configuration of a new, empty database on the test process's PostgreSQL server.
    static func freshDatabase() async throws -> PostgresClient.Configuration {
        let server = try await PostgresTestServer.shared()
        return PostgresClient.Configuration(
            unixSocketPath: server.socketPath, username: server.user, password: nil,
            database: try await server.makeDatabase())
    }
}
