import Foundation
import NotificationModel

/// Adding many requests at once: one store transaction for the whole batch, all of it or none.
extension NotificationScheduler {
    /// Schedules many requests in one store transaction: every one of them, or none when one is refused.
    ///
    /// Each request is checked as ``add(_:appID:)`` checks it, and a refusal names every refused request by its
    /// index. A request replaces the app's pending request with the same identifier, including one earlier in the
    /// batch; the pending cap is applied once per app, after the whole batch, so the soonest-firing requests stay.
    ///
    /// - Returns: How many were stored and which ones the pending cap discarded.
    /// - Throws: ``BatchAddError`` when a request is refused (nothing is stored), ``EngineError`` with
    ///   `storeFailure` when the store fails (nothing is stored either).
    ///
    /// The checks and fire dates of a large batch take milliseconds of CPU: they run off the scheduler's actor
    /// (this method is `nonisolated`), which meanwhile delivers and accepts other adds, on ``BulkExecutor/shared``'s
    /// low-priority threads.
    public nonisolated func add(contentsOf requests: [BatchRequest]) async throws -> BatchAddResult {
        try await add(batch: requests)
    }

    /// ``add(contentsOf:)`` of an array of requests, or of one app's specs as they are (``OneAppBatch``).
    nonisolated func add(batch requests: some BatchRequests) async throws -> BatchAddResult {
        guard !requests.isEmpty else { return BatchAddResult(added: 0, discarded: []) }
        try await checkPlannedZone()
        let now = clock.now
        let calendar = clock.calendar
        // One read for every app of the batch (a server's batch spans thousands of devices, each an app).
        let apps = requests.appIDs
        let deniedApps = try await Self.storeCall { try await store.deniedAppIDs(among: Array(apps)) }
        let denied = Dictionary(uniqueKeysWithValues: deniedApps.map { ($0, true) })
        // The checks and fire dates run on a bulk thread at low priority, not on the concurrency pool's few threads,
        // which the delivery loop needs on time (BulkExecutor).
        let checked = await BulkExecutor.shared.run { [denied] in
            Self.checked(requests, denied: denied, at: now, calendar: calendar)
        }
        guard case .success(let pending) = checked else {
            if case .failure(let error) = checked { throw error }
            return BatchAddResult(added: 0, discarded: [])
        }

        // The replaced requests' attachments are looked for only for apps with files in the data store: a server's
        // batch spans thousands of apps (devices) and none has attachments there, and an import's 100,000 requests
        // grouped by app for nothing cost 130 ms (copies of the requests into arrays grown as they went).
        var replaced: [String: [RequestSpec]] = [:]
        let withAttachments = apps.filter { hasStoredAttachments(appID: $0) }
        if !withAttachments.isEmpty {
            var identifiers: [String: Set<String>] = [:]
            for request in requests where withAttachments.contains(request.appID) {
                identifiers[request.appID, default: []].insert(request.spec.identifier)
            }
            for (app, identifiers) in identifiers {
                let specs = await pendingRequests(replacedBy: identifiers, appID: app)
                if !specs.isEmpty { replaced[app] = specs }
            }
        }
        let discarded = try await Self.storeCall { try await store.insertPending(batch: pending, cap: configuration.pendingCap, at: now) }
        let discardedByApp = Dictionary(grouping: discarded, by: \.appID)
        for app in apps where replaced[app] != nil || discardedByApp[app] != nil {
            await discardAttachments(of: (replaced[app] ?? []) + (discardedByApp[app] ?? []).map(\.spec), appID: app)
        }
        if !discarded.isEmpty {
            logger.warning(
                "discarded pending requests: more than the pending cap",
                metadata: ["apps": "\(discardedByApp.keys.sorted())", "count": "\(discarded.count)"])
        }
        // Like add(_:appID:): the sleeping loop is woken only for a request due sooner than it would look, or one that
        // replaces a request it holds. An import of requests due later then costs the loop no wake-up (and no check
        // of its held requests at their due instant) per batch.
        let quiet = addState.withLock { $0 }
        let quietAdds = pending.allSatisfy { request in
            quiet.isQuiet(appID: request.appID, identifier: request.identifier, fireDate: request.nextFireDate)
        }
        if !discarded.isEmpty || !quietAdds {
            // Read after the commit: a claim that read a replaced request is under way or its requests are published.
            wake.signal(
                touchesHeld: !discarded.isEmpty
                    || pending.contains { quiet.mayReplaceHeld(appID: $0.appID, identifier: $0.identifier) })
        }
        return BatchAddResult(added: pending.count, discarded: discarded)
    }

    /// Checks a batch: its requests with their first fire dates, or every refusal.
    private static func checked(
        _ requests: some BatchRequests, denied: [String: Bool], at now: Date, calendar: Calendar
    ) -> Result<[PendingRequest], BatchAddError>
    {
        var refusals: [BatchAddError.Refusal] = []
        var pending: [PendingRequest] = []
        pending.reserveCapacity(requests.count)
        for (index, request) in requests.enumerated() {
            do {
                if denied[request.appID] == true {
                    throw EngineError(.notificationsNotAllowed, "notifications are not allowed for \(request.appID)")
                }
                let fireDate = try checkedFirstFireDate(of: request.spec, at: now, calendar: calendar)
                pending.append(PendingRequest(appID: request.appID, spec: request.spec, addedAt: now, nextFireDate: fireDate))
            } catch let error as EngineError {
                refusals.append(BatchAddError.Refusal(index: index, error: error))
            } catch {
                refusals.append(BatchAddError.Refusal(index: index, error: EngineError(.invalidArgument, "\(error)")))
            }
        }
        return refusals.isEmpty ? .success(pending) : .failure(BatchAddError(refusals: refusals))
    }

    /// The checks that do not depend on the clock: a trigger Apple would trap on, content that could not be read
    /// back. A client checks a batch with them before it sends any of it.
    /// - Throws: ``EngineError`` with `invalidTrigger` or `invalidUserInfo`.
    public static func check(_ spec: RequestSpec) throws {
        if let trigger = spec.trigger { try TriggerPlanner.validate(trigger) }
        try checkLimits(of: spec.content)
    }

    /// The checks every way of adding applies, in `add`'s order, and the request's first fire date.
    ///
    /// The same for ``add(_:appID:)`` and ``add(contentsOf:)``.
    /// - Throws: ``EngineError`` with `invalidTrigger`, `invalidUserInfo` or `invalidNoDate`.
    public static func checkedFirstFireDate(of spec: RequestSpec, at now: Date, calendar: Calendar) throws -> Date? {
        try check(spec)
        let fireDate = TriggerPlanner.firstFireDate(for: spec.trigger, addedAt: now, calendar: calendar)
        if fireDate == nil, case .calendar = spec.trigger {
            throw EngineError(.invalidNoDate, "no date matches the calendar trigger of '\(spec.identifier)'")
        }
        return fireDate
    }
}

/// One request of a batch (``NotificationScheduler/add(contentsOf:)``) and the app it is for.
public struct BatchRequest: Sendable, Hashable {
    public var appID: String
    public var spec: RequestSpec

    public init(appID: String, spec: RequestSpec) {
        self.appID = appID
        self.spec = spec
    }
}

/// What a batch add stored.
public struct BatchAddResult: Sendable, Hashable {
    /// How many requests were stored (all of the batch).
    public var added: Int
    /// The requests the pending cap discarded: older ones, or some of the batch's own.
    public var discarded: [PendingRequest]

    public init(added: Int, discarded: [PendingRequest]) {
        self.added = added
        self.discarded = discarded
    }
}

/// A batch that was refused as a whole, because of the requests it names.
public struct BatchAddError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A refused request: its index in the batch and why.
    public struct Refusal: Hashable, Sendable {
        public var index: Int
        public var error: EngineError

        public init(index: Int, error: EngineError) {
            self.index = index
            self.error = error
        }
    }

    /// Every refused request, in batch order.
    public var refusals: [Refusal]

    public init(refusals: [Refusal]) {
        self.refusals = refusals
    }

    public var description: String {
        let first = refusals.prefix(3).map { "request \($0.index): \($0.error.message)" }.joined(separator: "; ")
        let more = refusals.count > 3 ? "; and \(refusals.count - 3) more" : ""
        return "\(refusals.count) of the batch's requests refused, nothing added: \(first)\(more)"
    }
}
