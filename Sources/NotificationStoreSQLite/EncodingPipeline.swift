import Dispatch
import Foundation
import Synchronization

/// Encodes a large batch chunk by chunk on Dispatch threads while its consumer (the write transaction) takes the
/// chunks already encoded, in order: the encoding of chunk k + 1 overlaps the SQL of chunk k.
///
/// Encoding a request's spec with `JSONEncoder` costs more CPU than inserting its row (about twice as much in `perf`
/// of `unotify-bench --only 4`; ``FastSpecJSON`` writes the common specs for about a fifth of that). Encoded first on every core and inserted after, the two add up; in a pipeline the
/// consumer's SQL runs while the other cores encode, and the batch takes about the larger of the encoding spread
/// over the cores and the SQL. There is an encoder per core: encoding is the larger part, and the consumer mostly
/// waits for it.
///
/// ```swift
/// let pipeline = EncodingPipeline(count: rows.count, chunkSize: 256) { range in try rows[range].map(encode) }
/// for chunk in 0..<pipeline.chunkCount { try insert(pipeline.take(chunk)) }
/// ```
final class EncodingPipeline<Output: Sendable>: Sendable {
    /// How many chunks the batch has.
    let chunkCount: Int
    private let chunkSize: Int
    private let count: Int
    private let encode: @Sendable (Range<Int>) throws -> Output
    /// The next chunk an encoder takes.
    private let next = Atomic<Int>(0)
    /// Set when the consumer gives up (its transaction failed): the encoders stop taking chunks.
    private let stopped = Atomic<Bool>(false)
    private let results: Mutex<[Result<Output, any Error>?]>
    /// One per chunk, signalled when its result is in `results`.
    private let ready: [DispatchSemaphore]

    /// Starts encoding at once.
    /// - Parameters:
    ///   - count: How many items the batch has.
    ///   - chunkSize: Items per chunk; the consumer waits for the first chunk only, so it should be small.
    ///   - encoders: Threads that encode; by default one per active core.
    ///   - encode: Encodes the items of a range of the batch. It runs on several threads at once.
    init(
        count: Int, chunkSize: Int, encoders: Int = ProcessInfo.processInfo.activeProcessorCount,
        encode: @escaping @Sendable (Range<Int>) throws -> Output
    ) {
        self.count = count
        self.chunkSize = max(1, chunkSize)
        self.encode = encode
        chunkCount = (count + self.chunkSize - 1) / self.chunkSize
        results = Mutex(Array(repeating: nil, count: chunkCount))
        ready = (0..<chunkCount).map { _ in DispatchSemaphore(value: 0) }
        for _ in 0..<min(max(1, encoders), chunkCount) {
            DispatchQueue.global().async { [self] in work() }
        }
    }

    /// The encoded chunk `index`, waiting for it if an encoder still works on it.
    /// - Throws: What encoding the chunk threw.
    func take(_ index: Int) throws -> Output {
        ready[index].wait()
        return try results.withLock { $0[index]! }.get()
    }

    /// Stops the encoders after the chunks they are encoding; call it when the consumer stops early.
    func stop() {
        stopped.store(true, ordering: .relaxed)
    }

    /// One encoder: takes the next chunk until none is left.
    private func work() {
        while !stopped.load(ordering: .relaxed) {
            let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard index < chunkCount else { return }
            let range = index * chunkSize..<min((index + 1) * chunkSize, count)
            let result = Result { try encode(range) }
            results.withLock { $0[index] = result }
            ready[index].signal()
        }
    }
}
