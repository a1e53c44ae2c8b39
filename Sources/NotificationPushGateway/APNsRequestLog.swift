import Foundation
import Logging
import NotificationModel
import Synchronization

/// The endpoint's request log (`unotify apns log`): every request and its answer, written in batches (every 100 ms
/// at most, one transaction each) to a bounded ring, so that logging costs a push almost nothing. An endpoint that
/// receives nothing costs nothing either: a write is planned only when an entry arrives, so an idle daemon's log
/// never wakes it.
///
/// ```swift
/// configuration.requestLog = APNsRequestLog(keep: 1_000) { entries, keep in try await store.appendAPNsLog(entries, keep: keep) }
/// ```
public final class APNsRequestLog: Sendable {
    /// How many entries the ring keeps.
    public let keep: Int
    private let write: @Sendable ([APNsLogEntry], Int) async throws -> Void
    private let state = Mutex(State())
    private let logger: Logger

    /// - Parameters:
    ///   - keep: The ring's size: older entries are dropped.
    ///   - logger: Where a failed write is reported (the entries are then lost; the pushes are not).
    ///   - write: Stores entries and trims the ring to `keep` (``NotificationStore/appendAPNsLog(_:keep:)``).
    public init(
        keep: Int, logger: Logger = Logger(label: "OpenUserNotifications.apns"),
        write: @escaping @Sendable ([APNsLogEntry], Int) async throws -> Void
    ) {
        self.keep = keep
        self.logger = logger
        self.write = write
    }

    /// What the log holds between writes.
    private struct State {
        /// Entries recorded since the last write.
        var pending: [APNsLogEntry] = []
        /// The running flusher's task, and how to tell it that entries arrived.
        var flusher: (task: Task<Void, Never>, arrived: AsyncStream<Void>.Continuation)?
    }

    /// Keeps an entry for the next write; the first entry after a write plans the next one.
    func record(_ entry: APNsLogEntry) {
        let arrived = state.withLock { state in
            state.pending.append(entry)
            return state.pending.count == 1 ? state.flusher?.arrived : nil
        }
        arrived?.yield()
    }

    /// Writes what was recorded; while the endpoint runs, it is called 100 ms after the first entry of each batch,
    /// and once more when the endpoint stops.
    public func flush() async {
        let entries = state.withLock { state in
            defer { state.pending = [] }
            return state.pending
        }
        guard !entries.isEmpty else { return }
        do { try await write(entries, keep) } catch {
            logger.error("could not write the APNs request log", metadata: ["entries": "\(entries.count)", "error": "\(error)"])
        }
    }

    /// Starts writing: 100 ms after an entry arrives, what arrived by then is written. With nothing recorded the
    /// flusher waits for an entry, without a timer.
    func start() {
        state.withLock { state in
            guard state.flusher == nil else { return }
            let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
            let task = Task.detached { [weak self] in
                for await _ in arrivals {
                    try? await Task.sleep(for: .milliseconds(100))
                    await self?.flush()
                }
            }
            if !state.pending.isEmpty { arrived.yield() }
            state.flusher = (task, arrived)
        }
    }

    /// Stops the flusher and writes what is left.
    func stop() async {
        let flusher = state.withLock { state in
            defer { state.flusher = nil }
            return state.flusher
        }
        flusher?.arrived.finish()
        flusher?.task.cancel()
        await flusher?.task.value  // its last write lands before the one below, so the ring keeps arrival order
        await flush()
    }
}
