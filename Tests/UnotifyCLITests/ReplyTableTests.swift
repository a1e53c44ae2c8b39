import Foundation
import NotificationWire
import Synchronization
import Testing

@testable import NotificationClient

/// The table of requests waiting for their replies, shared by the connection's actor, its adds sent without the actor
/// and the event loop's reply router.
@Suite("Reply table", .timeLimit(.minutes(5)))
struct ReplyTableTests {
    /// Registers `id` and returns its outcome once resumed.
    static func waitFor(
        _ id: UInt64, in table: ReplyTable, deadline: ContinuousClock.Instant, requiringLink: Bool,
        registered: @escaping @Sendable (ReplyTable.Registration) -> Void
    ) async -> Result<WireReply, any Error> {
        do {
            return .success(
                try await withCheckedThrowingContinuation { continuation in
                    let registration = table.register(
                        id, continuation, deadline: deadline, requiringLink: requiringLink)
                    if case .notConnected = registration { continuation.resume(throwing: CancellationError()) }
                    registered(registration)
                })
        } catch {
            return .failure(error)
        }
    }

    @Test("without a live link a request that needs one is not registered; the actor's are, and one watch starts")
    func registration() async throws {
        let table = ReplyTable()
        let outcomes = RegistrationLog()
        let far = ContinuousClock.now + .seconds(600)
        let refused = await Self.waitFor(1, in: table, deadline: far, requiringLink: true) { outcomes.append($0) }
        #expect(throws: CancellationError.self) { try refused.get() }
        let first = Task {
            await Self.waitFor(2, in: table, deadline: far, requiringLink: false) { outcomes.append($0) }
        }
        let second = Task {
            await Self.waitFor(3, in: table, deadline: far, requiringLink: false) { outcomes.append($0) }
        }
        try await waitUntil { outcomes.count == 3 }
        // The first registration starts the watch, the second finds it running.
        #expect(outcomes.startedWatches == 1)
        table.resume(2, with: .success(.done))
        table.resume(3, with: .failure(WireFailure(code: "storeFailure", message: "disk full")))
        #expect(try await first.value.get() == .done)
        await #expect(throws: WireFailure.self) { try await second.value.get() }
        // A reply for nobody (timed out, or a repeated id) is dropped.
        table.resume(3, with: .success(.done))
        // Nothing waits: the watch ends, and the next registration starts a new one.
        #expect(table.earliestDeadline() == nil)
        let third = Task {
            await Self.waitFor(4, in: table, deadline: far, requiringLink: false) { outcomes.append($0) }
        }
        try await waitUntil { outcomes.count == 4 }
        #expect(outcomes.startedWatches == 2)
        table.failAll(WireFailure(code: "unavailable", message: "lost"))
        await #expect(throws: WireFailure.self) { try await third.value.get() }
    }

    @Test("a time-out fails the requests past their deadline only")
    func timeOut() async throws {
        let table = ReplyTable()
        let outcomes = RegistrationLog()
        let now = ContinuousClock.now
        let early = Task {
            await Self.waitFor(1, in: table, deadline: now, requiringLink: false) { outcomes.append($0) }
        }
        let late = Task { await Self.waitFor(2, in: table, deadline: now + .seconds(600), requiringLink: false) {
                outcomes.append($0)
            }
        }
        try await waitUntil { outcomes.count == 2 }
        #expect(table.earliestDeadline() == now)
        table.timeOut(at: now, WireFailure(code: "unavailable", message: "no answer"))
        await #expect(throws: WireFailure.self) { try await early.value.get() }
        #expect(table.earliestDeadline() == now + .seconds(600))
        table.resume(2, with: .success(.done))
        #expect(try await late.value.get() == .done)
    }

    /// Waits (at most 20 s) until `condition` holds.
    func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        #expect(condition())
    }
}

/// The registrations a test saw.
final class RegistrationLog: Sendable {
    /// Whether each registration started the watch; `nil` for a refusal.
    private let entries = Mutex<[Bool?]>([])

    func append(_ registration: ReplyTable.Registration) {
        let startWatch: Bool? = if case .registered(_, let startWatch) = registration { startWatch } else { nil }
        entries.withLock { $0.append(startWatch) }
    }

    /// Registrations and refusals seen.
    var count: Int { entries.withLock { $0.count } }
    var startedWatches: Int { entries.withLock { $0.count { $0 == true } } }
}
