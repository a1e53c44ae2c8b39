import Foundation
import Logging
import NotificationLocalization
import NotificationModel
import Synchronization

/// The scheduling engine: accepts requests for every app, keeps them in a ``NotificationStore``, and delivers
/// each one when it falls due, through the app's own process when it runs (a ``ForegroundApp``) and through a
/// ``NotificationPresenter`` otherwise.
///
/// The engine does not poll. ``run()`` sleeps on the injected clock until the next fire date or until something
/// changes, so an idle engine wakes up zero times a minute. Tests call ``deliverDue()`` after advancing a manual
/// clock instead of running the loop.
public actor NotificationScheduler {
    public nonisolated let store: any NotificationStore
    public nonisolated let clock: any NotificationClock
    public nonisolated let presenter: any NotificationPresenter
    public nonisolated let configuration: EngineConfiguration
    nonisolated let logger: Logger
    nonisolated let launcher: (any AppLauncher)?
    /// Starts apps' declared service extension executables (NotificationScheduler+ServiceExtensions.swift).
    nonisolated let serviceExtensionHost: (any ServiceExtensionHost)?

    nonisolated let wake = WakeSignal()
    /// Renews the claims this engine holds while it works on them (ClaimRenewal.swift).
    nonisolated let claims: ClaimRenewal
    /// Concurrent adds and pushes share a transaction (GroupCommit.swift).
    let commits: GroupCommit
    /// What ``add(_:appID:)`` reads of the actor's state without hopping onto it (AddState.swift).
    nonisolated let addState = Mutex(AddState())
    private var foregroundApps: [String: any ForegroundApp] = [:]
    private var plannedTimeZone: String?
    /// While ``run()`` sleeps: the instant it sleeps until (`.distantFuture` when nothing is dated); `nil` while it
    /// works or does not run. An add due no sooner needs no wake-up: the loop reads the store again at that instant.
    private var plannedWake: Date?
    /// The instant the sleeping loop waits for (for tests); `nil` while it works or does not run.
    var sleepingUntil: Date? { plannedWake }
    /// When the store last refused to claim due requests; the loop retries after ``storeRetryDelay``.
    private var claimFailedAt: Date?
    /// The last location fix, in memory only (NotificationScheduler+Location.swift).
    var locationMemory = LocationMemory()
    /// In-process extension hosts and runs in progress (NotificationScheduler+ServiceExtensions.swift).
    var serviceExtensionState = ServiceExtensionState()

    private static let planZoneKey = "plan.timeZone"
    /// The loop does no store work within this many seconds before a held request's due instant: it does not wake
    /// to claim then, requests due that close after one presented are presented before any is recorded, and a claim
    /// ahead does not stop between two requests due that close together. Longer than recording a fire and one pass
    /// of the loop usually take (a few milliseconds), so neither makes a held request late.
    private static let quietBeforeDue: TimeInterval = 0.05
    /// The loop's wait for a held request ends this many seconds before its due instant, and the last stretch is
    /// one plain sleep on the clock: waking from the wait (a task group watching the clock and the wake signal, then
    /// the actor) takes tens of microseconds, which would otherwise add to the notification's lateness.
    private static let finalApproach: TimeInterval = 0.002
    /// Requests claimed ahead of their due instant by ``run()``, soonest first (see "Claiming ahead").
    private var held: [HeldRequest] = []
    /// Whether ``run()`` is running (and not stopping): only then are pushes stored already claimed
    /// (``acceptsClaimedPushes(appID:)``), since the loop presents them.
    private var loopRuns = false
    /// Pushes stored already claimed (``holdAccepted(_:readAt:)``) that the loop has not taken into `held` yet, and
    /// the oldest wake generation any of them was stored at. Only the loop changes `held`: a push accepted while the
    /// loop awaits a store call waits here, so that it is not lost when the loop assigns `held`.
    private var accepted: (requests: [PendingRequest], generation: UInt64) = ([], 0)
    /// The wake generation at which `held` was last checked against the store.
    private var heldCheckedAt: UInt64 = 0
    /// Counts the changes to apps' state and categories, so that a read for `held` made across one is not kept.
    private var preparedEpoch: UInt64 = 0
    /// The last of the fires being recorded in the background, in order (``record(_:)``).
    private var recording: Task<Void, Never>?
    /// Fires presented and not yet handed to the store (see ``record(_:)``).
    private var unrecorded: [Completion] = []
    /// The re-plan in progress after a zone change, and the zone it plans for (see ``checkPlannedZone()``).
    private var replanning: (zone: String, task: Task<Int, any Error>)?
    /// How long the loop waits before asking a store that failed again.
    static let storeRetryDelay: TimeInterval = 10

    /// Creates an engine.
    ///
    /// - Parameters:
    ///   - store: Where requests live; the engine resumes whatever the store already holds.
    ///   - clock: The source of time; a manual clock in tests.
    ///   - presenter: What shows notifications when the app does not run.
    ///   - configuration: The pending cap, authorization policy and deadlines.
    ///   - logger: Where discards, skips and failures are logged.
    ///   - launcher: Starts an app that is not running when a response is queued for it.
    ///   - serviceExtensionHost: Runs the service extension executables apps declare, for pushes with
    ///     `mutable-content` whose app does not run its extension in its own process.
    public init(
        store: any NotificationStore, clock: any NotificationClock, presenter: any NotificationPresenter,
        configuration: EngineConfiguration = EngineConfiguration(),
        logger: Logger = Logger(label: "OpenUserNotifications.engine"), launcher: (any AppLauncher)? = nil,
        serviceExtensionHost: (any ServiceExtensionHost)? = nil
    ) {
        self.launcher = launcher
        self.serviceExtensionHost = serviceExtensionHost
        self.store = store
        self.clock = clock
        self.presenter = presenter
        self.configuration = configuration
        self.logger = logger
        commits = GroupCommit(store: store, clock: clock)
        claims = ClaimRenewal(
            store: store, clock: clock, lease: configuration.claimLease, logger: logger,
            observer: configuration.claimRenewalObserver)
    }

    // MARK: - Requests

    /// Schedules a request, replacing any pending request of the app with the same identifier.
    ///
    /// - Throws: ``EngineError`` with `notificationsNotAllowed` when the app was denied, `invalidTrigger` for a
    ///   trigger Apple would trap on, `invalidNoDate` when a calendar trigger can never match.
    ///
    /// Adds that arrive together (from several clients of the daemon) share one store transaction and one `fsync`;
    /// each returns once its own request is durable.
    ///
    /// Off the actor: an add needs none of its state but the zone its plans were made in and the instant the loop
    /// sleeps until, both read from ``addState``; the hop onto the actor's executor and back cost a thread wake-up per
    /// add, and made concurrent adds wait for one another and for the loop before their group commit.
    public nonisolated func add(_ spec: RequestSpec, appID: String) async throws {
        if !addState.withLock({ $0.checkedZone == clock.timeZone.identifier }) { try await checkPlannedZone() }
        let now = clock.now
        let fireDate = try Self.checkedFirstFireDate(of: spec, at: now, calendar: clock.calendar)
        let request = PendingRequest(appID: appID, spec: spec, addedAt: now, nextFireDate: fireDate)
        let replaced = await pendingRequests(replacedBy: spec.identifier, appID: appID)
        let discardedByCap: [PendingRequest]
        do {
            // The app's authorization is read in the transaction that stores the request.
            let kind = GroupCommit.Kind(cap: configuration.pendingCap, refusesDenied: true)
            discardedByCap = try await commits.insert(request, kind: kind)
        } catch let error as EngineError {
            throw error
        } catch {
            throw EngineError(.storeFailure, "the notification store failed: \(error)")
        }
        if !replaced.isEmpty || !discardedByCap.isEmpty {
            await discardAttachments(of: replaced + discardedByCap.map(\.spec), appID: appID)
        }
        for discarded in discardedByCap {
            logger.warning(
                "discarded pending request: more than the pending cap",
                metadata: ["app": "\(appID)", "request": "\(discarded.identifier)"])
        }
        // The loop wakes at its planned instant and reads the store again then; but requests it holds, claimed ahead,
        // are checked against the store only after a signalled change, and this add may replace one of them.
        let state = addState.withLock { $0 }
        if discardedByCap.isEmpty, state.isQuiet(appID: appID, identifier: spec.identifier, fireDate: fireDate) {
            return
        }
        // Read after the commit: a claim that read the replaced request is under way or its requests are published.
        wake.signal(
            touchesHeld: !discardedByCap.isEmpty || state.mayReplaceHeld(appID: appID, identifier: spec.identifier))
    }

    /// Refuses content that could be stored but not read back: `userInfo` nested too deeply, or holding numbers JSON
    /// cannot carry. Every way in (the API, the daemon's socket, pushes) passes here, so what is accepted can always
    /// be listed, delivered and removed.
    static func checkLimits(of content: NotificationPayload) throws(EngineError) {
        do {
            try PropertyListValue.checkLimits(of: content.userInfo, path: "userInfo")
        } catch {
            throw EngineError(.invalidUserInfo, error.description)
        }
    }

    /// The app's pending requests. A push waiting for its service extension is not one: as on iOS, the app
    /// sees pushes only once they are delivered.
    public func pendingRequests(appID: String) async throws -> [PendingRequest] {
        try await storeCall { try await store.pendingRequests(appID: appID) }.filter { $0.spec.trigger != .push }
    }

    /// Removes pending requests, stopping every future fire of repeating ones; `nil` removes all of the app's.
    public func removePending(appID: String, identifiers: [String]?) async throws {
        let removed = try await storeCall { try await store.removePending(appID: appID, identifiers: identifiers) }
        await discardAttachments(of: removed.map(\.spec), appID: appID)
        wake.signal()
    }

    // MARK: - Delivered notifications

    public func deliveredNotifications(appID: String) async throws -> [DeliveredNotification] {
        try await storeCall { try await store.deliveredNotifications(appID: appID) }
    }

    /// Removes delivered notifications from the list and from the screen; `nil` removes all of the app's.
    public func removeDelivered(appID: String, identifiers: [String]?) async throws {
        let removed = try await storeCall {
            try await store.removeDelivered(appID: appID, identifiers: identifiers, outcome: .removed)
        }
        await discardAttachments(of: removed.map(\.request), appID: appID)
        if !removed.isEmpty { await presenter.withdraw(appID: appID, identifiers: removed.map(\.identifier)) }
    }

    // MARK: - Categories, authorization, badge

    /// Replaces the app's categories as a whole.
    public func setCategories(_ categories: [CategorySpec], appID: String) async throws {
        try await storeCall { try await store.setCategories(categories, appID: appID) }
        forgetPrepared(appID: appID)
    }

    public func categories(appID: String) async throws -> [CategorySpec] {
        try await storeCall { try await store.categories(appID: appID) }
    }

    /// The app's state, or a fresh `notDetermined` one for an app the store has never seen.
    public func appState(appID: String) async throws -> AppState {
        try await storeCall { try await store.appState(appID: appID) } ?? AppState(appID: appID)
    }

    /// Answers an authorization request according to the ``AuthorizationPolicy``.
    ///
    /// The first request decides, as on Apple platforms where the prompt appears once; later requests return
    /// that decision. A request for `.provisional` is granted provisionally without asking.
    /// - Returns: Whether the app may notify.
    public func requestAuthorization(appID: String, options: AuthorizationSet) async throws -> Bool {
        var state = try await appState(appID: appID)
        guard state.authorization == .notDetermined || state.authorization == .provisional else {
            return state.authorization.allowsDelivery
        }
        let policy = try await storeCall { try await store.policy() }.authorizationPolicy ?? configuration.authorizationPolicy
        switch policy {
        case .grantRequested:
            let provisionalOnly = options.contains(.provisional) && state.authorization == .notDetermined
            state.authorization = provisionalOnly ? .provisional : .authorized
            state.grantedOptions = options.subtracting(provisionalOnly ? [] : [.provisional])
        case .deny:
            state.authorization = .denied
            state.grantedOptions = []
        }
        try await storeCall { try await store.saveAppState(state) }
        forgetPrepared(appID: appID)
        return state.authorization.allowsDelivery
    }

    /// Sets an app's authorization directly, as a person does in the system's settings.
    public func setAuthorization(appID: String, status: AuthorizationStatus, options: AuthorizationSet) async throws {
        var state = try await appState(appID: appID)
        state.authorization = status
        state.grantedOptions = status == .denied || status == .notDetermined ? [] : options
        try await storeCall { try await store.saveAppState(state) }
        forgetPrepared(appID: appID)
    }

    /// Sets the app's badge count; 0 hides it.
    /// - Throws: ``EngineError`` with `badgeInputInvalid` for a negative count.
    public func setBadge(appID: String, count: Int) async throws {
        guard count >= 0 else { throw EngineError(.badgeInputInvalid, "badge count must not be negative (got \(count))") }
        var state = try await appState(appID: appID)
        state.badge = count
        try await storeCall { try await store.saveAppState(state) }
        await presenter.badgeDidChange(appID: appID, count: count)
    }

    public func allApps() async throws -> [AppState] {
        try await storeCall { try await store.allAppStates() }
    }

    /// The delivery history, newest first.
    public func history(appID: String?, limit: Int = 100) async throws -> [HistoryEntry] {
        try await storeCall { try await store.history(appID: appID, limit: limit) }
    }

    // MARK: - Foreground apps and responses

    /// Registers a running app: its `willPresent` decides how its notifications appear, and responses reach it
    /// directly. Responses queued while it was not running are handed over now.
    public func attach(_ app: any ForegroundApp, appID: String) async {
        foregroundApps[appID] = app
        let queued = (try? await store.queuedResponses(appID: appID)) ?? []
        for item in queued {
            guard await app.didReceive(item.response) else { break }
            do { try await store.removeQueuedResponse(id: item.id) } catch { logger.error("could not forget a handed-over response: \(error)") }
            await discardAttachments(of: [item.response.notification.request], appID: appID)
        }
    }

    /// Unregisters a running app; its responses are queued again until it next attaches.
    public func detach(appID: String) {
        foregroundApps[appID] = nil
    }

    /// Unregisters a running app only if `app` is still the registered one (a newer process may have taken over).
    public func detach(_ app: any ForegroundApp & AnyObject, appID: String) {
        if let current = foregroundApps[appID] as? AnyObject, current === app { foregroundApps[appID] = nil }
    }

    /// The apps whose process is running.
    public var runningApps: Set<String> { Set(foregroundApps.keys) }

    /// Acts on a delivered notification as a person would: taps it, picks an action, types text or dismisses it.
    ///
    /// The notification leaves the delivered list and its history entry records the answer. The response goes
    /// to the app when it runs and is queued until it runs otherwise. A dismissal reaches the app only when the
    /// category has `customDismissAction`, as on Apple platforms.
    ///
    /// - Parameters:
    ///   - actionIdentifier: An action of the notification's category, `ResponseSpec.defaultActionIdentifier`
    ///     or `ResponseSpec.dismissActionIdentifier`.
    ///   - userText: The text for a text-input action.
    /// - Returns: Whether the response is (or will be) handed to the app.
    /// - Throws: ``EngineError`` with `unknownNotification` or `unknownAction`.
    @discardableResult
    public func respond(
        appID: String, notificationIdentifier: String, actionIdentifier: String, userText: String? = nil
    ) async throws -> Bool {
        let delivered = try await storeCall { try await store.deliveredNotifications(appID: appID) }
        guard let notification = delivered.first(where: { $0.identifier == notificationIdentifier }) else {
            throw EngineError(.unknownNotification, "\(appID) has no delivered notification '\(notificationIdentifier)'")
        }
        let categoryID = notification.request.content.categoryIdentifier
        let category = try await storeCall { try await store.categories(appID: appID) }.first { $0.identifier == categoryID }
        var text = userText
        let outcome: HistoryEntry.Outcome
        let routed: Bool
        switch actionIdentifier {
        case ResponseSpec.defaultActionIdentifier:
            guard text == nil else { throw EngineError(.unknownAction, "the default action takes no text") }
            (outcome, routed) = (.action, true)
        case ResponseSpec.dismissActionIdentifier:
            guard text == nil else { throw EngineError(.unknownAction, "dismissing takes no text") }
            (outcome, routed) = (.dismissed, category?.sendsDismissAction ?? false)
        default:
            guard let action = category?.actions.first(where: { $0.identifier == actionIdentifier }) else {
                let known = category?.actions.map(\.identifier).joined(separator: ", ") ?? ""
                throw EngineError(
                    .unknownAction,
                    "category '\(categoryID)' of '\(notificationIdentifier)' has no action '\(actionIdentifier)'"
                        + (known.isEmpty ? "" : " (it has: \(known))"))
            }
            if action.textInput == nil, text != nil {
                throw EngineError(.unknownAction, "action '\(actionIdentifier)' is not a text-input action")
            }
            if action.textInput != nil, text == nil { text = "" }
            (outcome, routed) = (.action, true)
        }
        let response = ResponseSpec(
            notification: notification, actionIdentifier: actionIdentifier, userText: text, date: clock.now)
        try await storeCall { try await store.recordResponse(response, outcome: outcome, enqueue: routed) }
        await discardAttachments(of: [notification.request], appID: appID)
        await presenter.withdraw(appID: appID, identifiers: [notificationIdentifier])
        if routed, let foreground = foregroundApps[appID] {
            // Queued first and forgotten once taken, so a crash in between hands it over again: at least once.
            await attach(foreground, appID: appID)
        }
        if routed, let launcher, !((try? await store.queuedResponses(appID: appID)) ?? []).isEmpty {
            await launcher.launch(appID: appID)
        }
        return routed
    }

    // MARK: - Delivery
    //
    // The loop claims a request durably a little ahead of its due instant (``EngineConfiguration/claimAhead``), reads
    // what presenting it needs (the app's state and categories), sleeps to the instant and presents at once: the
    // write transaction and the reads happen before the instant, not between it and the presentation. Claimed
    // requests wait in `held`. A change signalled to the engine (an add, a removal, another process writing the
    // store, a zone change, a wall-clock jump) makes it check them against the store again before presenting any:
    // one removed or replaced meanwhile is dropped, one whose fire date moved is released. A crash while holding
    // loses nothing: the next engine takes back the claims of a process that no longer exists, and any claim that
    // is never completed is delivered again once its lease ends.

    /// Delivers everything due now, then returns how many notifications were shown.
    ///
    /// This is one pass of the loop ``run()`` repeats; tests call it after advancing a manual clock. It returns once
    /// every fire it made is recorded in the store.
    @discardableResult
    public func deliverDue() async -> Int {
        let shown = await deliverDuePass()
        await recordingsDone()
        return shown
    }

    /// One pass of the loop: presents what is due; the fires are recorded in the background (``record(_:)``).
    /// With ``EngineConfiguration/batchesInFlight`` above 1, the next batch is claimed while earlier ones are still
    /// being presented; the pass returns once every batch it claimed is presented.
    private func deliverDuePass() async -> Int {
        var shown = 0
        if zoneChangePending { shown += await presentHeldWhileReplanning() }
        do { try await checkPlannedZone() } catch { logger.error("could not re-plan after a zone change: \(error)") }
        shown += await presentHeld()
        let limit = max(1, configuration.batchesInFlight)
        return await withTaskGroup(of: Int.self, returning: Int.self) { group in
            var inFlight = 0
            var nothingDueAt: Date?
            while true {
                let now = clock.now
                // A read first (it waits for no writer): claiming is a write, which would wait behind another
                // process's or an import's transaction even when nothing is due. Nothing dated at all (`nil`) is
                // nothing due either; a read that failed goes on to the claim, which reports the store's error.
                if await Self.nothingDue(by: now, in: store, scope: configuration.deliveryScope) {
                    nothingDueAt = now
                    break
                }
                let claimed: [PendingRequest]
                // A write: it may wait behind another writer's transaction, while held requests fall due.
                let (store, configuration) = (self.store, self.configuration)
                let claim = await presentingHeld { () -> Result<[PendingRequest], any Error> in
                    do {
                        return .success(
                            try await store.claimDue(
                                at: now, leaseUntil: now.addingTimeInterval(configuration.claimLease),
                                limit: max(1, configuration.claimBatch), appID: configuration.deliveryScope))
                    } catch {
                        return .failure(error)
                    }
                }
                do {
                    claimed = try claim.get()
                } catch {
                    logger.error("could not read due requests: \(error)")
                    claimFailedAt = now
                    break
                }
                claimFailedAt = nil
                claims.hold(claimed.map(\.revision))
                guard !claimed.isEmpty else {
                    nothingDueAt = now
                    break
                }
                // The apps' states and categories for the whole batch in two reads, not two per fire.
                let ready = Dictionary(
                    await prepared(claimed).compactMap { entry in entry.prepared.map { (entry.request.appID, $0) } }
                ) { first, _ in first }
                // One batch at a time (the default, and embedded mode's every pass): presented right here, without a
                // child task to start and wait for.
                guard limit > 1 else {
                    shown += await fire(claimed, prepared: ready, recordEach: true).shown
                    continue
                }
                group.addTask { await self.fire(claimed, prepared: ready, recordEach: true).shown }
                inFlight += 1
                if inFlight >= limit, let done = await group.next() {
                    shown += done
                    inFlight -= 1
                }
            }
            for await done in group { shown += done }
            if let nothingDueAt { await advanceFloatingPlans(at: nothingDueAt) }
            return shown
        }
    }

    /// Whether nothing in `store` is due by `instant`: its next wake date is later, or nothing is dated at all. A read
    /// that failed answers `false`, so that the claim that follows reports the store's error.
    private static func nothingDue(by instant: Date, in store: any NotificationStore, scope: String?) async -> Bool {
        do {
            return try await store.nextWakeDate(appID: scope).map { $0 > instant } ?? true
        } catch {
            return false
        }
    }

    /// Runs the delivery loop until the task is cancelled: deliver what is due, claim what falls due within
    /// ``EngineConfiguration/claimAhead``, then sleep until the next due instant, the next time to claim, or the
    /// next change.
    ///
    /// The loop runs on a thread of its own (`LoopExecutor`, named `unotify-loop`), which the system clock's timer
    /// wakes directly at a due instant, at the real-time priority ``EngineConfiguration/loopRealtimePriority`` when
    /// one is set and allowed, else with the short scheduler slice ``EngineConfiguration/loopTimeSlice``. The thread
    /// ends when this returns.
    ///
    /// ```swift
    /// let loop = Task { await scheduler.run() }
    /// // ...
    /// loop.cancel()
    /// await loop.value  // held claims released
    /// ```
    public func run() async {
        let executor = LoopExecutor(
            name: "unotify-loop", realtimePriority: configuration.loopRealtimePriority,
            timeSlice: configuration.loopTimeSlice)
        if let priority = configuration.loopRealtimePriority, await !executor.raisedPriority() {
            logger.notice(
                "the delivery loop's thread keeps its normal priority: SCHED_FIFO was refused",
                metadata: ["priority": "\(priority)"])
        }
        await executor.run { await runLoop() }
    }

    /// The body of ``run()``, on the loop's thread.
    private func runLoop() async {
        logger.debug("engine running")
        loopRuns = true
        do {
            let released = try await store.releaseAbandonedClaims()
            if released > 0 { logger.info("took back deliveries a stopped engine had claimed", metadata: ["count": "\(released)"]) }
        } catch {
            logger.error("could not release abandoned claims: \(error)")
        }
        while !Task.isCancelled {
            let seen = wake.generation
            _ = await deliverDuePass()
            var horizon = clock.now.addingTimeInterval(configuration.claimAhead)
            var claimed = await claimAhead(dueBy: horizon)
            var next: Date?
            while true {
                do { next = try await store.nextWakeDate(appID: configuration.deliveryScope) } catch {
                    logger.error("could not read the next fire date: \(error)")
                    next = clock.now.addingTimeInterval(Self.storeRetryDelay)
                    break
                }
                // The claim ends in a gap: a request due right after the last one claimed is claimed with it.
                guard claimed > 0, let planned = next, planned > horizon,
                    planned <= horizon.addingTimeInterval(Self.quietBeforeDue)
                else { break }
                horizon = planned.addingTimeInterval(Self.quietBeforeDue)
                claimed = await claimAhead(dueBy: horizon)
            }
            // A store that refused the claim (read-only, full): try again later, not in a tight loop.
            if let failed = claimFailedAt, let planned = next, planned < failed + Self.storeRetryDelay {
                next = failed + Self.storeRetryDelay
            } else if let planned = next {
                // Wake early enough to claim ahead, unless that window was just tried: what is left in it cannot be
                // claimed ahead (a lease that has not ended yet, or more than one batch).
                let early = planned.addingTimeInterval(-configuration.claimAhead)
                if early > clock.now { next = early }
            }
            // A held request due soon comes first: claiming just before its instant would make it late, and after
            // presenting it the loop claims ahead anyway.
            if let due = held.first?.request.nextFireDate,
                next.map({ $0 > due.addingTimeInterval(-Self.quietBeforeDue) }) ?? true
            {
                next = due.addingTimeInterval(-Self.finalApproach)
            }
            plannedWake = next ?? .distantFuture
            // Held requests do not change while the loop sleeps (a push handed over ends the quiet: holdAccepted), so
            // an add checks this instant and these requests alone.
            let quiet = quietInstant(plannedWake: plannedWake ?? .distantFuture)
            let heldKeys = Set(held.map { entry in
                AddState.heldKey(appID: entry.request.appID, identifier: entry.request.identifier)
            })
            let handed = accepted.requests.map { AddState.heldKey(appID: $0.appID, identifier: $0.identifier) }
            addState.withLock { state in
                state.quietUntil = quiet
                state.quietHeld = heldKeys
                state.heldKeys = heldKeys.union(handed)
            }
            await waitForWork(until: next, seen: seen)
            addState.withLock { state in
                state.quietUntil = nil
                state.quietHeld = []
            }
            plannedWake = nil
        }
        loopRuns = false
        await recordingsDone()
        takeAccepted()
        await releaseHeld()
    }

    /// From when on an add needs no wake-up while the loop sleeps until `plannedWake` (see ``AddState/quietUntil``):
    /// holding requests, the loop claims ahead again only after presenting the last of them.
    private func quietInstant(plannedWake: Date) -> Date {
        guard let last = held.compactMap(\.request.nextFireDate).max() else { return plannedWake }
        return max(plannedWake, last.addingTimeInterval(configuration.claimAhead))
    }

    /// Wakes the loop so it re-reads the store, for changes made by another process.
    public nonisolated func storeDidChange() {
        wake.signal()
    }

    /// Re-plans floating calendar triggers after the system zone changed, and wakes the loop.
    public func timeZoneDidChange() async throws {
        try await checkPlannedZone()
        wake.signal()
    }

    private nonisolated func waitForWork(until next: Date?, seen: UInt64) async {
        let clock = self.clock
        let wake = self.wake
        await withTaskGroup(of: Void.self) { group in
            if let next { group.addTask { try? await clock.sleep(until: next) } }
            group.addTask { await wake.wait(after: seen) }
            await group.next()
            group.cancelAll()
        }
    }

    // MARK: - Claiming ahead

    /// A request claimed before its due instant, with what presenting it needs.
    struct HeldRequest: Sendable {
        var request: PendingRequest
        var prepared: PreparedFire?
    }

    /// What ``fire(_:)`` reads from the store, read ahead of the due instant.
    struct PreparedFire: Sendable {
        var state: AppState
        var categories: [CategorySpec]
    }

    /// How many requests are claimed ahead and waiting for their due instant (for tests).
    var heldCount: Int { held.count }

    /// Claims what falls due by `horizon` (the lease runs ``EngineConfiguration/claimLease`` past it) and reads
    /// what presenting it needs. The claim is a write, which waits behind another writer's transaction (an import's,
    /// a re-plan's, another process's) for as long as that takes; held requests falling due meanwhile are presented
    /// at their instants (``presentingHeld(during:)``).
    /// - Returns: How many requests were claimed.
    private func claimAhead(dueBy horizon: Date) async -> Int {
        guard configuration.claimAhead > 0, held.count < max(1, configuration.claimBatch) else { return 0 }
        let limit = max(1, configuration.claimBatch) - held.count
        // Until the requests claimed are published, every add counts as one that may replace a held request.
        addState.withLock { $0.heldKeysPending += 1 }
        defer { publishHeldKeys(endingPending: true) }
        // Taken before the claim: a change signalled from here on may postdate what the claim read.
        let generation = wake.heldGeneration
        let (store, clock, configuration, logger) = (self.store, self.clock, self.configuration, self.logger)
        let claimed = await presentingHeld { () -> [PendingRequest] in
            // Nothing falls due by the horizon, or nothing is dated: no write (see deliverDuePass).
            if await Self.nothingDue(by: horizon, in: store, scope: configuration.deliveryScope) { return [] }
            do {
                return try await store.claimDue(
                    at: clock.now, dueBy: horizon, leaseUntil: horizon.addingTimeInterval(configuration.claimLease),
                    limit: limit, appID: configuration.deliveryScope)
            } catch {
                logger.error("could not claim requests falling due: \(error)")
                return []
            }
        }
        guard !claimed.isEmpty else { return 0 }
        claims.hold(claimed.map(\.revision))
        let entries = await prepared(claimed)
        // Held requests count as checked at the oldest generation any of them was read at; requests presented while
        // the claim waited may have left `held` empty.
        heldCheckedAt = held.isEmpty ? generation : min(heldCheckedAt, generation)
        held += entries
        let now = clock.now
        held.sort { ($0.request.nextFireDate ?? now) < ($1.request.nextFireDate ?? now) }
        return claimed.count
    }

    // MARK: - Pushes stored claimed

    /// Whether a push of `appID` due now is stored already claimed by this engine in the transaction that accepts it
    /// (``GroupCommit/Kind/claimLease``), and handed to the loop without a claim transaction: only while ``run()``
    /// runs and delivers the app's requests, with a lease the engine renews.
    func acceptsClaimedPushes(appID: String) -> Bool {
        loopRuns && configuration.claimLease > 0 && configuration.claimLease.isFinite
            && (configuration.deliveryScope == nil || configuration.deliveryScope == appID)
    }

    /// Hands a push stored already claimed by this engine to the loop, which presents it as a request claimed ahead
    /// that is due, and records it (``holdAccepted(_:readAt:)`` with one push).
    func holdAccepted(_ request: PendingRequest, readAt generation: UInt64) async {
        await holdAccepted([request], readAt: generation)
    }

    /// Hands pushes stored already claimed by this engine to the loop, which presents them as requests claimed ahead
    /// that are due, and records them.
    ///
    /// The claims are renewed from here on, until the fires are recorded. When the loop stopped meanwhile (it released
    /// its held requests), the claims are released instead, so the requests are delivered by the next engine at once.
    /// The pushes of one batch (``deliverPushes(_:deliver:)``) are handed over in one step: one wake-up of the loop,
    /// and their keys added to ``AddState/heldKeys`` without publishing every held request's key again for each.
    /// - Parameters:
    ///   - requests: The pushes as stored and claimed, with their revisions.
    ///   - generation: The wake generation read before the transaction that stored them: a change signalled since may
    ///     postdate it, and the loop checks them against the store first (see ``recheckHeld()``).
    func holdAccepted(_ requests: [PendingRequest], readAt generation: UInt64) async {
        guard !requests.isEmpty else { return }
        guard loopRuns else {
            do { try await store.releaseClaims(revisions: requests.map(\.revision)) } catch {
                logger.error("could not release a claim; the push is delivered after its lease: \(error)")
            }
            storeDidChange()
            return
        }
        claims.hold(requests.map(\.revision))
        accepted.generation = accepted.requests.isEmpty ? generation : min(accepted.generation, generation)
        accepted.requests += requests
        // The loop holds these requests from here on (see AddState): an add that replaces one must wake the loop, so
        // that it is checked against the store before it is presented. The published keys may name requests the loop
        // no longer holds (it republishes them all before it sleeps): adding these keeps them a superset, and they are
        // rebuilt only when the stale ones outnumber the held ones, so a push costs a constant step here rather than
        // one per request held (measured: 12 µs of CPU per push with 100 streams, docs/benchmarks.md, session 13).
        let keys = requests.map { AddState.heldKey(appID: $0.appID, identifier: $0.identifier) }
        let holding = held.count + accepted.requests.count
        let rebuilds = addState.withLock { state in
            state.quietUntil = nil
            state.heldKeys.formUnion(keys)
            return state.heldKeys.count > 2 * holding + 64
        }
        if rebuilds { publishHeldKeys(endingPending: false) }
        wake.signal()
    }

    /// Publishes the requests the loop holds and has been handed (``AddState/heldKeys``), for adds to tell whether
    /// they may replace one; with `endingPending`, in the same step ends one claim (or push stored claimed) under way
    /// (``AddState/heldKeysPending``).
    private func publishHeldKeys(endingPending: Bool) {
        var keys = Set<String>(minimumCapacity: held.count + accepted.requests.count)
        for entry in held {
            keys.insert(AddState.heldKey(appID: entry.request.appID, identifier: entry.request.identifier))
        }
        for request in accepted.requests {
            keys.insert(AddState.heldKey(appID: request.appID, identifier: request.identifier))
        }
        addState.withLock { state in
            state.heldKeys = keys
            if endingPending { state.heldKeysPending -= 1 }
        }
    }

    /// Moves the pushes stored claimed into `held`, soonest first; their app's state and categories are read when
    /// `held` is checked against the store next (a wake was signalled when each was handed over).
    private func takeAccepted() {
        guard !accepted.requests.isEmpty else { return }
        heldCheckedAt = held.isEmpty ? accepted.generation : min(heldCheckedAt, accepted.generation)
        held += accepted.requests.map { HeldRequest(request: $0, prepared: nil) }
        accepted.requests = []
        let now = clock.now
        held.sort { ($0.request.nextFireDate ?? now) < ($1.request.nextFireDate ?? now) }
    }

    /// Runs `work` (a store call of the loop's) while presenting the held requests that fall due before it returns.
    ///
    /// A write waits for whatever transaction holds the store's write lock: an import's batch, a re-plan of every
    /// floating plan, another process's. A request claimed ahead must not wait with it. `work` runs in a task of its
    /// own and must not touch the actor's state; while a zone change is pending, held floating requests wait (the
    /// re-plan may move them).
    private func presentingHeld<T: Sendable>(during work: @escaping @Sendable () async -> T) async -> T {
        let task = Task { await work() }
        while !Task.isCancelled {
            takeAccepted()
            let zoneIndependentOnly = zoneChangePending
            guard
                let due = held.first(where: { !zoneIndependentOnly || !$0.request.isFloating })?.request.nextFireDate
            else { break }
            let clock = self.clock
            let approach = due.addingTimeInterval(-Self.finalApproach)
            let finished = await FirstAnswer.race(
                {
                    _ = await task.value
                    return true
                },
                orElse: {
                    try? await clock.sleep(until: approach)
                    return false
                })
            if finished { break }
            _ = await presentHeld(zoneIndependentOnly: zoneIndependentOnly)
        }
        return await task.value
    }

    /// The requests with their apps' state and categories, read with one store call each for all their apps
    /// (``NotificationStore/appStates(appIDs:)``, ``NotificationStore/categories(appIDs:)``); without them (`nil`)
    /// when a read failed or an app's state changed while they ran (``fire(_:)`` reads it again then).
    private func prepared(_ requests: [PendingRequest]) async -> [HeldRequest] {
        let apps = Array(Set(requests.map(\.appID)))
        let epoch = preparedEpoch
        var byApp: [String: PreparedFire] = [:]
        if !apps.isEmpty, let states = try? await storeCall({ try await store.appStates(appIDs: apps) }),
            let categories = try? await storeCall({ try await store.categories(appIDs: apps) }),
            epoch == preparedEpoch
        {
            for app in apps {
                byApp[app] = PreparedFire(state: states[app] ?? AppState(appID: app), categories: categories[app] ?? [])
            }
        }
        return requests.map { HeldRequest(request: $0, prepared: byApp[$0.appID]) }
    }

    /// Checks the held requests against the store after a change that may concern them was signalled
    /// (``WakeSignal/heldGeneration``; not after an add that replaced none of them): a request removed or replaced is
    /// dropped, one whose fire date moved is released (the loop claims it again when it falls due), and the rest is
    /// read again for presenting.
    private func recheckHeld() async {
        let generation = wake.heldGeneration
        guard !held.isEmpty, generation != heldCheckedAt else { return }
        let dates: [Int64: Date]
        do {
            dates = try await store.claimedFireDates(revisions: held.map(\.request.revision))
        } catch {
            // Not checked, not presented: released if possible, else delivered again after the lease.
            logger.error("could not check requests claimed ahead: \(error)")
            await releaseHeld()
            return
        }
        let moved = held.filter { entry in
            dates[entry.request.revision].map { $0 != entry.request.nextFireDate } ?? false
        }
        if !moved.isEmpty {
            do { try await store.releaseClaims(revisions: moved.map(\.request.revision)) } catch {
                logger.error("could not release claims: \(error)")
            }
        }
        let kept = held.filter { dates[$0.request.revision] == $0.request.nextFireDate }
        // Released, or no longer this engine's (removed, replaced, taken over): not renewed any more.
        claims.drop(held.filter { dates[$0.request.revision] != $0.request.nextFireDate }.map(\.request.revision))
        held = await prepared(kept.map(\.request))
        heldCheckedAt = generation
    }

    /// Makes the held requests of an app read its state and categories again when presented (they changed).
    private func forgetPrepared(appID: String) {
        preparedEpoch &+= 1
        for index in held.indices where held[index].request.appID == appID { held[index].prepared = nil }
    }

    /// Releases every held claim, so another engine (or this one, started again) delivers the requests on time.
    private func releaseHeld() async {
        guard !held.isEmpty else { return }
        let revisions = held.map(\.request.revision)
        held = []
        claims.drop(revisions)
        do { try await store.releaseClaims(revisions: revisions) } catch {
            logger.error("could not release claims; they are delivered again after their lease: \(error)")
        }
    }

    /// Presents the held requests that are due, then records them. Requests falling due within a few milliseconds of
    /// each other are presented one after another before any is recorded, so that recording one does not make the
    /// next one late.
    /// - Parameter zoneIndependentOnly: Leave held floating requests alone (a re-plan is due or running).
    private func presentHeld(zoneIndependentOnly: Bool = false) async -> Int {
        var shown = 0
        var completions: [Completion] = []
        let eligible = { (entry: HeldRequest) in !zoneIndependentOnly || !entry.request.isFloating }
        // Pushes handed over from here on wait for the next pass: under a stream of pushes this pass ends, and records
        // what it presented.
        takeAccepted()
        while !held.isEmpty {
            await recheckHeld()
            let now = clock.now
            let due = held.filter { eligible($0) && ($0.request.nextFireDate ?? now) <= now }
            if due.isEmpty {
                // Sleep to the next one here when it is due right after one presented, or when the loop's wait ended
                // just before its instant.
                guard let next = held.first(where: eligible)?.request.nextFireDate,
                    completions.isEmpty
                        ? next.timeIntervalSince(now) <= Self.finalApproach
                        : next.timeIntervalSince(now) < Self.quietBeforeDue
                else { break }
                do { try await clock.sleep(until: next) } catch { break }
                continue
            }
            let revisions = Set(due.map(\.request.revision))
            held.removeAll { revisions.contains($0.request.revision) }
            let prepared = Dictionary(due.compactMap { entry in entry.prepared.map { (entry.request.appID, $0) } }) {
                first, _ in first
            }
            let fired = await fire(due.map(\.request), prepared: prepared, recordEach: false)
            shown += fired.shown
            completions += fired.completions
        }
        record(completions)
        return shown
    }

    /// Re-plans after a zone change and, while the re-plan runs (a transaction of tens of milliseconds with many
    /// plans), presents the held requests that do not depend on the zone as they fall due: a re-plan delays no
    /// time-interval, push or fixed-zone request. Held floating requests wait for the re-plan, which may move them.
    /// Their fires are recorded once the re-plan has ended (it holds the store's write lock anyway).
    private func presentHeldWhileReplanning() async -> Int {
        let replan = Task { try await self.checkPlannedZone() }
        var shown = 0
        var completions: [Completion] = []
        while true {
            await recheckHeld()  // a read: it does not wait for the re-plan's transaction
            let now = clock.now
            let due = held.filter { !$0.request.isFloating && ($0.request.nextFireDate ?? now) <= now }
            if !due.isEmpty {
                let revisions = Set(due.map(\.request.revision))
                held.removeAll { revisions.contains($0.request.revision) }
                let prepared = Dictionary(due.compactMap { entry in entry.prepared.map { (entry.request.appID, $0) } }) {
                    first, _ in first
                }
                let fired = await fire(due.map(\.request), prepared: prepared, recordEach: false)
                shown += fired.shown
                completions += fired.completions
                continue
            }
            guard let next = held.first(where: { !$0.request.isFloating })?.request.nextFireDate else { break }
            let clock = self.clock
            let replanEnded = await FirstAnswer.race(
                {
                    _ = await replan.result
                    return true
                },
                orElse: {
                    try? await clock.sleep(until: next)
                    return false
                })
            if replanEnded { break }
        }
        _ = await replan.result
        record(completions)
        return shown
    }

    // MARK: - Firing

    /// How a fire ends in the store, recorded once the notification is presented.
    struct Completion: Sendable {
        var request: PendingRequest
        var next: Date?
        var delivered: DeliveredNotification?
        var history: HistoryEntry
        var badge: Int?
        /// A ``ConfirmingPresenter`` could not hand it over: not recorded, so its claim ends with its lease.
        var retryLater = false
    }

    /// Fires claimed requests: in order within an app; apps in parallel, so one app that is slow to answer delays
    /// no other.
    /// - Parameters:
    ///   - prepared: What was read ahead for each app.
    ///   - recordEach: Hand each fire to ``record(_:)`` as soon as it is presented; otherwise the caller records them
    ///     all.
    /// - Returns: How many were shown, and the fires left for the caller to record.
    private func fire(_ requests: [PendingRequest], prepared: [String: PreparedFire] = [:], recordEach: Bool) async
        -> (shown: Int, completions: [Completion])
    {
        let byApp = Dictionary(grouping: requests, by: \.appID)
        if byApp.count > 1, let confirming = presenter as? any ConfirmingPresenter {
            await confirming.willDeliver(appIDs: Set(byApp.keys))
        }
        // One app (the usual case): no child task to start and wait for.
        if byApp.count == 1, let appID = requests.first?.appID {
            return await fireInOrder(requests, prepared: prepared[appID], recordEach: recordEach)
        }
        return await withTaskGroup(of: (Int, [Completion]).self) { group in
            for (appID, requests) in byApp {
                let prepared = prepared[appID]
                group.addTask { await self.fireInOrder(requests, prepared: prepared, recordEach: recordEach) }
            }
            var shown = 0
            var completions: [Completion] = []
            for await (count, fired) in group {
                shown += count
                completions += fired
            }
            return (shown, completions)
        }
    }

    /// Fires one app's claimed requests in order (see ``fire(_:prepared:recordEach:)``).
    private func fireInOrder(_ requests: [PendingRequest], prepared: PreparedFire?, recordEach: Bool) async
        -> (shown: Int, completions: [Completion])
    {
        var shown = 0
        var completions: [Completion] = []
        for request in requests {
            let completion = await fire(request, prepared: prepared)
            // Not renewed any more: its lease ends, then it is presented again.
            if completion.retryLater { claims.drop([request.revision]) }
            if completion.delivered != nil { shown += 1 }
            if recordEach { record([completion]) } else { completions.append(completion) }
        }
        return (shown, completions)
    }

    /// Records fires in the store in the background, in order, so that the loop presents the next request on time
    /// while the store is busy with another transaction (an import, a re-plan). Until a fire is recorded its claim
    /// holds: nothing delivers it again unless this process dies first, and then the lease ends and it is delivered
    /// again (at least once).
    ///
    /// Fires handed over while the recorder writes wait for its next transaction, which takes all of them: a burst is
    /// recorded in a few transactions, not one per fire.
    private func record(_ completions: [Completion]) {
        guard !completions.isEmpty else { return }
        unrecorded += completions
        guard recording == nil else { return }
        recording = Task { [weak self] in await self?.recordUntilEmpty() }
    }

    /// The recorder: records what waits, batch after batch, until nothing does.
    private func recordUntilEmpty() async {
        while !unrecorded.isEmpty {
            let batch = unrecorded
            unrecorded = []
            await finish(batch)
        }
        recording = nil
    }

    /// Waits until every fire handed to ``record(_:)`` is recorded.
    private func recordingsDone() async {
        while let task = recording { await task.value }
    }

    /// Records fires in the store, each followed by its badge; then moves on the floating plans whose requests have
    /// all fired now (the loop's own pass may have looked before these fires were recorded).
    /// A fire's claim is renewed until it is recorded.
    private func finish(_ completions: [Completion]) async {
        let fires = completions.filter { !$0.retryLater }
        await complete(fires)
        for completion in fires {
            claims.drop([completion.request.revision])
            if let badge = completion.badge {
                await presenter.badgeDidChange(appID: completion.request.appID, count: badge)
            }
        }
        if completions.contains(where: \.request.isFloating) { await advanceFloatingPlans(at: clock.now) }
    }

    /// Handles one claimed fire: presents it (or skips it), and returns how to record it.
    private func fire(_ request: PendingRequest, prepared: PreparedFire?) async -> Completion {
        let now = clock.now
        let due = request.nextFireDate ?? now
        // What is delivered carries the strings resolved now; the pending request keeps the encoded ones.
        let spec = localized(request.spec, appID: request.appID)
        var history = HistoryEntry(
            appID: request.appID, requestIdentifier: spec.identifier, title: spec.content.title, dueDate: due,
            actedAt: now, presenter: "none", presentation: [], outcome: .skipped)
        func next() -> Date? {
            TriggerPlanner.nextFireDate(after: due, now: now, for: spec.trigger, calendar: clock.calendar)
        }

        let lateness = now.timeIntervalSince(due)
        guard spec.missedFirePolicy.shouldDeliver(lateness: lateness) else {
            history.detail = "missed by \(Int(lateness)) s, policy \(spec.missedFirePolicy)"
            logger.info("skipped a missed fire", metadata: ["app": "\(request.appID)", "request": "\(spec.identifier)"])
            return Completion(request: request, next: next(), delivered: nil, history: history, badge: nil)
        }

        let state: AppState
        if let known = prepared?.state {
            state = known
        } else {
            state = (try? await appState(appID: request.appID)) ?? AppState(appID: request.appID)
        }
        var categories = prepared?.categories
        if categories == nil { categories = try? await store.categories(appID: request.appID) }
        let category = categories?.first { $0.identifier == spec.content.categoryIdentifier }
        var notification = DeliveredNotification(
            appID: request.appID, request: spec, date: now, dueDate: due, presentation: [])
        var options: PresentationSet
        if let foreground = foregroundApps[request.appID] {
            options = await ask(foreground, notification) ?? configuration.presentationWhenUnanswered
            history.presenter = "app"
        } else {
            options = [.banner, .list, .sound, .badge]
        }
        options.formIntersection(Self.allowedPresentation(for: state))
        notification.presentation = options
        if options.isVisible || options.contains(.sound) {
            history.presenter = presenter.name
            if let confirming = presenter as? any ConfirmingPresenter {
                switch await confirming.deliver(notification, options: options, category: category) {
                case .presented:
                    break
                case .failed(let reason):
                    history.presentation = options
                    history.detail = reason
                    return Completion(request: request, next: next(), delivered: nil, history: history, badge: nil)
                case .retryLater(let reason):
                    logger.notice(
                        "could not hand a notification over; it is presented again when its claim's lease ends",
                        metadata: ["app": "\(request.appID)", "request": "\(spec.identifier)", "reason": "\(reason)"])
                    return Completion(
                        request: request, next: nil, delivered: nil, history: history, badge: nil, retryLater: true)
                }
            } else {
                await presenter.present(notification, options: options, category: category)
            }
        }
        history.presentation = options
        history.outcome = options.isVisible ? .delivered : state.authorization.allowsDelivery ? .silenced : .unauthorized
        let badge = options.contains(.badge) ? spec.content.badge : nil
        return Completion(
            request: request, next: next(), delivered: options.isVisible ? notification : nil, history: history,
            badge: badge)
    }

    /// The request with the `localizedUserNotificationString` values of its title, subtitle and body resolved in
    /// the person's languages of this moment.
    private func localized(_ spec: RequestSpec, appID: String) -> RequestSpec {
        let content = spec.content
        guard configuration.resolvesLocalizedStrings,
            [content.title, content.subtitle, content.body].contains(where: LocalizableString.mayContainEncoded)
        else {
            return spec
        }
        let languages = configuration.deliveryLanguages()
        let (payload, issues) = LocalizedStringResolver.shared.resolve(content, languages: languages)
        for issue in issues {
            let metadata: Logger.Metadata = ["app": "\(appID)", "request": "\(spec.identifier)"]
            switch issue.kind {
            case .missingKey: logger.info("\(issue.message)", metadata: metadata)
            case .unreadableTable, .missingBundle: logger.warning("\(issue.message)", metadata: metadata)
            }
        }
        var spec = spec
        spec.content = payload
        return spec
    }

    /// Records fires with one store call (one transaction on SQLite, shared with the adds and pushes waiting for the
    /// group commit's next transaction: ``GroupCommit/record(_:)``), then deletes the attachment files nothing names
    /// any more. A failure is logged: the claims then expire and the fires are delivered again (at least once).
    private func complete(_ fires: [Completion]) async {
        guard !fires.isEmpty else { return }
        // The attachment files the deliveries replace: those of the listed notifications with the same identifier,
        // and those of an earlier fire of the same batch with the same identifier (not listed yet when read).
        var replaced: [[RequestSpec]] = []
        var deliveredInBatch: [String: RequestSpec] = [:]
        // Whether each app has files in the data store, looked up once per batch, not once per fire (a pass over the
        // folder each: 1.5% of a push's samples in unotify-server-bench figure 4).
        var hasAttachments: [String: Bool] = [:]
        for fire in fires {
            guard let delivered = fire.delivered else {
                replaced.append([])
                continue
            }
            let appID = fire.request.appID
            let key = appID + "\u{0}" + delivered.identifier
            let checked = hasAttachments[appID] ?? hasStoredAttachments(appID: appID)
            hasAttachments[appID] = checked
            var specs = checked ? await listedRequests(replacedBy: delivered.identifier, appID: appID) : []
            if let earlier = deliveredInBatch.updateValue(delivered.request, forKey: key) { specs.append(earlier) }
            replaced.append(specs)
        }
        do {
            _ = try await commits.record(
                fires.map {
                    FireCompletion(
                        request: $0.request, nextFireDate: $0.next, delivered: $0.delivered, history: $0.history,
                        badge: $0.badge)
                })
        } catch {
            // The claims expire after the lease and the requests are delivered again: at least once, never lost.
            logger.error(
                "could not record deliveries: \(error)",
                metadata: ["requests": "\(fires.map(\.request.identifier).joined(separator: ", "))"])
            return
        }
        for (fire, specs) in zip(fires, replaced) {
            await discardAttachments(
                of: specs + (fire.next == nil ? [fire.request.spec] : []), appID: fire.request.appID)
        }
    }

    /// Asks a foreground app, giving up at the deadline.
    private func ask(_ app: any ForegroundApp, _ notification: DeliveredNotification) async -> PresentationSet? {
        let deadline = clock.now.addingTimeInterval(configuration.willPresentDeadline)
        let clock = self.clock
        return await FirstAnswer.race(
            { await app.willPresent(notification) },
            orElse: {
                try? await clock.sleep(until: deadline)
                return nil
            })
    }

    /// What an app's authorization lets a notification do.
    static func allowedPresentation(for state: AppState) -> PresentationSet {
        guard state.authorization.allowsDelivery else { return [] }
        if state.authorization == .provisional { return [.list] }
        var allowed: PresentationSet = []
        if state.grantedOptions.contains(.alert) { allowed.formUnion([.alert, .banner, .list]) }
        if state.grantedOptions.contains(.sound) { allowed.insert(.sound) }
        if state.grantedOptions.contains(.badge) { allowed.insert(.badge) }
        return allowed
    }

    // MARK: - Time zones

    /// Re-plans floating calendar triggers when the zone differs from the one the store's plan was made in.
    ///
    /// One re-plan runs at a time, in a task of its own: every caller that finds the zone changed (the loop, an add,
    /// ``timeZoneDidChange()``) waits for the same one, and the actor stays free while it runs.
    func checkPlannedZone() async throws {
        let zone = clock.timeZone.identifier
        if plannedTimeZone == nil {
            let stored = try await storeCall { try await store.metadata(Self.planZoneKey) }
            if let stored {
                plannedTimeZone = plannedTimeZone ?? stored
            } else {
                try await storeCall { try await store.setMetadata(Self.planZoneKey, zone) }
                plannedTimeZone = plannedTimeZone ?? zone
            }
        }
        guard let planned = plannedTimeZone, planned != zone else {
            addState.withLock { $0.checkedZone = zone }
            return
        }
        let task: Task<Int, any Error>
        if let replanning, replanning.zone == zone {
            task = replanning.task
        } else {
            task = Task { [store, clock] in try await Self.replanFloating(store: store, clock: clock, zone: zone) }
            replanning = (zone, task)
        }
        let count: Int
        do {
            count = try await task.value
        } catch {
            if replanning?.task == task { replanning = nil }
            throw error
        }
        // The first caller back records the new zone; the others find it recorded.
        guard replanning?.task == task else { return }
        replanning = nil
        plannedTimeZone = zone
        addState.withLock { $0.checkedZone = zone }
        logger.info("re-planned floating calendar triggers", metadata: ["from": "\(planned)", "to": "\(zone)", "count": "\(count)"])
        // Requests held for their old instants are checked against the store again before any is presented.
        wake.signal()
    }

    /// Whether the system zone differs from the one the floating plans were made in (a re-plan is due or running).
    private var zoneChangePending: Bool {
        plannedTimeZone.map { $0 != clock.timeZone.identifier } ?? false
    }

    /// Moves every floating plan that is not yet due to its first match after now in the new zone, and records the
    /// zone. Requests with identical components share one plan per app, and the store asks for one date per distinct
    /// component set, whatever the number of requests and apps.
    private static func replanFloating(store: any NotificationStore, clock: any NotificationClock, zone: String)
        async throws -> Int
    {
        let now = clock.now
        let calendar = clock.calendar
        return try await storeCall {
            let count = try await store.replanFloatingPlans(dueAfter: now) { Self.next($0, after: now, calendar: calendar) }
            try await store.setMetadata(Self.planZoneKey, zone)
            return count
        }
    }

    /// Moves the plans whose requests have all fired to their next match.
    private func advanceFloatingPlans(at now: Date) async {
        do {
            let calendar = clock.calendar
            let updates = try await store.exhaustedFloatingPlans(at: now, appID: configuration.deliveryScope).map { plan in
                FloatingPlanUpdate(
                    key: plan.key, nextFireDate: Self.next(plan.trigger, after: max(plan.nextFireDate ?? now, now), calendar: calendar))
            }
            if !updates.isEmpty { try await store.updateFloatingPlans(updates) }
        } catch {
            logger.error("could not move floating plans on: \(error)")
        }
    }

    private static func next(_ trigger: TriggerSpec, after date: Date, calendar: Calendar) -> Date? {
        guard case .calendar(let components, _, let matching) = trigger else { return nil }
        return TriggerPlanner.nextCalendarDate(after: date, matching: components, policy: matching, calendar: calendar)
    }

    /// Maps the store's errors to ``EngineError`` with `storeFailure` (an `EngineError` passes as it is).
    func storeCall<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as EngineError {
            throw error
        } catch {
            throw EngineError(.storeFailure, "the notification store failed: \(error)")
        }
    }

    /// ``storeCall(_:)`` for code that runs off the actor.
    static func storeCall<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as EngineError {
            throw error
        } catch {
            throw EngineError(.storeFailure, "the notification store failed: \(error)")
        }
    }
}
