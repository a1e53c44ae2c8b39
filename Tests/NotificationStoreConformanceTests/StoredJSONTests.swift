import Foundation
import GRDB
import NotificationEngine
import NotificationModel
import NotificationStorePostgres
import PostgresNIO
import Testing

@testable import NotificationStoreSQLite

@Suite("Stored JSON")
struct StoredJSONTests {
    @Test("both stores hold the same JSON bytes for a request's spec and a floating plan's trigger")
    func sameBytes() async throws {
        var content = NotificationPayload()
        content.title = "Stand-up"
        content.body = "Room 4"
        content.userInfo = ["n": .integer(3), "who": .array([.string("a"), .string("b")])]
        let spec = RequestSpec(
            identifier: "standup", content: content,
            trigger: .calendar(CalendarComponents(DateComponents(hour: 9, weekday: 2)), repeats: true, matching: .apple)
        )
        let request = PendingRequest(
            appID: "com.example.app", spec: spec, addedAt: Date(timeIntervalSince1970: 1_767_603_600.25),
            nextFireDate: Date(timeIntervalSince1970: 1_767_600_000))

        let sqlite = try SQLiteNotificationStore()
        _ = try await sqlite.insertPending(request, cap: nil, at: request.addedAt)
        let (sqliteSpec, sqliteTrigger) = try await sqlite.writer.read { db in
            (
                try Data.fetchOne(db, sql: "SELECT spec FROM pending")!,
                try Data.fetchOne(db, sql: "SELECT trigger FROM floatingPlan")!
            )
        }

        let configuration = try await StoreKind.freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            _ = try await store.insertPending(request, cap: nil, at: request.addedAt)
        }
        let client = PostgresClient(configuration: configuration, backgroundLogger: Logger(label: "test"))
        let (postgresSpec, postgresTrigger) = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            var spec = Data()
            for try await value in try await client.query("SELECT spec FROM pending").decode(Data.self) { spec = value }
            var trigger = Data()
            for try await value in try await client.query("SELECT trigger FROM floating_plan").decode(Data.self) {
                trigger = value
            }
            return (spec, trigger)
        }
        #expect(!sqliteSpec.isEmpty && !sqliteTrigger.isEmpty)
        #expect(postgresSpec == sqliteSpec)
        #expect(postgresTrigger == sqliteTrigger)
    }
}
