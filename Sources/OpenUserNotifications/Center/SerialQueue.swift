import Foundation

/// Runs the center's operations one at a time, in the order they were called, so that
/// `removeAllPendingNotificationRequests()` followed by `pendingNotificationRequests()` sees the removal, as
/// Apple's serial queue guarantees.
final class SerialQueue: Sendable {
    private let continuation: AsyncStream<@Sendable () async -> Void>.Continuation

    init() {
        let (stream, continuation) = AsyncStream<@Sendable () async -> Void>.makeStream()
        self.continuation = continuation
        Task.detached {
            for await operation in stream { await operation() }
        }
    }

    deinit { continuation.finish() }

    /// Queues an operation without waiting for it.
    func enqueue(_ operation: @escaping @Sendable () async -> Void) {
        continuation.yield(operation)
    }

    /// Queues an operation and waits for its result.
    func perform<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            enqueue {
                do { continuation.resume(returning: try await operation()) } catch { continuation.resume(throwing: error) }
            }
        }
    }
}
