import Foundation
import Logging
import NotificationModel
import Synchronization

/// The endpoint's request log (`unotify apns log`): every request and its answer, written in batches (every 100 ms
/// at most, one transaction each) to a bounded ring, so that logging costs a push almost nothing.
///
/// ```swift
/// configuration.requestLog = APNsRequestLog(keep: 1_000) { entries, keep in try await store.appendAPNsLog(entries, keep: keep) }
/// ```
public final class APNsRequestLog: Sendable {
    /// How many entries the ring keeps.
    public let keep: Int
    private let write: @Sendable ([APNsLogEntry], Int) async throws -> Void
    private let pending = Mutex<[APNsLogEntry]>([])
    private let flusher = Mutex<Task<Void, Never>?>(nil)
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

    /// Keeps an entry for the next write.
    func record(_ entry: APNsLogEntry) {
        pending.withLock { $0.append(entry) }
    }

    /// Writes what was recorded; the endpoint calls it every 100 ms while it runs and when it stops.
    public func flush() async {
        let entries = pending.withLock { pending in
            defer { pending = [] }
            return pending
        }
        guard !entries.isEmpty else { return }
        do { try await write(entries, keep) } catch {
            logger.error("could not write the APNs request log", metadata: ["entries": "\(entries.count)", "error": "\(error)"])
        }
    }

    /// Starts writing every 100 ms.
    func start() {
        flusher.withLock { task in
            guard task == nil else { return }
            task = Task.detached { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(100))
                    await self?.flush()
                }
            }
        }
    }

    /// Stops the periodic writes and writes what is left.
    func stop() async {
        flusher.withLock { task in
            task?.cancel()
            task = nil
        }
        await flush()
    }
}
