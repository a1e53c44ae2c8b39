import Foundation
import NotificationModel
import Synchronization
import Testing

@testable import NotificationEngine

/// Adds that arrive while a transaction is written share the next one.
@Suite("Group commit")
struct GroupCommitTests {
    /// A transaction writer that records each batch and holds the first one until released.
    final class Writer: Sendable {
        let batches = Mutex<[[String]]>([])
        let firstStarted = DispatchSemaphore(value: 0)
        let releaseFirst = DispatchSemaphore(value: 0)
        let failing = Mutex<Set<String>>([])

        func write(_ requests: [PendingRequest], cap: Int? = nil) async throws -> [PendingRequest] {
            let isFirst = batches.withLock { batches in
                batches.append(requests.map(\.identifier))
                return batches.count == 1
            }
            if isFirst {
                firstStarted.signal()
                // Held on a thread of its own: the writer task must not block the cooperative pool.
                await offPool { [releaseFirst] in releaseFirst.wait() }
            }
            if requests.contains(where: { failing.withLock { $0 }.contains($0.identifier) }) {
                throw EngineError(.storeFailure, "disk full")
            }
            return requests.filter { $0.identifier.hasPrefix("drop") }
        }
    }

    static func request(_ id: String, app: String = "com.example.app") -> PendingRequest {
        PendingRequest(
            appID: app, spec: RequestSpec(identifier: id, content: NotificationPayload(), trigger: .timeInterval(60, repeats: false)),
            addedAt: Date(timeIntervalSince1970: 0), nextFireDate: Date(timeIntervalSince1970: 60))
    }

    @Test("while one transaction is written, 20 adds wait and then share one; each returns after its own commit")
    func sharesTransactions() async throws {
        let writer = Writer()
        let commit = GroupCommit { try await writer.write($0, cap: $1) }
        let first = Task { try await commit.insert(Self.request("first"), cap: 64) }
        await offPool { writer.firstStarted.wait() }
        let returned = Counter()
        let others = (1...20).map { index in
            Task {
                let result = try await commit.insert(Self.request("r\(index)"), cap: 64)
                returned.increment()
                return result
            }
        }
        // Wait (bounded) until all 20 are queued behind the held transaction: none may have returned meanwhile.
        for _ in 0..<2_000 where commit.waitingCount < 20 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(commit.waitingCount == 20)
        #expect(returned.value == 0)
        writer.releaseFirst.signal()
        _ = try await first.value
        for task in others { _ = try await task.value }
        let batches = writer.batches.withLock { $0 }
        #expect(batches.count == 2)
        #expect(batches.first == ["first"])
        #expect(Set(batches.last ?? []) == Set((1...20).map { "r\($0)" }))
    }

    @Test("a failed transaction fails every add in it, and the next transaction is written")
    func failure() async throws {
        let writer = Writer()
        writer.failing.withLock { $0 = ["bad"] }
        let commit = GroupCommit { try await writer.write($0, cap: $1) }
        let first = Task { try await commit.insert(Self.request("first"), cap: 64) }
        await offPool { writer.firstStarted.wait() }
        let bad = Task { try await commit.insert(Self.request("bad"), cap: 64) }
        let sharing = Task { try await commit.insert(Self.request("shares-with-bad"), cap: 64) }
        for _ in 0..<2_000 where commit.waitingCount < 2 { try await Task.sleep(for: .milliseconds(1)) }
        writer.releaseFirst.signal()
        _ = try await first.value
        await #expect(throws: EngineError.self) { try await bad.value }
        await #expect(throws: EngineError.self) { try await sharing.value }
        _ = try await commit.insert(Self.request("after"), cap: 64)
        #expect(writer.batches.withLock { $0 }.last == ["after"])
    }

    @Test("adds with another cap (a push's none) wait for a transaction of their own, in arrival order")
    func separateCaps() async throws {
        let writer = Writer()
        let commit = GroupCommit { try await writer.write($0, cap: $1) }
        let first = Task { try await commit.insert(Self.request("first"), cap: 64) }
        await offPool { writer.firstStarted.wait() }
        let a = Task { try await commit.insert(Self.request("add-1"), cap: 64) }
        for _ in 0..<2_000 where commit.waitingCount < 1 { try await Task.sleep(for: .milliseconds(1)) }
        let push = Task { try await commit.insert(Self.request("push"), cap: nil) }
        for _ in 0..<2_000 where commit.waitingCount < 2 { try await Task.sleep(for: .milliseconds(1)) }
        let b = Task { try await commit.insert(Self.request("add-2"), cap: 64) }
        for _ in 0..<2_000 where commit.waitingCount < 3 { try await Task.sleep(for: .milliseconds(1)) }
        writer.releaseFirst.signal()
        for task in [first, a, push, b] { _ = try await task.value }
        #expect(writer.batches.withLock { $0 } == [["first"], ["add-1"], ["push"], ["add-2"]])
    }

    @Test("the cap's discards of an app go to the app's last add in the transaction, once")
    func discardsOnce() async throws {
        let writer = Writer()
        let commit = GroupCommit { try await writer.write($0, cap: $1) }
        let first = Task { try await commit.insert(Self.request("first"), cap: 64) }
        await offPool { writer.firstStarted.wait() }
        let a1 = Task { try await commit.insert(Self.request("drop-a", app: "a"), cap: 64) }
        for _ in 0..<2_000 where commit.waitingCount < 1 { try await Task.sleep(for: .milliseconds(1)) }
        let a2 = Task { try await commit.insert(Self.request("keep-a", app: "a"), cap: 64) }
        for _ in 0..<2_000 where commit.waitingCount < 2 { try await Task.sleep(for: .milliseconds(1)) }
        let b = Task { try await commit.insert(Self.request("drop-b", app: "b"), cap: 64) }
        for _ in 0..<2_000 where commit.waitingCount < 3 { try await Task.sleep(for: .milliseconds(1)) }
        writer.releaseFirst.signal()
        _ = try await first.value
        #expect(try await a1.value.isEmpty)
        #expect(try await a2.value.map(\.identifier) == ["drop-a"])
        #expect(try await b.value.map(\.identifier) == ["drop-b"])
    }
}

/// A count shared by tasks.
final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// Runs blocking work off the concurrency pool.
private func offPool(_ body: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            body()
            continuation.resume()
        }
    }
}
