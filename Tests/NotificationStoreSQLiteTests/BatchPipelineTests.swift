import Foundation
import NotificationEngine
import NotificationModel
@testable import NotificationStoreSQLite
import Synchronization
import Testing

/// A large batch is encoded in a pipeline (``EncodingPipeline``) while its transaction inserts the chunks already
/// encoded: the batch must still be stored whole and in order, or not at all.
@Suite("SQLite store batch pipeline", .timeLimit(.minutes(5)))
struct BatchPipelineTests {
    let start = Date(timeIntervalSince1970: 1_767_603_600)
    let app = "com.example.pipeline"

    func request(_ id: String, title: String, fireIn seconds: TimeInterval, userInfo: [String: PropertyListValue] = [:])
        -> PendingRequest
    {
        var content = NotificationPayload()
        content.title = title
        content.userInfo = userInfo
        return PendingRequest(
            appID: app, spec: RequestSpec(identifier: id, content: content, trigger: .timeInterval(seconds, repeats: false)),
            addedAt: start, nextFireDate: start.addingTimeInterval(seconds))
    }

    func temporaryStore() throws -> (SQLiteNotificationStore, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        return (try SQLiteNotificationStore(path: folder.appendingPathComponent("store.sqlite").path), folder)
    }

    @Test("a batch of many chunks is stored whole and in order; a later request replaces an earlier one of another chunk")
    func manyChunks() async throws {
        let (store, folder) = try temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        // 2,000 requests, 8 chunks of 256; the last 500 reuse the identifiers of the first 500 (other chunks).
        let batch = (0..<2_000).map { index in
            request("r\(index % 1_500)", title: "title \(index)", fireIn: Double(60 + index), userInfo: ["n": .integer(index)])
        }
        let discarded = try await store.insertPending(batch: batch, cap: nil, at: start)
        #expect(discarded.isEmpty)
        let stored = try await store.pendingRequests(appID: app)
        #expect(stored.count == 1_500)
        // Stored in batch order (the rows' ids): the 1,000 untouched ones first, then the 500 replacements.
        let expected = Array(batch[500..<2_000])
        #expect(stored.map(\.spec) == expected.map(\.spec))
        #expect(stored.map(\.nextFireDate) == expected.map(\.nextFireDate))
        #expect(Set(stored.map(\.revision)).count == 1_500)
    }

    @Test("a request that cannot be encoded, late in a batch, leaves nothing of the batch and the store as it was")
    func failingChunk() async throws {
        let (store, folder) = try temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let before = request("kept", title: "kept", fireIn: 30)
        _ = try await store.insertPending(batch: [before], cap: nil, at: start)
        var batch = (0..<1_200).map { request("b\($0)", title: "batch \($0)", fireIn: Double(60 + $0)) }
        // JSON has no NaN: the encoder of the chunk holding request 1,100 (the fifth of five) throws.
        batch[1_100] = request("b1100", title: "not a number", fireIn: 60, userInfo: ["x": .double(.nan)])
        await #expect(throws: (any Error).self) { try await store.insertPending(batch: batch, cap: nil, at: start) }
        #expect(try await store.pendingRequests(appID: app).map(\.spec) == [before.spec])
        // The store still takes a sound batch afterwards.
        batch[1_100] = request("b1100", title: "a number", fireIn: 60)
        _ = try await store.insertPending(batch: batch, cap: nil, at: start)
        #expect(try await store.pendingRequests(appID: app).count == 1_201)
    }

    @Test("the pipeline hands over every chunk in order, the last one shorter, whatever order the encoders finish in")
    func pipelineOrder() throws {
        let pipeline = EncodingPipeline(count: 1_001, chunkSize: 100, encoders: 3) { range in Array(range) }
        #expect(pipeline.chunkCount == 11)
        var seen: [Int] = []
        for chunk in 0..<pipeline.chunkCount { seen += try pipeline.take(chunk) }
        #expect(seen == Array(0..<1_001))
    }

    @Test("an encoding error reaches the consumer at its chunk; the chunks before it are handed over")
    func pipelineError() throws {
        struct Refused: Error {}
        let pipeline = EncodingPipeline(count: 50, chunkSize: 10, encoders: 2) { range -> [Int] in
            if range.contains(33) { throw Refused() }
            return Array(range)
        }
        for chunk in 0..<3 { #expect(try pipeline.take(chunk) == Array(chunk * 10..<(chunk + 1) * 10)) }
        #expect(throws: Refused.self) { try pipeline.take(3) }
        pipeline.stop()
    }

    @Test("stopped, the encoders take no more chunks")
    func pipelineStop() throws {
        let encoded = Mutex(0)
        let started = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let pipeline = EncodingPipeline(count: 100, chunkSize: 1, encoders: 1) { range -> Int in
            if range.lowerBound == 0 {  // the encoder holds on to chunk 0 until the consumer stops
                started.signal()
                gate.wait()
            }
            encoded.withLock { $0 += 1 }
            return range.lowerBound
        }
        started.wait()
        pipeline.stop()
        gate.signal()
        #expect(try pipeline.take(0) == 0)
        // The one encoder finished chunk 0 and then saw the stop: no other chunk is ever encoded.
        #expect(encoded.withLock { $0 } == 1)
    }
}
