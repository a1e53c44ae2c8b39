import Foundation
import Logging
import NotificationModel
import Synchronization

// Remote notifications (docs/remote-notifications.md): device tokens kept in the store's metadata, and pushes
// delivered now through the ordinary claim/fire path (a request with a push trigger is due at once), so the
// history, the presenter, `willPresent` and the pending/delivered lists work as for local notifications. A
// background push is not shown: it goes to the app's `RemoteNotificationReceiver` when the app runs, otherwise
// the newest one waits in the store until the app attaches one (iOS coalesces and throttles them likewise).

/// The part of a running app that takes pushes the person does not see: the analogue of
/// `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`.
public protocol RemoteNotificationReceiver: AnyObject, Sendable {
    /// A push with `content-available` reached the running app.
    /// - Returns: Whether the app took it; `false` keeps a background push waiting for the next receiver.
    func didReceiveRemoteNotification(_ notification: RemoteNotification) async -> Bool
}

/// What ``NotificationScheduler/deliverPush(_:appID:deliver:)`` did with a push.
public enum PushDeliveryOutcome: String, Sendable, Hashable, Codable {
    /// The notification was made due (and, with `deliver`, delivered).
    case scheduled
    /// A background push handed to the running app.
    case handedToApp
    /// A background push kept until the app runs.
    case queued
    /// Not shown: the app is not allowed to notify (APNs still accepts the request).
    case unauthorized
    /// Handed to the app's service extension (`mutable-content`): shown once it answers or its time runs out.
    case modifying
}

extension NotificationStore {
    /// The registration of an app for remote notifications in an environment, active or not.
    public func pushRegistration(appID: String, environment: PushEnvironment = .development) async throws -> PushRegistration? {
        try await decodedMetadata(PushRegistration.self, PushKeys.registration(appID, environment))
    }

    /// The registration a device token was issued with, active or not.
    public func pushRegistration(token: DeviceToken) async throws -> PushRegistration? {
        // Both keys in one read: the APNs endpoint asks this for every push.
        let (ownerKey, recordKey) = (PushKeys.tokenOwner(token), PushKeys.tokenRecord(token))
        let values = try await metadata(keys: [ownerKey, recordKey])
        guard let appID = values[ownerKey], !appID.isEmpty, let stored = values[recordKey], !stored.isEmpty else {
            return nil
        }
        return try PushRegistrationCache.shared.registration(decoding: stored)
    }

    /// Registers an app for remote notifications: the active token it has, or a new random one.
    ///
    /// A token stays the same for an app in this store until the app unregisters; registering after that issues
    /// a new one (the old token answers 410 `Unregistered` for ever).
    /// - Parameters:
    ///   - appID: The app.
    ///   - date: Now.
    ///   - bundleDirectory: The app's folder for `loc-key` strings and named sounds of its pushes; `nil` keeps
    ///     the one recorded before.
    ///   - environment: The APNs environment whose token the app gets: development, as for a build Xcode installs,
    ///     unless it says otherwise. Each environment has its own token for the app.
    public func registerForRemoteNotifications(
        appID: String, at date: Date, bundleDirectory: String?, environment: PushEnvironment = .development
    ) async throws -> PushRegistration {
        if var existing = try await pushRegistration(appID: appID, environment: environment), existing.isActive {
            if let bundleDirectory, existing.bundleDirectory != bundleDirectory {
                existing.bundleDirectory = bundleDirectory
                try await save(existing)
            }
            return existing
        }
        var token = DeviceToken.random()
        while try await metadata(PushKeys.tokenOwner(token)).map({ !$0.isEmpty }) ?? false { token = DeviceToken.random() }
        let registration = PushRegistration(
            appID: appID, token: token, registeredAt: date, bundleDirectory: bundleDirectory, environment: environment)
        try await save(registration)
        return registration
    }

    /// Unregisters an app: its token stops taking pushes, which answer 410 `Unregistered` with `date`.
    /// - Returns: The registration as it is now, `nil` when the app never registered.
    @discardableResult
    public func unregisterForRemoteNotifications(
        appID: String, at date: Date, environment: PushEnvironment = .development
    ) async throws -> PushRegistration? {
        guard var registration = try await pushRegistration(appID: appID, environment: environment) else { return nil }
        if registration.isActive {
            registration.unregisteredAt = date
            try await save(registration)
        }
        return registration
    }

    /// The app a push to `token` goes to.
    /// - Throws: ``APNsReason/badDeviceToken`` for a token this store never issued, ``APNsReason/unregistered``
    ///   with the unregistration time for one whose app unregistered; `InternalServerError` when the store fails.
    public func pushDestination(for token: DeviceToken) async throws(APNsReason) -> PushRegistration {
        let found: PushRegistration?
        do { found = try await pushRegistration(token: token) } catch {
            throw APNsReason.internalServerError.with(detail: "the notification store failed: \(error)")
        }
        guard let registration = found else {
            throw APNsReason.badDeviceToken.with(detail: "no app was issued the token \(token.hex)")
        }
        if let unregisteredAt = registration.unregisteredAt {
            throw APNsReason.unregistered.with(timestamp: unregisteredAt)
                .with(detail: "\(registration.appID) unregistered the token")
        }
        return registration
    }

    /// The fault rules the APNs endpoint applies (`unotify apns fault`), in order; empty when none were set.
    public func apnsFaultRules() async throws -> [APNsFaultRule] {
        try APNsFaultRule.decodeStored(try await metadata(PushKeys.faultRules))
    }

    /// The fault rules as stored (their JSON; `nil` when none were set): one small read, for a cache that decodes
    /// them (`APNsFaultRule.decodeStored(_:)`) only when this text changed, whichever process changed it.
    public func storedAPNsFaultRules() async throws -> String? {
        try await metadata(PushKeys.faultRules)
    }

    /// Replaces the APNs endpoint's fault rules; an empty list removes them.
    public func setAPNsFaultRules(_ rules: [APNsFaultRule]) async throws {
        let value = rules.isEmpty ? "" : String(decoding: try JSONEncoder().encode(rules), as: UTF8.self)
        try await setMetadata(PushKeys.faultRules, value)
    }

    /// The background pushes waiting for an app (at most the newest one).
    public func queuedBackgroundPushes(appID: String) async throws -> [RemoteNotification] {
        try await decodedMetadata([RemoteNotification].self, PushKeys.backgroundQueue(appID)) ?? []
    }

    func setQueuedBackgroundPushes(_ pushes: [RemoteNotification], appID: String) async throws {
        let value = pushes.isEmpty ? "" : String(decoding: try JSONEncoder().encode(pushes), as: UTF8.self)
        try await setMetadata(PushKeys.backgroundQueue(appID), value)
    }

    private func save(_ registration: PushRegistration) async throws {
        let encoded = String(decoding: try JSONEncoder().encode(registration), as: UTF8.self)
        try await setMetadata(PushKeys.registration(registration.appID, registration.environment), encoded)
        try await setMetadata(PushKeys.tokenRecord(registration.token), encoded)
        try await setMetadata(PushKeys.tokenOwner(registration.token), registration.appID)
    }

    private func decodedMetadata<T: Decodable>(_ type: T.Type, _ key: String) async throws -> T? {
        guard let stored = try await metadata(key), !stored.isEmpty else { return nil }
        return try JSONDecoder().decode(T.self, from: Data(stored.utf8))
    }
}

/// The metadata keys of push state.
enum PushKeys {
    static let faultRules = "apns.faults"
    /// Development registrations keep the key they had before environments existed.
    static func registration(_ appID: String, _ environment: PushEnvironment = .development) -> String {
        environment == .development ? "push.token.\(appID)" : "push.token.\(environment.rawValue).\(appID)"
    }
    static func tokenRecord(_ token: DeviceToken) -> String { "push.registration.\(token.hex)" }
    static func tokenOwner(_ token: DeviceToken) -> String { "push.app.\(token.hex)" }
    static func backgroundQueue(_ appID: String) -> String { "push.background.\(appID)" }
}

/// The running apps' receivers, per engine (an actor extension cannot hold state of its own).
final class RemoteReceiverRegistry: Sendable {
    static let shared = RemoteReceiverRegistry()

    private struct Entry {
        weak var scheduler: NotificationScheduler?
        var receivers: [String: any RemoteNotificationReceiver]
    }

    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    func receiver(_ scheduler: NotificationScheduler, appID: String) -> (any RemoteNotificationReceiver)? {
        entries.withLock { entries in
            guard let entry = entries[ObjectIdentifier(scheduler)], entry.scheduler === scheduler else { return nil }
            return entry.receivers[appID]
        }
    }

    func set(_ receiver: (any RemoteNotificationReceiver)?, _ scheduler: NotificationScheduler, appID: String) {
        entries.withLock { entries in
            entries = entries.filter { $0.value.scheduler != nil }
            let key = ObjectIdentifier(scheduler)
            var entry = entries[key].flatMap { $0.scheduler === scheduler ? $0 : nil } ?? Entry(scheduler: scheduler, receivers: [:])
            entry.receivers[appID] = receiver
            entries[key] = entry
        }
    }
}

extension NotificationScheduler {
    /// How many background pushes wait for an app that does not run: the newest only, as iOS coalesces them.
    public static let queuedBackgroundPushLimit = 1

    /// Registers the app for remote notifications and returns its device token (see
    /// ``NotificationStore/registerForRemoteNotifications(appID:at:bundleDirectory:)``).
    ///
    /// ```swift
    /// let token = try await scheduler.registerForRemoteNotifications(appID: "com.example.app").token
    /// print(token.hex)   // 64 hex digits
    /// ```
    /// - Throws: ``EngineError`` with `storeFailure`.
    public func registerForRemoteNotifications(appID: String, bundleDirectory: String? = nil) async throws -> PushRegistration {
        let now = clock.now
        return try await storeCall { try await store.registerForRemoteNotifications(appID: appID, at: now, bundleDirectory: bundleDirectory) }
    }

    /// Unregisters the app; pushes to its token answer 410 `Unregistered` from now on.
    /// - Throws: ``EngineError`` with `storeFailure`.
    @discardableResult
    public func unregisterForRemoteNotifications(appID: String) async throws -> PushRegistration? {
        let now = clock.now
        return try await storeCall { try await store.unregisterForRemoteNotifications(appID: appID, at: now) }
    }

    /// The app's registration for remote notifications, active or not, if it ever registered.
    /// - Throws: ``EngineError`` with `storeFailure`.
    public func pushRegistration(appID: String) async throws -> PushRegistration? {
        try await storeCall { try await store.pushRegistration(appID: appID) }
    }

    /// Delivers a push now.
    ///
    /// - A push with something to show becomes a pending request with a push trigger, due at once, and goes the
    ///   ordinary way: `willPresent` when the app runs, the presenter otherwise, the history, the delivered list.
    ///   Its identifier is the collapse identifier when there is one, so it replaces a pending or delivered
    ///   notification with the same one. An app that is denied gets nothing shown (recorded as `unauthorized`).
    /// - With `mutable-content`, when the app has a service extension, the push goes to it first
    ///   (NotificationScheduler+ServiceExtensions.swift) and is shown when it answers or its time runs out.
    /// - A push with `content-available` also goes to the app's ``RemoteNotificationReceiver`` when it runs.
    /// - A background push is not shown: handed to the running app's receiver, or kept (the newest only) until
    ///   a receiver attaches, and the app is started by its launch command when it has one.
    ///
    /// ```swift
    /// let payload = try APNsPayload.parse(body)
    /// try await scheduler.deliverPush(RemoteNotification(payload: payload), appID: "com.example.app")
    /// ```
    /// - Parameters:
    ///   - push: The push.
    ///   - appID: The app it is for.
    ///   - deliver: Whether to run one delivery pass before returning; pass `false` when another engine on the
    ///     same store delivers.
    /// - Returns: What happened.
    /// - Throws: ``EngineError`` with `storeFailure`.
    @discardableResult
    public func deliverPush(_ push: RemoteNotification, appID: String, deliver: Bool = true) async throws
        -> PushDeliveryOutcome
    {
        try Self.checkLimits(of: push.content)
        let receiver = RemoteReceiverRegistry.shared.receiver(self, appID: appID)
        if push.isBackground {
            if let receiver, await receiver.didReceiveRemoteNotification(push) { return .handedToApp }
            let queued = try await storeCall { try await store.queuedBackgroundPushes(appID: appID) }
            let kept = Array((queued + [push]).suffix(Self.queuedBackgroundPushLimit))
            try await storeCall { try await store.setQueuedBackgroundPushes(kept, appID: appID) }
            logger.debug("kept a background push until the app runs", metadata: ["app": "\(appID)"])
            if receiver == nil, let launcher { await launcher.launch(appID: appID) }
            return .queued
        }
        let now = clock.now
        let spec = RequestSpec(identifier: push.identifier, content: push.content, trigger: .push)
        let request = PendingRequest(appID: appID, spec: spec, addedAt: now, nextFireDate: now)
        // A push for a service extension reads the app's authorization first (the extension must not see a push of a
        // denied app); any other push has it read in the transaction that stores it, as an add has.
        if push.mutableContent {
            guard try await appState(appID: appID).authorization != .denied else {
                return try await recordUnauthorized(push, appID: appID, at: now)
            }
            if try await startServiceExtension(for: request, deliver: deliver) {
                if push.contentAvailable, let receiver { _ = await receiver.didReceiveRemoteNotification(push) }
                return .modifying
            }
        }
        // No pending cap: a push is due at once and never waits behind local requests. Pushes arriving together
        // (many streams of the APNs endpoint) share a transaction, and a denied app's push is left out of it. While
        // the loop runs, the push is stored already claimed by this engine and handed to the loop, which presents it
        // without claiming it in a transaction of its own; if the process dies first, the claim ends with its lease
        // (or when the next engine releases a dead process's claims) and the push is delivered then.
        let claims = acceptsClaimedPushes(appID: appID)
        if claims {
            // Until the push is handed to the loop, every add counts as one that may replace a held request.
            addState.withLock { $0.heldKeysPending += 1 }
        }
        defer { if claims { addState.withLock { $0.heldKeysPending -= 1 } } }
        let generation = wake.heldGeneration
        let stored: GroupCommit.Stored
        do {
            stored = try await commits.store(
                request,
                kind: .init(cap: nil, refusesDenied: true, claimLease: claims ? configuration.claimLease : nil))
        } catch let error as EngineError where error.code == .notificationsNotAllowed {
            return try await recordUnauthorized(push, appID: appID, at: now)
        } catch {
            throw EngineError(.storeFailure, "the notification store failed: \(error)")
        }
        if let claimed = stored.claimed {
            await holdAccepted(claimed, readAt: generation)
        } else {
            storeDidChange()
        }
        if deliver { await deliverDue() }
        if push.contentAvailable, let receiver { _ = await receiver.didReceiveRemoteNotification(push) }
        return .scheduled
    }

    /// Delivers pushes that arrived together (the APNs endpoint's pushes of one read of a connection), each as
    /// ``deliverPush(_:appID:deliver:)`` would, with one wait for the group commit for all of them.
    ///
    /// The pushes that are shown without a service extension are stored in one transaction
    /// (``GroupCommit/storeAll(_:kind:)``) and handed to the loop together; each gets its own outcome, or its own
    /// error, the others unaffected (a failed transaction fails all of its pushes, as it does pushes handed over one by
    /// one that share it). Background pushes and pushes with `mutable-content` go one by one through
    /// ``deliverPush(_:appID:deliver:)``, in their place: the pushes before one are stored first, so that pushes with
    /// the same collapse identifier replace each other in arrival order.
    ///
    /// ```swift
    /// let outcomes = await scheduler.deliverPushes([(push, "com.example.app")], deliver: false)
    /// ```
    /// - Parameters:
    ///   - pushes: The pushes and the apps they are for, in arrival order.
    ///   - deliver: Whether to run one delivery pass before returning.
    /// - Returns: For each push, in order, its outcome or the ``EngineError`` it failed with.
    public func deliverPushes(_ pushes: [(push: RemoteNotification, appID: String)], deliver: Bool = true) async
        -> [Result<PushDeliveryOutcome, any Error>]
    {
        var results = [Result<PushDeliveryOutcome, any Error>?](repeating: nil, count: pushes.count)
        let now = clock.now
        let generation = wake.heldGeneration
        // The pushes waiting to be stored together, by kind (whether the loop takes them claimed, per app).
        var groups: [(kind: GroupCommit.Kind, indices: [Int], requests: [PendingRequest])] = []
        var claimed: [PendingRequest] = []
        var changed = false
        for (index, (push, appID)) in pushes.enumerated() {
            if push.isBackground || push.mutableContent {
                changed = await store(groups, of: pushes, at: now, into: &results, claiming: &claimed) || changed
                groups = []
                do { results[index] = .success(try await deliverPush(push, appID: appID, deliver: false)) } catch {
                    results[index] = .failure(error)
                }
                continue
            }
            do { try Self.checkLimits(of: push.content) } catch {
                results[index] = .failure(error)
                continue
            }
            let spec = RequestSpec(identifier: push.identifier, content: push.content, trigger: .push)
            let request = PendingRequest(appID: appID, spec: spec, addedAt: now, nextFireDate: now)
            let claims = acceptsClaimedPushes(appID: appID)
            let kind = GroupCommit.Kind(
                cap: nil, refusesDenied: true, claimLease: claims ? configuration.claimLease : nil)
            if let group = groups.firstIndex(where: { $0.kind == kind }) {
                groups[group].indices.append(index)
                groups[group].requests.append(request)
            } else {
                groups.append((kind, [index], [request]))
            }
        }
        changed = await store(groups, of: pushes, at: now, into: &results, claiming: &claimed) || changed
        await holdAccepted(claimed, readAt: generation)
        if changed { storeDidChange() }
        if deliver { await deliverDue() }
        for (index, (push, appID)) in pushes.enumerated()
        where push.contentAvailable && !push.isBackground && !push.mutableContent {
            guard case .success(.scheduled) = results[index],
                let receiver = RemoteReceiverRegistry.shared.receiver(self, appID: appID)
            else { continue }
            _ = await receiver.didReceiveRemoteNotification(push)
        }
        return results.map { $0! }
    }

    /// Stores the groups of ``deliverPushes(_:deliver:)``, each in one call of the group commit, records each
    /// push's result in `results` and appends the requests stored claimed by this process to `claimed`.
    /// - Returns: Whether any request was stored unclaimed.
    private func store(
        _ groups: [(kind: GroupCommit.Kind, indices: [Int], requests: [PendingRequest])],
        of pushes: [(push: RemoteNotification, appID: String)], at now: Date,
        into results: inout [Result<PushDeliveryOutcome, any Error>?], claiming claimed: inout [PendingRequest]
    ) async -> Bool {
        var changed = false
        for group in groups {
            let written = await commits.storeAll(group.requests, kind: group.kind)
            for (index, result) in zip(group.indices, written) {
                let (push, appID) = pushes[index]
                switch result {
                case .success(let written):
                    if let request = written.claimed { claimed.append(request) } else { changed = true }
                    results[index] = .success(.scheduled)
                case .failure(let error as EngineError) where error.code == .notificationsNotAllowed:
                    do { results[index] = .success(try await recordUnauthorized(push, appID: appID, at: now)) } catch {
                        results[index] = .failure(error)
                    }
                case .failure(let error):
                    results[index] = .failure(EngineError(.storeFailure, "the notification store failed: \(error)"))
                }
            }
        }
        return changed
    }

    /// Whether ``deliverPush(_:appID:deliver:)`` asks the app before it returns: a background push, or one with
    /// `content-available`, while the app's receiver (``attachRemoteReceiver(_:appID:)``) is attached. Such a push
    /// may wait as long as the app takes to answer (a daemon's client: up to its answer timeout), so the APNs
    /// endpoint answers it on its own rather than with the other pushes of a batch.
    public nonisolated func asksApp(_ push: RemoteNotification, appID: String) -> Bool {
        (push.isBackground || push.contentAvailable) && RemoteReceiverRegistry.shared.receiver(self, appID: appID) != nil
    }

    /// Records that a push was not shown because the app is denied notifications.
    private func recordUnauthorized(_ push: RemoteNotification, appID: String, at now: Date) async throws
        -> PushDeliveryOutcome
    {
        let entry = HistoryEntry(
            appID: appID, requestIdentifier: push.identifier, title: push.content.title, dueDate: now, actedAt: now,
            presenter: "none", presentation: [], outcome: .unauthorized, detail: "remote notification")
        try await storeCall { try await store.appendHistory(entry) }
        return .unauthorized
    }

    /// Registers the running app's receiver of remote notifications and hands it the background push that
    /// waited for it.
    public func attachRemoteReceiver(_ receiver: any RemoteNotificationReceiver, appID: String) async {
        RemoteReceiverRegistry.shared.set(receiver, self, appID: appID)
        let queued = (try? await store.queuedBackgroundPushes(appID: appID)) ?? []
        var left = queued
        for push in queued {
            guard await receiver.didReceiveRemoteNotification(push) else { break }
            left.removeFirst()
        }
        if left.count != queued.count {
            do { try await store.setQueuedBackgroundPushes(left, appID: appID) } catch {
                logger.error("could not forget handed-over background pushes: \(error)")
            }
        }
    }

    /// Unregisters the app's receiver; background pushes wait in the store again.
    public func detachRemoteReceiver(appID: String) {
        RemoteReceiverRegistry.shared.set(nil, self, appID: appID)
    }

    /// Unregisters the app's receiver only if `receiver` is still the registered one.
    public func detachRemoteReceiver(_ receiver: any RemoteNotificationReceiver, appID: String) {
        if let current = RemoteReceiverRegistry.shared.receiver(self, appID: appID), current === receiver {
            RemoteReceiverRegistry.shared.set(nil, self, appID: appID)
        }
    }
}
