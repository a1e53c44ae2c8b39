import Foundation
import NotificationModel

// Pushes presented on arrival (``EngineConfiguration/presentsPushesOnArrival``): a push shown now is presented by the
// call that accepts it and its fire (history entry, delivered notification, badge) recorded in the group commit's next
// transaction, before the push is answered. It has no pending row: no insert and later delete of one (with its
// indexes), no claim, no hand-over to the loop and no pass of it, and one transaction per push instead of two.
//
// The rules it keeps (docs/remote-notifications.md, "Pushes presented on arrival"):
// - Durable before answered: the push is answered with success only once its transaction is committed. When the
//   transaction fails, or the process dies after the presentation, it is not: the provider sends it again, and it is
//   shown twice at most (at least once, as for every request).
// - Ordering: a push replaces the app's pending request with its identifier. The replaced request is the one the
//   store held when the push's batch was read, before the presentation (its revision, ``NotificationStore/
//   pendingRevisions(appID:identifiers:)``); the transaction deletes that revision only, so a request with the same
//   identifier added after that read (after the presentation, before the transaction) is kept. The push counts as
//   accepted at that read: an add after it comes after the push.
// - Everything the loop's fire does per request (``fire(_:prepared:recordEach:)``): the app's state and categories,
//   localized strings, the presentation its authorization allows, the badge and `badgeDidChange`, the history.
//   A denied app's push is recorded `unauthorized` and replaces nothing, as when its transaction refuses it.
// - Of several pushes of a batch with the same app and identifier, only the last is shown, as when one transaction
//   stores them all (each replaces the one before); each gets that push's answer.
//
// Only for a push of an app that does not run, with no attachments, no service extension and a presenter that does not
// confirm (``presentsOnArrival(_:appID:)``); a read that fails sends the pushes the stored way instead.

extension NotificationScheduler {
    /// Presents the pushes at `indices` of `pushes` (each with ``presentsOnArrival(_:appID:)``) and records their fires
    /// in one transaction of the group commit, setting each one's result in `results`.
    ///
    /// - Returns: The indices of pushes to store the usual way instead (the reads before the presentation failed).
    func presentOnArrival(
        _ indices: [Int], of pushes: [(push: RemoteNotification, appID: String)], at now: Date,
        into results: inout [Result<PushDeliveryOutcome, any Error>?]
    ) async -> [Int] {
        guard !indices.isEmpty else { return [] }
        // What presenting needs, read before presenting: the apps' states and categories, and the pending requests the
        // pushes replace. A failed read presents nothing: the pushes take the stored path, which reports the store's
        // error if it persists.
        let apps = Array(Set(indices.map { pushes[$0].appID }))
        let states: [String: AppState]
        let categories: [String: [CategorySpec]]
        var revisions: [String: [String: Int64]] = [:]
        do {
            states = try await store.appStates(appIDs: apps)
            categories = try await store.categories(appIDs: apps)
            for app in apps where states[app]?.authorization != .denied {
                let identifiers = indices.filter { pushes[$0].appID == app }.map { pushes[$0].push.identifier }
                revisions[app] = try await store.pendingRevisions(appID: app, identifiers: identifiers)
            }
        } catch {
            logger.notice("could not read what presenting pushes needs; they are stored first: \(error)")
            return indices
        }
        // The last push of each app and identifier is shown; an earlier one takes its answer.
        var lastOfKey: [String: Int] = [:]
        for index in indices where states[pushes[index].appID]?.authorization != .denied {
            lastOfKey[pushes[index].appID + "\u{0}" + pushes[index].push.identifier] = index
        }
        var requests: [PendingRequest] = []
        for index in indices {
            let (push, appID) = pushes[index]
            guard states[appID]?.authorization != .denied else {
                do { results[index] = .success(try await recordUnauthorized(push, appID: appID, at: now)) } catch {
                    results[index] = .failure(error)
                }
                continue
            }
            guard lastOfKey[appID + "\u{0}" + push.identifier] == index else { continue }
            let spec = RequestSpec(identifier: push.identifier, content: push.content, trigger: .push)
            // The revision of the pending request it replaces (0: none) stands in for a row of its own.
            requests.append(
                PendingRequest(
                    appID: appID, spec: spec, addedAt: now, nextFireDate: now,
                    revision: revisions[appID]?[push.identifier] ?? 0))
        }
        guard !requests.isEmpty else { return [] }
        let prepared = Dictionary(
            uniqueKeysWithValues: apps.map { app in
                (app, PreparedFire(state: states[app] ?? AppState(appID: app), categories: categories[app] ?? []))
            })
        let completions = await fire(requests, prepared: prepared, recordEach: false).completions
        let fires = completions.map {
            FireCompletion(
                request: $0.request, nextFireDate: $0.next, delivered: $0.delivered, history: $0.history,
                badge: $0.badge, presentedOnArrival: true)
        }
        let outcome: Result<PushDeliveryOutcome, any Error>
        do {
            _ = try await commits.record(fires)
            outcome = .success(.scheduled)
        } catch {
            // Presented, not recorded: not answered with success, so the provider sends it again.
            logger.error(
                "could not record pushes presented on arrival; they are answered with an error: \(error)",
                metadata: ["requests": "\(requests.map(\.identifier).joined(separator: ", "))"])
            outcome = .failure(EngineError(.storeFailure, "the notification store failed: \(error)"))
        }
        for index in indices where results[index] == nil { results[index] = outcome }
        guard case .success = outcome else { return [] }
        for completion in completions {
            if let badge = completion.badge {
                await presenter.badgeDidChange(appID: completion.request.appID, count: badge)
            }
        }
        // A replaced request may be one the loop holds, claimed ahead: it checks them against the store first.
        if requests.contains(where: { $0.revision != 0 }) { wake.signal() }
        return []
    }
}
