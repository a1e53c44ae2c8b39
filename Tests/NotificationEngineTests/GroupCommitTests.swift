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
            await begin(requests.map(\.identifier))
            return try insertion(requests, kind: kind)
        }

        /// A transaction of fires (recorded as "fire:" and the request's identifier) and requests.
        func pass(_ fires: [FireCompletion], _ requests: [PendingRequest], kind: GroupCommit.Kind?) async
            -> FiresAndInsertion
        {
            await begin(fires.map { "fire:" + $0.request.identifier } + requests.map(\.identifier))
            let failing = failing.withLock { $0 }
            let historyIDs: Result<[Int64], any Error> =
                fires.contains { failing.contains($0.request.identifier) }
                ? .failure(EngineError(.storeFailure, "disk full")) : .success(fires.indices.map { Int64($0) + 1 })
            guard let kind, !requests.isEmpty else {
                return FiresAndInsertion(
                    historyIDs: historyIDs, insertion: .success(PendingBatchInsertion(discarded: [], deniedAppIDs: [])))
            }
            do {
                let inserted = try insertion(requests, kind: kind)
                return FiresAndInsertion(historyIDs: historyIDs, insertion: .success(inserted))
            } catch {
                return FiresAndInsertion(historyIDs: historyIDs, insertion: .failure(error))
            }
        }

        /// A group commit writing through this writer.
        func commit() -> GroupCommit {
            GroupCommit(
                write: { try await self.write($0, kind: $1) }, writeWithFires: { await self.pass($0, $1, kind: $2) })
        }

        private func begin(_ names: [String]) async {
            let isFirst = batches.withLock { batches in
                batches.append(names)
                return batches.count == 1
            }
            if isFirst {
                firstStarted.signal()
                // Held on a thread of its own: the writer task must not block the cooperative pool.
                await offPool { [releaseFirst] in releaseFirst.wait() }
            }
        }

        private func insertion(_ requests: [PendingRequest], kind: GroupCommit.Kind) throws -> PendingBatchInsertion {
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
        let commit = writer.commit()
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
        let commit = writer.commit()
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

    @Test("a batch handed over together shares one transaction, each with its own result; a failure fails them all")
    func batch() async throws {
        let writer = Writer()
        writer.denied.withLock { $0 = ["com.example.denied"] }
        let commit = writer.commit()
        let first = Task { try await commit.insert(Self.request("first"), kind: Self.add) }
        await offPool { writer.firstStarted.wait() }
        let batch = Task {
            await commit.storeAll(
                [Self.request("b1"), Self.request("b2", app: "com.example.denied"), Self.request("drop-b3")],
                kind: Self.add)
        }
        for _ in 0..<2_000 where commit.waitingCount < 3 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(commit.waitingCount == 3)
        writer.releaseFirst.signal()
        _ = try await first.value
        let results = await batch.value
        #expect(writer.batches.withLock { $0 }.last == ["b1", "b2", "drop-b3"])
        #expect(results.count == 3)
        #expect((try? results[0].get()) != nil)
        #expect(throws: EngineError.self) { try results[1].get() }
        // The cap's discards go to the app's last request of the transaction, as for adds one by one.
        #expect(try results[0].get().discarded.isEmpty)
        #expect(try results[2].get().discarded.map(\.identifier) == ["drop-b3"])

        writer.failing.withLock { $0 = ["bad"] }
        let failed = await commit.storeAll([Self.request("ok"), Self.request("bad")], kind: Self.add)
        #expect(failed.count == 2)
        for result in failed { #expect(throws: EngineError.self) { try result.get() } }
        _ = try await commit.insert(Self.request("after"), kind: Self.add)
        #expect(writer.batches.withLock { $0 }.last == ["after"])
        #expect(await commit.storeAll([], kind: Self.add).isEmpty)
    }

    @Test("adds with another cap (a push's none) wait for a transaction of their own, in arrival order")
    func separateCaps() async throws {
        let writer = Writer()
        let commit = writer.commit()
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
        let commit = writer.commit()
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
        let commit = writer.commit()
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

    @Test("on an executor of its own, lone adds write their own transactions; adds arriving meanwhile share the next")
    func writesAloneOnOwnExecutor() async throws {
        let writer = Writer()
        // Whether each transaction was written by a task preferring an executor of its own (the adding task).
        let onOwnExecutor = Mutex<[Bool]>([])
        let commit = GroupCommit(
            write: { requests, kind in
                onOwnExecutor.withLock { $0.append(withUnsafeCurrentTask { $0?.unownedTaskExecutor != nil }) }
                return try await writer.write(requests, kind: kind)
            },
            writeWithFires: { await writer.pass($0, $1, kind: $2) })
        let executor = QueueExecutor()
        let first = Task(executorPreference: executor) {
            try await commit.insert(Self.request("first"), kind: Self.add)
        }
        await offPool { writer.firstStarted.wait() }
        #expect(commit.waitingCount == 0)
        let others = (1...5).map { index in
            Task(executorPreference: executor) { try await commit.insert(Self.request("r\(index)"), kind: Self.add) }
        }
        for _ in 0..<2_000 where commit.waitingCount < 5 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(commit.waitingCount == 5)
        writer.releaseFirst.signal()
        _ = try await first.value
        for task in others { _ = try await task.value }
        let batches = writer.batches.withLock { $0 }
        #expect(batches.first == ["first"])
        #expect(Set(batches.dropFirst().joined()) == Set((1...5).map { "r\($0)" }))
        // The first by its own task, the others by the group commit's task on the pool.
        #expect(onOwnExecutor.withLock { $0 }.first == true)
        #expect(onOwnExecutor.withLock { $0 }.dropFirst().allSatisfy { !$0 })
        // After a shared transaction a lone add goes through the group commit's task; once lone adds follow one
        // another, each writes its own, and one of a denied app, or one whose transaction fails, is refused the same.
        _ = try await Task(executorPreference: executor) {
            try await commit.insert(Self.request("after"), kind: Self.add)
        }.value
        writer.denied.withLock { $0 = ["denied"] }
        let refused = Task(executorPreference: executor) {
            try await commit.insert(Self.request("no", app: "denied"), kind: Self.add)
        }
        let error = await #expect(throws: EngineError.self) { try await refused.value }
        #expect(error?.code == .notificationsNotAllowed)
        writer.failing.withLock { $0 = ["bad"] }
        let failed = Task(executorPreference: executor) { try await commit.insert(Self.request("bad"), kind: Self.add) }
        await #expect(throws: EngineError.self) { try await failed.value }
        #expect(onOwnExecutor.withLock { $0 }.suffix(3) == [false, true, true])
    }

    static func fire(_ id: String) -> FireCompletion {
        let request = request(id)
        return FireCompletion(
            request: request, nextFireDate: nil, delivered: nil,
            history: HistoryEntry(
                appID: request.appID, requestIdentifier: id, title: "", dueDate: request.nextFireDate,
                actedAt: Date(timeIntervalSince1970: 60), presenter: "test", presentation: [], outcome: .delivered),
            badge: nil)
    }

    @Test("fires handed over while a transaction is written share the next one with the waiting adds, recorded first")
    func firesShareTransactions() async throws {
        let writer = Writer()
        let commit = writer.commit()
        let first = Task { try await commit.insert(Self.request("first"), kind: Self.push) }
        await offPool { writer.firstStarted.wait() }
        let one = Task { try await commit.record([Self.fire("f1")]) }
        for _ in 0..<2_000 where commit.waitingRecordings < 1 { try await Task.sleep(for: .milliseconds(1)) }
        let push = Task { try await commit.insert(Self.request("p1"), kind: Self.push) }
        for _ in 0..<2_000 where commit.waitingCount < 1 { try await Task.sleep(for: .milliseconds(1)) }
        let two = Task { try await commit.record([Self.fire("f2"), Self.fire("f3")]) }
        for _ in 0..<2_000 where commit.waitingRecordings < 2 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(commit.waitingRecordings == 2)
        writer.releaseFirst.signal()
        _ = try await first.value
        // Each recording gets its own fires' history entries, in the order handed over.
        #expect(try await one.value == [1])
        #expect(try await two.value == [2, 3])
        _ = try await push.value
        #expect(writer.batches.withLock { $0 } == [["first"], ["fire:f1", "fire:f2", "fire:f3", "p1"]])
        // Nothing being written: a recording writes its own transaction at once.
        #expect(try await commit.record([Self.fire("f4")]) == [1])
        #expect(writer.batches.withLock { $0 }.last == ["fire:f4"])
        #expect(try await commit.record([]) == [])
    }

    @Test("in a shared transaction, a failure of the fires fails only the recordings, one of the adds only the adds")
    func sharedFailures() async throws {
        for failing in ["f-bad", "p-bad"] {
            let writer = Writer()
            writer.failing.withLock { $0 = [failing] }
            let commit = writer.commit()
            let first = Task { try await commit.insert(Self.request("first"), kind: Self.push) }
            await offPool { writer.firstStarted.wait() }
            let recording = Task { try await commit.record([Self.fire("f-bad"), Self.fire("f-ok")]) }
            for _ in 0..<2_000 where commit.waitingRecordings < 1 { try await Task.sleep(for: .milliseconds(1)) }
            let push = Task { try await commit.insert(Self.request("p-bad"), kind: Self.push) }
            for _ in 0..<2_000 where commit.waitingCount < 1 { try await Task.sleep(for: .milliseconds(1)) }
            writer.releaseFirst.signal()
            _ = try await first.value
            if failing == "f-bad" {
                await #expect(throws: EngineError.self) { try await recording.value }
                _ = try await push.value
            } else {
                #expect(try await recording.value == [1, 2])
                await #expect(throws: EngineError.self) { try await push.value }
            }
            // Checked once both are answered: the first add is answered before the next transaction is written.
            #expect(writer.batches.withLock { $0 }.last == ["fire:f-bad", "fire:f-ok", "p-bad"])
        }
    }

    @Test("on the global pool, even a lone add's transaction is written by the group commit's task")
    func poolAddsUseTheTask() async throws {
        let writer = Writer()
        writer.releaseFirst.signal()
        let onOwnExecutor = Mutex<[Bool]>([])
        let commit = GroupCommit(
            write: { requests, kind in
                onOwnExecutor.withLock { $0.append(withUnsafeCurrentTask { $0?.unownedTaskExecutor != nil }) }
                return try await writer.write(requests, kind: kind)
            },
            writeWithFires: { await writer.pass($0, $1, kind: $2) })
        _ = try await commit.insert(Self.request("alone"), kind: Self.add)
        #expect(onOwnExecutor.withLock { $0 } == [false])
    }
}

/// A task executor of the tests' own: runs jobs on a serial dispatch queue.
final class QueueExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "GroupCommitTests.QueueExecutor")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
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
