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

        let denied = Mutex<Set<String>>([])

        func write(_ requests: [PendingRequest], kind: GroupCommit.Kind) async throws -> PendingBatchInsertion {
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
            let denied = kind.refusesDenied ? denied.withLock { $0 }.intersection(requests.map(\.appID)) : []
            let discarded = requests.filter { $0.identifier.hasPrefix("drop") && !denied.contains($0.appID) }
            return PendingBatchInsertion(discarded: discarded, deniedAppIDs: denied)
        }
    }

    /// An add's kind (a cap, denied apps refused) and a push's (neither).
    static let add = GroupCommit.Kind(cap: 64, refusesDenied: true)
    static let push = GroupCommit.Kind(cap: nil, refusesDenied: false)

    static func request(_ id: String, app: String = "com.example.app") -> PendingRequest {
        PendingRequest(
            appID: app, spec: RequestSpec(identifier: id, content: NotificationPayload(), trigger: .timeInterval(60, repeats: false)),
            addedAt: Date(timeIntervalSince1970: 0), nextFireDate: Date(timeIntervalSince1970: 60))
    }

    @Test("while one transaction is written, 20 adds wait and then share one; each returns after its own commit")
    func sharesTransactions() async throws {
        let writer = Writer()
        let commit = GroupCommit { try await writer.write($0, kind: $1) }
        let first = Task { try await commit.insert(Self.request("first"), kind: Self.add) }
        await offPool { writer.firstStarted.wait() }
        let returned = Counter()
        let others = (1...20).map { index in
            Task {
                let result = try await commit.insert(Self.request("r\(index)"), kind: Self.add)
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
        let commit = GroupCommit { try await writer.write($0, kind: $1) }
        let first = Task { try await commit.insert(Self.request("first"), kind: Self.add) }
        await offPool { writer.firstStarted.wait() }
        let bad = Task { try await commit.insert(Self.request("bad"), kind: Self.add) }
        let sharing = Task { try await commit.insert(Self.request("shares-with-bad"), kind: Self.add) }
        for _ in 0..<2_000 where commit.waitingCount < 2 { try await Task.sleep(for: .milliseconds(1)) }
        writer.releaseFirst.signal()
        _ = try await first.value
        await #expect(throws: EngineError.self) { try await bad.value }
        await #expect(throws: EngineError.self) { try await sharing.value }
        _ = try await commit.insert(Self.request("after"), kind: Self.add)
        #expect(writer.batches.withLock { $0 }.last == ["after"])
    }

    @Test("adds with another cap (a push's none) wait for a transaction of their own, in arrival order")
    func separateCaps() async throws {
        let writer = Writer()
        let commit = GroupCommit { try await writer.write($0, kind: $1) }
        let first = Task { try await commit.insert(Self.request("first"), kind: Self.add) }
        await offPool { writer.firstStarted.wait() }
        let a = Task { try await commit.insert(Self.request("add-1"), kind: Self.add) }
        for _ in 0..<2_000 where commit.waitingCount < 1 { try await Task.sleep(for: .milliseconds(1)) }
        let push = Task { try await commit.insert(Self.request("push"), kind: Self.push) }
        for _ in 0..<2_000 where commit.waitingCount < 2 { try await Task.sleep(for: .milliseconds(1)) }
        let b = Task { try await commit.insert(Self.request("add-2"), kind: Self.add) }
        for _ in 0..<2_000 where commit.waitingCount < 3 { try await Task.sleep(for: .milliseconds(1)) }
        writer.releaseFirst.signal()
        for task in [first, a, push, b] { _ = try await task.value }
        #expect(writer.batches.withLock { $0 } == [["first"], ["add-1"], ["push"], ["add-2"]])
    }

    @Test("the cap's discards of an app go to the app's last add in the transaction, once")
    func discardsOnce() async throws {
        let writer = Writer()
        let commit = GroupCommit { try await writer.write($0, kind: $1) }
        let first = Task { try await commit.insert(Self.request("first"), kind: Self.add) }
        await offPool { writer.firstStarted.wait() }
        let a1 = Task { try await commit.insert(Self.request("drop-a", app: "a"), kind: Self.add) }
        for _ in 0..<2_000 where commit.waitingCount < 1 { try await Task.sleep(for: .milliseconds(1)) }
        let a2 = Task { try await commit.insert(Self.request("keep-a", app: "a"), kind: Self.add) }
        for _ in 0..<2_000 where commit.waitingCount < 2 { try await Task.sleep(for: .milliseconds(1)) }
        let b = Task { try await commit.insert(Self.request("drop-b", app: "b"), kind: Self.add) }
        for _ in 0..<2_000 where commit.waitingCount < 3 { try await Task.sleep(for: .milliseconds(1)) }
        writer.releaseFirst.signal()
        _ = try await first.value
        #expect(try await a1.value.isEmpty)
        #expect(try await a2.value.map(\.identifier) == ["drop-a"])
        #expect(try await b.value.map(\.identifier) == ["drop-b"])
    }

    @Test("an add of a denied app is refused in the transaction it shares, and the others in it are stored")
    func deniedInSharedTransaction() async throws {
        let writer = Writer()
        writer.denied.withLock { $0 = ["denied"] }
        let commit = GroupCommit { try await writer.write($0, kind: $1) }
        let first = Task { try await commit.insert(Self.request("first"), kind: Self.add) }
        await offPool { writer.firstStarted.wait() }
        let refused = Task { try await commit.insert(Self.request("no", app: "denied"), kind: Self.add) }
        for _ in 0..<2_000 where commit.waitingCount < 1 { try await Task.sleep(for: .milliseconds(1)) }
        let allowed = Task { try await commit.insert(Self.request("yes", app: "allowed"), kind: Self.add) }
        for _ in 0..<2_000 where commit.waitingCount < 2 { try await Task.sleep(for: .milliseconds(1)) }
        writer.releaseFirst.signal()
        _ = try await first.value
        let error = await #expect(throws: EngineError.self) { try await refused.value }
        #expect(error?.code == .notificationsNotAllowed)
        _ = try await allowed.value
        #expect(writer.batches.withLock { $0 }.last.map { Set($0) } == Set(["no", "yes"]))
        // A lone add (a transaction of its own) is refused the same way; a push of the app is not checked.
        await #expect(throws: EngineError.self) {
            try await commit.insert(Self.request("alone", app: "denied"), kind: Self.add)
        }
        _ = try await commit.insert(Self.request("push", app: "denied"), kind: Self.push)
    }
}

/// The leader/follower hand-over: the first add hands its transaction to the writer itself, and each transaction's
/// completion hands over what queued meanwhile, with no task of the group commit's own in between.
@Suite("Group commit hand-over", .timeLimit(.minutes(5)))
struct GroupCommitHandOverTests {
    /// A writer that keeps each submitted transaction until the test completes it (the gate), like a store's writer
    /// queue whose transaction takes as long as the test wants.
    final class GatedWriter: Sendable {
        private let submitted = Mutex<[(requests: [String], completion: GroupCommit.Completion)]>([])

        func submit(_ requests: [PendingRequest], _ completion: @escaping GroupCommit.Completion) {
            submitted.withLock { $0.append((requests.map(\.identifier), completion)) }
        }

        var batches: [[String]] { submitted.withLock { $0.map(\.requests) } }

        /// Completes the `index`th transaction with `result` on the calling thread.
        func complete(_ index: Int, _ result: Result<PendingBatchInsertion, any Error>) {
            let completion = submitted.withLock { $0[index].completion }
            completion(result)
        }

        /// Waits (at most 20 s) until `count` transactions were submitted.
        func waitForBatches(_ count: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(20)
            while batches.count < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
            #expect(batches.count >= count)
        }
    }

    static let add = GroupCommitTests.add
    static let stored = PendingBatchInsertion(discarded: [], deniedAppIDs: [])

    static func waitForWaiting(_ count: Int, _ commit: GroupCommit) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while commit.waitingCount < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        #expect(commit.waitingCount == count)
    }

    @Test("the leader submits at once; the followers' transaction is submitted by the leader's completion, before it returns")
    func completionHandsOver() async throws {
        let writer = GatedWriter()
        let commit = GroupCommit { requests, _, completion in writer.submit(requests, completion) }
        let returned = Counter()
        let leader = Task {
            _ = try await commit.insert(GroupCommitTests.request("leader"), kind: Self.add)
            returned.increment()
        }
        try await writer.waitForBatches(1)
        let followers = (1...5).map { index in
            Task {
                _ = try await commit.insert(GroupCommitTests.request("f\(index)"), kind: Self.add)
                returned.increment()
            }
        }
        try await Self.waitForWaiting(5, commit)
        #expect(writer.batches.count == 1)
        #expect(returned.value == 0)
        // The gate opens: on this thread, the completion answers the leader and submits the followers' transaction.
        writer.complete(0, .success(Self.stored))
        #expect(writer.batches.count == 2)
        #expect(Set(writer.batches[1]) == Set((1...5).map { "f\($0)" }))
        #expect(commit.waitingCount == 0)
        try await leader.value
        #expect(returned.value == 1)
        // The followers return only once their own transaction committed.
        writer.complete(1, .success(Self.stored))
        for follower in followers { try await follower.value }
        #expect(returned.value == 6)
        // Nothing waits: the writer is idle, and the next add leads again, submitting from its own task.
        _ = Task { try await commit.insert(GroupCommitTests.request("next"), kind: Self.add) }
        try await writer.waitForBatches(3)
        #expect(writer.batches[2] == ["next"])
        writer.complete(2, .success(Self.stored))
    }

    @Test("a failed transaction fails its adds only; its completion still hands over the next one")
    func failureHandsOver() async throws {
        let writer = GatedWriter()
        let commit = GroupCommit { requests, _, completion in writer.submit(requests, completion) }
        let leader = Task { try await commit.insert(GroupCommitTests.request("leader"), kind: Self.add) }
        try await writer.waitForBatches(1)
        let follower = Task { try await commit.insert(GroupCommitTests.request("follower"), kind: Self.add) }
        try await Self.waitForWaiting(1, commit)
        writer.complete(0, .failure(EngineError(.storeFailure, "disk full")))
        #expect(writer.batches.count == 2)
        await #expect(throws: EngineError.self) { try await leader.value }
        writer.complete(1, .success(Self.stored))
        _ = try await follower.value
    }

    @Test("a writer that completes at once, on the submitting thread, serves every add in turn")
    func synchronousWriter() async throws {
        let batches = Mutex<[[String]]>([])
        let commit = GroupCommit { requests, _, completion in
            batches.withLock { $0.append(requests.map(\.identifier)) }
            completion(.success(PendingBatchInsertion(discarded: [], deniedAppIDs: [])))
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<50 {
                group.addTask { _ = try await commit.insert(GroupCommitTests.request("r\(index)"), kind: Self.add) }
            }
            try await group.waitForAll()
        }
        #expect(Set(batches.withLock { $0 }.joined()) == Set((0..<50).map { "r\($0)" }))
        #expect(commit.waitingCount == 0)
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
