import Foundation
import Logging
import NotificationAPNsProvider
import NotificationEngine
import NotificationModel
import NotificationStorePostgres

/// One server-mode worker: the engine's delivery loop on a shared PostgreSQL store, delivering devices' requests
/// through APNs, woken by its own next-fire timer and by `LISTEN/NOTIFY` when any worker or the API adds a request.
///
/// Any number of workers share one database. Each claims due requests with a lease (`FOR UPDATE SKIP LOCKED`), so
/// workers never deliver the same fire at once; a worker that dies holding claims gives them back when their lease
/// ends, and another worker delivers them (at least once: a worker that sent a notification and died before
/// recording it causes one repeat).
///
/// ```swift
/// let store = PostgresNotificationStore(configuration: database)
/// let pool = Task { await store.run() }
/// try await store.migrate()
/// let worker = ServerWorker(store: store, development: sandboxClient, production: productionClient)
/// try await worker.devices.register(registration)
/// await worker.run()  // until the task is cancelled
/// pool.cancel()       // the pool last
/// ```
public struct ServerWorker: Sendable {
    /// The store, shared with the other workers.
    public let store: PostgresNotificationStore
    /// The engine running the delivery loop.
    public let scheduler: NotificationScheduler
    /// The Swift API for devices and their requests, on this worker's engine.
    public let devices: DeviceScheduler
    /// Sends fires through APNs.
    public let presenter: APNsPresenter
    /// Fans out the push service's pushes (docs/push-service.md).
    public let fanOut: PushFanOut
    let logger: Logger

    /// The system's time with UTC as the zone, whatever the machine's.
    ///
    /// Devices' requests never follow the worker's zone (floating components are pinned to each device's), but the
    /// engine records in the shared store the zone its floating plans were made in and re-plans when its own zone
    /// differs: workers on machines in different zones would take turns re-planning. One zone for every worker
    /// avoids that.
    public static let utcClock = SystemNotificationClock(timeZone: { TimeZone(identifier: "UTC")! })

    /// How many due requests a worker claims in one pass (`EngineConfiguration.claimBatch`; `unotifyd --server` sets
    /// it; one engine alone claims 256): a burst is shared among the workers rather than claimed whole by the first,
    /// and a worker killed mid-burst leaves fewer claims for the others to wait out (its passes' batches whose fires
    /// are not recorded yet: 30 to 61 in `ClusterCrashTests`, against 256 with batches of 256).
    public static let claimBatch = 32

    /// How many claimed batches a worker presents at the same time (`EngineConfiguration.batchesInFlight`;
    /// `unotifyd --server` sets it): a worker keeps up to 4 × ``claimBatch`` notifications on their way to APNs, so
    /// one round trip's latency does not cap it at ``claimBatch`` per round trip (measured in docs/benchmarks.md).
    public static let batchesInFlight = 4

    /// Workers leave `localizedUserNotificationString` values to the device (`EngineConfiguration
    /// .resolvesLocalizedStrings` is off in their engines): they travel as `loc-key` and `loc-args`.
    public static let localizesOnDevice = true

    /// How long a worker waits before listening again after its `LISTEN` connection failed, in seconds.
    public static let listenRetryDelay: TimeInterval = 5

    /// Creates a worker on a migrated store whose pool runs.
    ///
    /// - Parameters:
    ///   - store: The shared store (``PostgresNotificationStore/migrate()`` already called).
    ///   - development: The APNs client for development devices (Apple's sandbox host, or a test endpoint).
    ///   - production: The APNs client for production devices.
    ///   - clock: The engine's clock: the system's time in UTC by default (``utcClock``).
    ///   - configuration: The engine's settings; Apple's pending cap of 64 applies per device.
    ///   - metrics: Where the worker's figures are counted, the store's pool's too
    ///     (``ServerMetrics/exportDatabaseMetrics(of:)``); a registry of its own by default.
    ///   - logger: Where the engine and the presenter log.
    public init(
        store: PostgresNotificationStore, development: APNsClient, production: APNsClient,
        clock: any NotificationClock = ServerWorker.utcClock, configuration: EngineConfiguration = EngineConfiguration(),
        metrics: ServerMetrics = ServerMetrics(), logger: Logger = Logger(label: "OpenUserNotifications.server")
    ) {
        self.store = store
        self.logger = logger
        // The device localizes `localizedUserNotificationString` values (sent as `loc-key`), in its own language.
        var configuration = configuration
        configuration.resolvesLocalizedStrings = !Self.localizesOnDevice
        // Failed renewals and claims taken over are counted in the worker's metrics (and still told to an observer
        // the caller set).
        let observer = configuration.claimRenewalObserver
        configuration.claimRenewalObserver = { event in
            metrics.recordClaimRenewal(event)
            observer?(event)
        }
        // The pool's figures (calls in flight, waits for a connection, calls failed) on the worker's /metrics.
        metrics.exportDatabaseMetrics(of: store)
        presenter = APNsPresenter(
            store: store, development: development, production: production, clock: clock, metrics: metrics,
            logger: logger)
        scheduler = NotificationScheduler(
            store: store, clock: clock, presenter: presenter, configuration: configuration, logger: logger)
        devices = DeviceScheduler(store: store, scheduler: scheduler)
        fanOut = PushFanOut(store: store, clock: clock, cap: configuration.pendingCap, logger: logger)
    }

    /// Runs the delivery loop, the push service's fan-out loop and the wake-ups until the task is cancelled.
    ///
    /// > Note: Stop the worker before the store's pool: the stopping engine still records fires and releases the
    /// > claims it holds through the store. Cancelling one task that runs both the pool and the worker (a worker run
    /// > inside `PostgresNotificationStore.withStore` whose caller is cancelled) can leave those calls waiting on a
    /// > pool that is going away; `unotifyd --server` runs the pool in a task of its own and stops it last.
    ///
    /// - Parameters:
    ///   - listening: Whether to wake on `LISTEN/NOTIFY` (off, the worker sees other workers' requests only when its
    ///     own timer fires).
    ///   - onListening: Runs each time `LISTEN` is in effect.
    public func run(listening: Bool = true, onListening: @escaping @Sendable () -> Void = {}) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await scheduler.run() }
            group.addTask { await fanOut.run() }
            if listening {
                group.addTask { await listen(onListening: onListening) }
                group.addTask { await fanOut.listen() }
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// Listens for added requests until cancelled, listening again after a failure.
    func listen(onListening: @escaping @Sendable () -> Void) async {
        let scheduler = scheduler
        while !Task.isCancelled {
            do {
                try await store.listenForPendingInserts(onListening: onListening) { scheduler.storeDidChange() }
            } catch {
                if Task.isCancelled { return }
                logger.error("listening for added requests failed; listening again: \(error)")
            }
            if Task.isCancelled { return }
            // Requests added while not listening are read now; then wait before listening again.
            scheduler.storeDidChange()
            let clock = scheduler.clock
            try? await clock.sleep(until: clock.now.addingTimeInterval(Self.listenRetryDelay))
        }
    }
}
