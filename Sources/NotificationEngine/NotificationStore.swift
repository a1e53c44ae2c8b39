import Foundation
import NotificationLocation
import NotificationModel

/// Durable storage for everything the engine has accepted: pending requests, delivered notifications,
/// categories, per-app state, queued responses and the delivery history.
///
/// The engine owns this protocol; `NotificationStoreSQLite` implements it with GRDB. Every method is one
/// transaction, so a crash between two calls loses nothing that a call had acknowledged.
///
/// Every method is `async`: an implementation does its work on its own executor (GRDB's database queues, a
/// network connection), never on the caller's, so a long transaction (an import, a re-plan) stalls no actor that
/// awaits it, and the same protocol fits a store across a network.
public protocol NotificationStore: Sendable {
    // MARK: Pending requests

    /// Adds a request, replacing one of the same app with the same identifier, and applies the pending cap.
    ///
    /// - Parameters:
    ///   - request: The request; its `revision` is assigned by the store.
    ///   - cap: Keep at most this many dated pending requests for the app (the soonest-firing ones; a repeating
    ///     request counts once); `nil` keeps all. A cap in the store's ``StorePolicy`` takes precedence: it is read
    ///     in the same transaction, so every process adding to the store applies the same one.
    ///   - date: When the request was accepted, recorded in the history of discarded requests.
    /// - Returns: The stored request, and the requests discarded by the cap (possibly the new one).
    func insertPending(_ request: PendingRequest, cap: Int?, at date: Date) async throws -> PendingInsertion

    /// Adds many requests in one transaction: each replaces the pending request of its app with its identifier (one
    /// earlier in the batch too), then the pending cap is applied once to each app of the batch. Nothing of the
    /// batch is stored when the call throws.
    ///
    /// - Parameters:
    ///   - requests: The requests, of any apps, in order.
    ///   - cap: As for ``insertPending(_:cap:at:)``; the store's own cap takes precedence.
    ///   - date: When the batch was accepted, recorded in the history of discarded requests.
    /// - Returns: The requests discarded by the cap (possibly some of the batch's).
    func insertPending(batch requests: [PendingRequest], cap: Int?, at date: Date) async throws -> [PendingRequest]

    /// Adds many requests as ``insertPending(batch:cap:at:)`` does, except those of apps denied notifications
    /// (``AuthorizationStatus/denied``), which are left out. An implementation reads the apps' authorization in the
    /// same transaction as it writes: an add then needs no read of its own, and a denial written by another process
    /// at the same moment is seen either entirely before the add or entirely after it. The default reads
    /// ``deniedAppIDs(among:)`` first, in a transaction of its own.
    ///
    /// - Returns: The requests discarded by the cap, and the apps whose requests were left out.
    func insertPendingOfAllowedApps(batch requests: [PendingRequest], cap: Int?, at date: Date) async throws
        -> PendingBatchInsertion

    /// Adds many requests as ``insertPendingOfAllowedApps(batch:cap:at:)`` does and, in the same transaction, claims
    /// the stored ones with a fire date of their own for this process until `leaseUntil`, as
    /// ``claimDue(at:dueBy:leaseUntil:limit:appID:)`` would claim them: the engine stores a push that is due at once
    /// already claimed, and presents it without a claim transaction of its own. Undated requests (location triggers)
    /// and floating calendar requests are stored unclaimed.
    ///
    /// At least once still holds: a claim that is never completed (the process died after the request was stored)
    /// ends with its lease, or when the next engine on the store releases the claims of processes that no longer
    /// exist, and the request is delivered then. The default stores the requests with
    /// ``insertPendingOfAllowedApps(batch:cap:at:)`` and claims none of them (`claimed` is empty): the engine's loop
    /// claims them when they are due, as any other request.
    ///
    /// ```swift
    /// let stored = try await store.insertPendingOfAllowedApps(
    ///     batch: pushes, cap: nil, at: now, claimedUntil: now.addingTimeInterval(60))
    /// // stored.claimed: the stored requests with their revisions, claimed by this process
    /// ```
    /// - Returns: The requests discarded by the cap, the apps whose requests were left out, and the requests stored
    ///   and claimed (``PendingBatchInsertion/claimed``): each with its revision and its fire date as stored; a request
    ///   replaced by a later one of the batch, or discarded by the cap, is not among them.
    func insertPendingOfAllowedApps(
        batch requests: [PendingRequest], cap: Int?, at date: Date, claimedUntil leaseUntil: Date
    ) async throws -> PendingBatchInsertion

    /// The app's pending requests, oldest first.
    func pendingRequests(appID: String) async throws -> [PendingRequest]

    // MARK: Policy

    /// The settings every process on this store applies (see ``StorePolicy``).
    func policy() async throws -> StorePolicy

    /// Replaces the store's settings, atomically for every process that uses the store.
    func setPolicy(_ policy: StorePolicy) async throws

    /// Removes pending requests; `identifiers == nil` removes all of the app's.
    /// - Returns: The removed requests.
    func removePending(appID: String, identifiers: [String]?) async throws -> [PendingRequest]

    /// The earliest instant at which something may be due: an unclaimed fire date or an expiring claim.
    /// - Parameter appID: Only this app's requests; `nil` for every app.
    func nextWakeDate(appID: String?) async throws -> Date?

    /// Claims up to `limit` requests due at `date` for delivery until `leaseUntil`, so that another engine on
    /// the same store does not deliver them too; a claim that is never completed expires and the request is
    /// delivered again.
    /// - Parameter appID: Only this app's requests; `nil` for every app.
    func claimDue(at date: Date, leaseUntil: Date, limit: Int, appID: String?) async throws -> [PendingRequest]

    /// Claims, like ``claimDue(at:leaseUntil:limit:appID:)``, up to `limit` requests: unclaimed ones due at or before
    /// `horizon`, which may be later than `date` (the engine claims a little ahead of the due instant), and claims
    /// whose lease ended at or before `date`, soonest first.
    ///
    /// ```swift
    /// let soon = try await store.claimDue(at: now, dueBy: now + 0.25, leaseUntil: now + 60.25, limit: 256, appID: nil)
    /// ```
    ///
    /// - Parameters:
    ///   - date: Now: claims whose lease ended by then are taken back.
    ///   - horizon: The latest due instant claimed.
    ///   - leaseUntil: When the new claims end if never completed.
    ///   - limit: The most requests claimed.
    ///   - appID: Only this app's requests; `nil` for every app.
    /// - Returns: The claimed requests, each with the fire date it is due at.
    func claimDue(at date: Date, dueBy horizon: Date, leaseUntil: Date, limit: Int, appID: String?) async throws
        -> [PendingRequest]

    /// The fire dates of the requests with these revisions that this process still holds a claim on; a request
    /// removed or replaced meanwhile (a new revision), or claimed by another process, is missing.
    func claimedFireDates(revisions: [Int64]) async throws -> [Int64: Date]

    /// Ends this process's claims on the requests with these revisions without firing them: they are due again at
    /// their fire date. Revisions that no longer exist, or that another process claimed, are left alone.
    func releaseClaims(revisions: [Int64]) async throws

    /// Extends this process's claims on the requests with these revisions to at least `leaseUntil`, in one statement:
    /// what a live engine does while it still holds them (presenting, retrying, recording), so that no other engine
    /// takes them over while it works.
    ///
    /// A claim is renewed only while this process still holds it: a revision completed, released, removed or replaced
    /// meanwhile is not renewed, and neither is one whose lease ended and that another process (another store
    /// instance, for PostgreSQL) then claimed. A claim whose lease ended but that nobody took is renewed. A lease
    /// already ending after `leaseUntil` is kept.
    ///
    /// ```swift
    /// let kept = try await store.renewClaims(revisions: held, leaseUntil: clock.now.addingTimeInterval(60))
    /// let lost = Set(held).subtracting(kept)  // taken over, or finished meanwhile
    /// ```
    ///
    /// - Parameters:
    ///   - revisions: The revisions whose claims to renew.
    ///   - leaseUntil: The new end of their leases.
    /// - Returns: The revisions whose claims this process still holds, now renewed, in no particular order.
    func renewClaims(revisions: [Int64], leaseUntil: Date) async throws -> [Int64]

    /// Releases the claims of processes that no longer exist (an engine killed while delivering), so their
    /// requests are delivered now rather than when the lease expires.
    /// - Returns: How many claims were released.
    func releaseAbandonedClaims() async throws -> Int

    /// Finishes a claimed fire in one transaction: reschedules the request (or removes it when `nextFireDate` is
    /// `nil`) unless it was replaced meanwhile, lists `delivered`, sets the badge and appends `history`. A repeating
    /// location trigger is never removed: with `nextFireDate == nil` it goes back to waiting, undated, for its next
    /// crossing (unless a newer crossing already made it due again).
    /// - Returns: The history entry's identifier.
    @discardableResult
    func completeFire(
        _ request: PendingRequest, nextFireDate: Date?, delivered: DeliveredNotification?, history: HistoryEntry,
        badge: Int?
    ) async throws -> Int64

    /// Records many fires as ``completeFire(_:nextFireDate:delivered:history:badge:)`` records each, in order: what
    /// the engine's recorder does with the fires that queued up while it wrote the previous ones. The PostgreSQL store
    /// records them in a few set-based statements in one transaction per group of apps (a round trip per statement,
    /// not per fire), the SQLite store all of them in one transaction; the default calls `completeFire` for each.
    /// - Returns: The history entries' identifiers, in order (0 for a fire another engine records, as
    ///   `completeFire` answers).
    @discardableResult
    func completeFires(_ fires: [FireCompletion]) async throws -> [Int64]

    /// Records fires as ``completeFires(_:)`` does and stores a batch of requests as the engine's group commit does
    /// (``insertPending(batch:cap:at:)`` when `leavingOutDenied` is `false`, otherwise
    /// ``insertPendingOfAllowedApps(batch:cap:at:claimedUntil:)`` with `leaseUntil`, or
    /// ``insertPendingOfAllowedApps(batch:cap:at:)`` without), the fires first: what the engine's writer does with
    /// the fires and the requests that queued up together while it wrote the previous transaction.
    ///
    /// The SQLite store writes both in **one** transaction, with one commit and one `fsync`; when that transaction
    /// fails it writes each part in a transaction of its own, so that each part's result says whether that part is
    /// durable. The default writes the parts one after the other, each with its own result (the PostgreSQL store's
    /// commits cost no local `fsync`).
    ///
    /// ```swift
    /// let outcome = await store.completeFires(
    ///     fires, insertingPending: pushes, cap: nil, at: now, leavingOutDenied: true, claimedUntil: lease)
    /// ```
    /// - Returns: Each part's result: a part that failed stored nothing of its own.
    func completeFires(
        _ fires: [FireCompletion], insertingPending batch: [PendingRequest], cap: Int?, at date: Date,
        leavingOutDenied: Bool, claimedUntil leaseUntil: Date?
    ) async -> FiresAndInsertion

    /// The plans of floating calendar triggers (one per app, components and matching policy: every request
    /// following a plan fires at its instant) whose instant is after `date`.
    func floatingPlans(dueAfter date: Date) async throws -> [FloatingPlan]

    /// Due plans every request of which has fired for the plan's instant: they move to their next instant.
    func exhaustedFloatingPlans(at date: Date, appID: String?) async throws -> [FloatingPlan]

    /// Moves plans to new instants (after a zone change, or after they fired); `nil` means the components never
    /// match again, and the plan ends with the requests that follow it.
    func updateFloatingPlans(_ updates: [FloatingPlanUpdate]) async throws

    /// Moves every plan whose instant is after `date` to the instant `nextFireDate` gives for its trigger, in one
    /// transaction: what a zone change asks of floating calendar triggers.
    ///
    /// `nextFireDate` is called once per distinct trigger (components and matching policy), however many apps' plans
    /// share it, and inside the transaction, so it must be quick and must not call the store. A `nil` answer means the
    /// components never match again: those plans end with the requests that follow them, as in
    /// ``updateFloatingPlans(_:)``.
    ///
    /// ```swift
    /// let moved = try await store.replanFloatingPlans(dueAfter: now) { trigger in
    ///     guard case .calendar(let components, _, let matching) = trigger else { return nil }
    ///     return TriggerPlanner.nextCalendarDate(
    ///         after: now, matching: components, policy: matching, calendar: calendar)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - date: Plans due at or before this instant are left alone (they fire, then move on as usual).
    ///   - nextFireDate: The new instant for a trigger.
    /// - Returns: How many plans moved or ended.
    /// - Throws: What the store or `nextFireDate` throws; then nothing has changed.
    func replanFloatingPlans(
        dueAfter date: Date, nextFireDate: @escaping @Sendable (TriggerSpec) throws -> Date?
    ) async throws -> Int

    // MARK: Location triggers

    /// The pending requests with a location trigger, with the region state stored for each, oldest first.
    /// - Parameter appID: Only this app's requests; `nil` for every app.
    func locationRequests(appID: String?) async throws -> [LocationRequestState]

    /// Saves the region states of location requests and makes the ones whose crossing notifies due at their
    /// `dueAt`, in one transaction, so that ``claimDue(at:leaseUntil:limit:appID:)`` and ``completeFire(_:nextFireDate:delivered:history:badge:)``
    /// deliver them like any other request. An update for a revision that no longer exists (the request was
    /// replaced or removed meanwhile) is ignored.
    func updateRegionStates(_ updates: [RegionStateUpdate]) async throws

    // MARK: Delivered notifications

    /// The app's delivered notifications, oldest first; equal dates in the order their fires were recorded (a
    /// notification replaced by a later fire takes that fire's place).
    func deliveredNotifications(appID: String) async throws -> [DeliveredNotification]

    /// Removes delivered notifications; `identifiers == nil` removes all of the app's. Their history entries
    /// take `outcome` unless they already have a response.
    /// - Returns: The removed notifications.
    func removeDelivered(appID: String, identifiers: [String]?, outcome: HistoryEntry.Outcome) async throws
        -> [DeliveredNotification]

    // MARK: Responses

    /// Records a response: removes the notification from the delivered list, sets its history outcome, and
    /// when `enqueue` is true keeps the response until the app next attaches.
    func recordResponse(_ response: ResponseSpec, outcome: HistoryEntry.Outcome, enqueue: Bool) async throws

    /// The responses queued for an app, oldest first.
    func queuedResponses(appID: String) async throws -> [QueuedResponse]

    /// Forgets a queued response once the app has received it.
    func removeQueuedResponse(id: Int64) async throws

    // MARK: Categories and apps

    /// Replaces the app's categories as a whole.
    func setCategories(_ categories: [CategorySpec], appID: String) async throws
    func categories(appID: String) async throws -> [CategorySpec]

    func appState(appID: String) async throws -> AppState?
    /// Which of these apps are denied notifications (``AuthorizationStatus/denied``): what a batch of many apps
    /// checks at once. The default reads each app's state with ``appState(appID:)``; a store on a server asks once.
    func deniedAppIDs(among appIDs: [String]) async throws -> Set<String>
    /// The states of these apps that have one (an app the store has never seen is left out): what the engine reads
    /// before presenting a claimed batch, once for all its apps. The default reads each with ``appState(appID:)``;
    /// the PostgreSQL store asks once.
    func appStates(appIDs: [String]) async throws -> [String: AppState]
    /// The categories of these apps that set any, as ``categories(appID:)`` reads each: the default reads them one by
    /// one; the PostgreSQL store asks once.
    func categories(appIDs: [String]) async throws -> [String: [CategorySpec]]
    func saveAppState(_ state: AppState) async throws
    func allAppStates() async throws -> [AppState]

    // MARK: History and metadata

    /// History entries, newest first; `appID == nil` for all apps.
    func history(appID: String?, limit: Int) async throws -> [HistoryEntry]
    func appendHistory(_ entry: HistoryEntry) async throws

    func metadata(_ key: String) async throws -> String?

    /// Several metadata values read together (one read transaction, so one snapshot, where the store can): what a
    /// push's token lookup needs on every request. The default reads them one after the other.
    ///
    /// ```swift
    /// let values = try await store.metadata(keys: ["push.app.\(hex)", "push.registration.\(hex)"])
    /// ```
    /// - Returns: The keys that have a value, with it.
    func metadata(keys: [String]) async throws -> [String: String]

    func setMetadata(_ key: String, _ value: String) async throws

    /// Appends entries to the APNs endpoint's request log, then keeps only its newest `keep` entries.
    func appendAPNsLog(_ entries: [APNsLogEntry], keep: Int) async throws

    /// The request log's entries after `afterID`, oldest first, at most `limit` (the newest ones).
    func apnsLog(afterID: Int64, limit: Int) async throws -> [APNsLogEntry]

    /// How many pending requests the store holds, over all apps.
    func pendingCount() async throws -> Int

    /// How many pending requests each app has.
    func pendingCounts() async throws -> [String: Int]
}

extension NotificationStore {
    /// The command that starts an app to hand it a response, as registered with ``setLaunchCommand(_:appID:)``.
    public func launchCommand(appID: String) async throws -> [String]? {
        guard let stored = try await metadata("launch.\(appID)"), !stored.isEmpty else { return nil }
        return try? JSONDecoder().decode([String].self, from: Data(stored.utf8))
    }

    /// Registers (or, with `nil`, removes) the command that starts an app to hand it a response.
    public func setLaunchCommand(_ command: [String]?, appID: String) async throws {
        let value = try command.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) } ?? ""
        try await setMetadata("launch.\(appID)", value)
    }

    /// Reads each key with ``metadata(_:)``, one after the other.
    public func metadata(keys: [String]) async throws -> [String: String] {
        var values: [String: String] = [:]
        for key in keys { values[key] = try await metadata(key) }
        return values
    }

    /// Records each fire with ``completeFire(_:nextFireDate:delivered:history:badge:)``, one after the other.
    @discardableResult
    public func completeFires(_ fires: [FireCompletion]) async throws -> [Int64] {
        var identifiers: [Int64] = []
        for fire in fires {
            identifiers.append(
                try await completeFire(
                    fire.request, nextFireDate: fire.nextFireDate, delivered: fire.delivered, history: fire.history,
                    badge: fire.badge))
        }
        return identifiers
    }

    /// Records the fires and stores the batch with ``completeFiresSeparately(_:insertingPending:cap:at:leavingOutDenied:claimedUntil:)``.
    public func completeFires(
        _ fires: [FireCompletion], insertingPending batch: [PendingRequest], cap: Int?, at date: Date,
        leavingOutDenied: Bool, claimedUntil leaseUntil: Date?
    ) async -> FiresAndInsertion {
        await completeFiresSeparately(
            fires, insertingPending: batch, cap: cap, at: date, leavingOutDenied: leavingOutDenied,
            claimedUntil: leaseUntil)
    }

    /// Records the fires with ``completeFires(_:)``, then stores the batch as
    /// ``completeFires(_:insertingPending:cap:at:leavingOutDenied:claimedUntil:)`` describes: two store calls, each
    /// with its own result, so a part that fails does not fail the other. What a store whose shared transaction
    /// failed falls back to.
    public func completeFiresSeparately(
        _ fires: [FireCompletion], insertingPending batch: [PendingRequest], cap: Int?, at date: Date,
        leavingOutDenied: Bool, claimedUntil leaseUntil: Date?
    ) async -> FiresAndInsertion {
        let historyIDs: Result<[Int64], any Error>
        do { historyIDs = .success(try await completeFires(fires)) } catch { historyIDs = .failure(error) }
        let insertion: Result<PendingBatchInsertion, any Error>
        do {
            insertion = .success(
                try await insertPending(
                    batch: batch, cap: cap, at: date, leavingOutDenied: leavingOutDenied, claimedUntil: leaseUntil))
        } catch {
            insertion = .failure(error)
        }
        return FiresAndInsertion(historyIDs: historyIDs, insertion: insertion)
    }

    /// Stores a batch as the engine's group commit does: with ``insertPending(batch:cap:at:)`` when
    /// `leavingOutDenied` is `false`, otherwise with ``insertPendingOfAllowedApps(batch:cap:at:claimedUntil:)`` when
    /// a lease is given and ``insertPendingOfAllowedApps(batch:cap:at:)`` when not.
    func insertPending(
        batch requests: [PendingRequest], cap: Int?, at date: Date, leavingOutDenied: Bool,
        claimedUntil leaseUntil: Date?
    ) async throws -> PendingBatchInsertion {
        guard !requests.isEmpty else { return PendingBatchInsertion(discarded: [], deniedAppIDs: []) }
        guard leavingOutDenied else {
            return PendingBatchInsertion(
                discarded: try await insertPending(batch: requests, cap: cap, at: date), deniedAppIDs: [])
        }
        if let leaseUntil {
            return try await insertPendingOfAllowedApps(batch: requests, cap: cap, at: date, claimedUntil: leaseUntil)
        }
        return try await insertPendingOfAllowedApps(batch: requests, cap: cap, at: date)
    }

    /// Reads ``deniedAppIDs(among:)``, then stores the other apps' requests with ``insertPending(batch:cap:at:)``.
    public func insertPendingOfAllowedApps(batch requests: [PendingRequest], cap: Int?, at date: Date) async throws
        -> PendingBatchInsertion
    {
        let denied = try await deniedAppIDs(among: requests.map(\.appID))
        let allowed = denied.isEmpty ? requests : requests.filter { !denied.contains($0.appID) }
        let discarded = allowed.isEmpty ? [] : try await insertPending(batch: allowed, cap: cap, at: date)
        return PendingBatchInsertion(discarded: discarded, deniedAppIDs: denied)
    }

    /// Stores the requests with ``insertPendingOfAllowedApps(batch:cap:at:)`` and claims none of them.
    public func insertPendingOfAllowedApps(
        batch requests: [PendingRequest], cap: Int?, at date: Date, claimedUntil leaseUntil: Date
    ) async throws -> PendingBatchInsertion {
        try await insertPendingOfAllowedApps(batch: requests, cap: cap, at: date)
    }

    /// Reads each app's state with ``appState(appID:)``, one after the other.
    public func deniedAppIDs(among appIDs: [String]) async throws -> Set<String> {
        var denied = Set<String>()
        for appID in Set(appIDs) where try await appState(appID: appID)?.authorization == .denied {
            denied.insert(appID)
        }
        return denied
    }

    /// Reads each app's state with ``appState(appID:)``, one after the other.
    public func appStates(appIDs: [String]) async throws -> [String: AppState] {
        var states: [String: AppState] = [:]
        for appID in Set(appIDs) {
            if let state = try await appState(appID: appID) { states[appID] = state }
        }
        return states
    }

    /// Reads each app's categories with ``categories(appID:)``, one after the other.
    public func categories(appIDs: [String]) async throws -> [String: [CategorySpec]] {
        var categories: [String: [CategorySpec]] = [:]
        for appID in Set(appIDs) {
            let found = try await self.categories(appID: appID)
            if !found.isEmpty { categories[appID] = found }
        }
        return categories
    }

    /// The earliest instant at which any app's request may be due.
    public func nextWakeDate() async throws -> Date? { try await nextWakeDate(appID: nil) }

    /// Claims due requests of every app.
    public func claimDue(at date: Date, leaseUntil: Date, limit: Int) async throws -> [PendingRequest] {
        try await claimDue(at: date, leaseUntil: leaseUntil, limit: limit, appID: nil)
    }
}

/// The result of ``NotificationStore/insertPending(_:cap:at:)``.
public struct PendingInsertion: Sendable {
    public var stored: PendingRequest
    public var discarded: [PendingRequest]

    public init(stored: PendingRequest, discarded: [PendingRequest]) {
        self.stored = stored
        self.discarded = discarded
    }
}

/// The result of ``NotificationStore/insertPendingOfAllowedApps(batch:cap:at:)``.
public struct PendingBatchInsertion: Sendable, Equatable {
    /// The requests the pending cap discarded (possibly some of the batch's).
    public var discarded: [PendingRequest]
    /// The apps denied notifications, whose requests were not stored.
    public var deniedAppIDs: Set<String>
    /// The requests stored and claimed by this process, in the order of the batch, each with its revision and the
    /// fire date as stored (``NotificationStore/insertPendingOfAllowedApps(batch:cap:at:claimedUntil:)``); empty when
    /// nothing was claimed.
    public var claimed: [PendingRequest]

    public init(discarded: [PendingRequest], deniedAppIDs: Set<String>, claimed: [PendingRequest] = []) {
        self.discarded = discarded
        self.deniedAppIDs = deniedAppIDs
        self.claimed = claimed
    }
}

/// The shared fire instant of floating calendar triggers with the same app, components and matching policy.
public struct FloatingPlan: Sendable, Hashable {
    public var key: String
    public var appID: String
    public var trigger: TriggerSpec
    public var nextFireDate: Date?

    public init(key: String, appID: String, trigger: TriggerSpec, nextFireDate: Date?) {
        self.key = key
        self.appID = appID
        self.trigger = trigger
        self.nextFireDate = nextFireDate
    }
}

/// A new instant for a plan, as ``NotificationStore/updateFloatingPlans(_:)`` takes it.
public struct FloatingPlanUpdate: Sendable, Hashable {
    public var key: String
    public var nextFireDate: Date?

    public init(key: String, nextFireDate: Date?) {
        self.key = key
        self.nextFireDate = nextFireDate
    }
}

/// A response kept until its app runs again.
public struct QueuedResponse: Sendable, Hashable {
    public var id: Int64
    public var response: ResponseSpec

    public init(id: Int64, response: ResponseSpec) {
        self.id = id
        self.response = response
    }
}

/// A pending location request and where the device was relative to its region at the last deciding fix.
public struct LocationRequestState: Sendable, Hashable {
    /// The pending request (its trigger is a location trigger).
    public var request: PendingRequest
    /// Inside, outside, or unknown until a fix decides.
    public var state: RegionState

    /// Creates a value.
    public init(request: PendingRequest, state: RegionState) {
        self.request = request
        self.state = state
    }
}

/// A new region state for a location request, as ``NotificationStore/updateRegionStates(_:)`` takes it.
public struct RegionStateUpdate: Sendable, Hashable {
    /// The request's revision (``PendingRequest/revision``).
    public var revision: Int64
    /// The state after the fix.
    public var state: RegionState
    /// When set, the request is due at this instant (its crossing notifies).
    public var dueAt: Date?

    /// Creates an update.
    public init(revision: Int64, state: RegionState, dueAt: Date? = nil) {
        self.revision = revision
        self.state = state
        self.dueAt = dueAt
    }
}
