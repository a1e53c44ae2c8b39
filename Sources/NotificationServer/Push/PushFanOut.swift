import Foundation
import Logging
import NotificationEngine
import NotificationStorePostgres
import Synchronization

/// A worker's fan-out loop (docs/push-service.md): turns ready pushes into one pending request per reached device,
/// a page at a time, in the worker rather than in the API call.
///
/// Each page is one transaction of the store (``PostgresNotificationStore/fanOutNextPage(at:pageSize:cap:)``) that
/// enqueues the page and advances the push's cursor together, so a worker killed in the middle of a fan-out loses
/// neither devices nor enqueues any twice; any worker continues it. The loop sleeps until the next push's send time
/// on the worker's clock, and wakes at once when ``wake()`` is called (the worker calls it on `LISTEN unotify_push`).
///
/// ```swift
/// let fanOut = PushFanOut(store: store, clock: clock, cap: 64)
/// let loop = Task { await fanOut.run() }
/// try await store.insertPushes([push])
/// fanOut.wake()
/// ```
public struct PushFanOut: Sendable {
    /// The store, shared with the other workers.
    public let store: PostgresNotificationStore
    let clock: any NotificationClock
    /// The most devices enqueued in one transaction.
    public let pageSize: Int
    let cap: Int?
    let logger: Logger
    let signal = WakeSignal()

    /// How long the loop waits before reading again when a ready push is being fanned out by another worker, or the
    /// store failed, in seconds.
    public static let retryDelay: TimeInterval = 1
    /// The longest the loop sleeps without reading the store, in seconds.
    public static let idleCheck: TimeInterval = 60

    /// Creates the loop.
    ///
    /// - Parameters:
    ///   - store: The store (migration step 6 or later).
    ///   - clock: The worker's clock: send times are read on it.
    ///   - pageSize: The most devices enqueued in one transaction (500 by default).
    ///   - cap: The pending cap per device when the store's policy sets none (the engine's configuration's).
    ///   - logger: Where pages and failures are logged.
    public init(
        store: PostgresNotificationStore, clock: any NotificationClock, pageSize: Int = 500, cap: Int?,
        logger: Logger = Logger(label: "OpenUserNotifications.server.push")
    ) {
        self.store = store
        self.clock = clock
        self.pageSize = max(1, pageSize)
        self.cap = cap
        self.logger = logger
    }

    /// Makes the loop read the store now (a push was added).
    public func wake() { signal.wake() }

    /// Fans out ready pushes until the task is cancelled.
    public func run() async {
        while !Task.isCancelled {
            var retry = false
            do {
                while !Task.isCancelled,
                    let page = try await store.fanOutNextPage(
                        at: clock.now, pageSize: pageSize, cap: cap)
                {
                    logger.debug(
                        "fanned out a page",
                        metadata: [
                            "message": "\(page.messageID)", "devices": "\(page.enqueued)",
                            "finished": "\(page.finished)",
                        ])
                }
            } catch {
                if Task.isCancelled { return }
                logger.error("fanning out a push failed; trying again: \(error)")
                retry = true
            }
            if Task.isCancelled { return }
            let now = clock.now
            // At most `idleCheck` apart, so a lost notification delays a push by that much at worst.
            var deadline = now.addingTimeInterval(Self.idleCheck)
            if retry {
                deadline = now.addingTimeInterval(Self.retryDelay)
            } else if let next = try? await store.nextPushReady() {
                // A ready push that is not ours to take now is being fanned out by another worker: look again soon.
                deadline = next > now ? min(next, deadline) : now.addingTimeInterval(Self.retryDelay)
            }
            await signal.wait(until: deadline, clock: clock)
        }
    }

    /// Listens for added pushes until cancelled, listening again after a failure, and wakes the loop for each.
    public func listen(onListening: @escaping @Sendable () -> Void = {}) async {
        let signal = signal
        while !Task.isCancelled {
            do {
                try await store.listenForPushes(onListening: onListening) { signal.wake() }
            } catch {
                if Task.isCancelled { return }
                logger.error("listening for added pushes failed; listening again: \(error)")
            }
            if Task.isCancelled { return }
            signal.wake()
            try? await clock.sleep(until: clock.now.addingTimeInterval(ServerWorker.listenRetryDelay))
        }
    }

    /// A wake-up that is never lost: one that comes while the loop is not sleeping makes its next wait return at once.
    final class WakeSignal: Sendable {
        private struct State {
            var pending = false
            var sleeper: Task<Void, Never>?
        }
        // The mutex guards the flag and the current sleep.
        private let state = Mutex(State())

        func wake() {
            state.withLock { state in
                state.pending = true
                state.sleeper?.cancel()
            }
        }

        func wait(until deadline: Date, clock: any NotificationClock) async {
            let sleeper: Task<Void, Never>? = state.withLock { state in
                if state.pending {
                    state.pending = false
                    return nil
                }
                let task = Task { _ = try? await clock.sleep(until: deadline) }
                state.sleeper = task
                return task
            }
            guard let sleeper else { return }
            await withTaskCancellationHandler {
                await sleeper.value
            } onCancel: {
                sleeper.cancel()
            }
            // `pending` stays: a wake after the sleep ended makes the next wait return at once (one more read).
            state.withLock { $0.sleeper = nil }
        }
    }
}
