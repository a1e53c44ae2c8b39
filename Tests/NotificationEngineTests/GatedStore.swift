import Foundation
import NotificationEngine
import NotificationModel
import Synchronization

/// A store that forwards to another one, and holds chosen writes until the test lets them through: a store whose
/// writer is busy with someone else's long transaction (an import, a re-plan, another process). A held write has not
/// reached the store yet; once let through it runs as usual.
final class GatedStore: NotificationStore {
    /// The writes a test can hold.
    enum Write: Hashable, Sendable {
        /// `claimDue(at:dueBy:...)` with a horizon after its instant: the loop's claim ahead.
        case claimAhead
        /// `claimDue` of what is due at its instant.
        case claimDue
        /// `completeFires`: recording fires.
        case completeFires
    }

    private struct State {
        var closed: Set<Write> = []
        var waiting: [(write: Write, continuation: CheckedContinuation<Void, Never>)] = []
        var held: [Write: Int] = [:]
    }

    let base: any NotificationStore
    private let state = Mutex(State())

    init(_ base: any NotificationStore) {
        self.base = base
    }

    /// Holds every later call of `write` until ``open(_:)``.
    func close(_ write: Write) {
        state.withLock { _ = $0.closed.insert(write) }
    }

    /// Lets the held calls of `write`, and every later one, through.
    func open(_ write: Write) {
        let released = state.withLock { state in
            state.closed.remove(write)
            let released = state.waiting.filter { $0.write == write }
            state.waiting.removeAll { $0.write == write }
            return released
        }
        for entry in released { entry.continuation.resume() }
    }

    /// How many calls of `write` were held so far (let through or not).
    func heldCount(_ write: Write) -> Int {
        state.withLock { $0.held[write] ?? 0 }
    }

    /// How many calls of `write` wait right now.
    func waitingCount(_ write: Write) -> Int {
        state.withLock { state in state.waiting.count { $0.write == write } }
    }

    private func pass(_ write: Write) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let passes = state.withLock { state in
                guard state.closed.contains(write) else { return true }
                state.held[write, default: 0] += 1
                state.waiting.append((write, continuation))
                return false
            }
            if passes { continuation.resume() }
        }
    }

    // MARK: Gated

    func claimDue(at date: Date, leaseUntil: Date, limit: Int, appID: String?) async throws -> [PendingRequest] {
        await pass(.claimDue)
        return try await base.claimDue(at: date, leaseUntil: leaseUntil, limit: limit, appID: appID)
    }

    func claimDue(at date: Date, dueBy horizon: Date, leaseUntil: Date, limit: Int, appID: String?) async throws
        -> [PendingRequest]
    {
        await pass(horizon > date ? .claimAhead : .claimDue)
        return try await base.claimDue(at: date, dueBy: horizon, leaseUntil: leaseUntil, limit: limit, appID: appID)
    }

    func completeFires(_ fires: [FireCompletion]) async throws -> [Int64] {
        await pass(.completeFires)
        return try await base.completeFires(fires)
    }

    // MARK: Forwarded

    func insertPending(_ request: PendingRequest, cap: Int?, at date: Date) async throws -> PendingInsertion {
        try await base.insertPending(request, cap: cap, at: date)
    }

    func insertPending(batch requests: [PendingRequest], cap: Int?, at date: Date) async throws -> [PendingRequest] {
        try await base.insertPending(batch: requests, cap: cap, at: date)
    }

    func insertPendingOfAllowedApps(batch requests: [PendingRequest], cap: Int?, at date: Date) async throws
        -> PendingBatchInsertion
    {
        try await base.insertPendingOfAllowedApps(batch: requests, cap: cap, at: date)
    }

    func insertPendingOfAllowedApps(
        batch requests: [PendingRequest], cap: Int?, at date: Date, claimedUntil leaseUntil: Date
    ) async throws -> PendingBatchInsertion {
        try await base.insertPendingOfAllowedApps(batch: requests, cap: cap, at: date, claimedUntil: leaseUntil)
    }

    func pendingRequests(appID: String) async throws -> [PendingRequest] {
        try await base.pendingRequests(appID: appID)
    }

    func policy() async throws -> StorePolicy { try await base.policy() }

    func setPolicy(_ policy: StorePolicy) async throws { try await base.setPolicy(policy) }

    func removePending(appID: String, identifiers: [String]?) async throws -> [PendingRequest] {
        try await base.removePending(appID: appID, identifiers: identifiers)
    }

    func nextWakeDate(appID: String?) async throws -> Date? { try await base.nextWakeDate(appID: appID) }

    func claimedFireDates(revisions: [Int64]) async throws -> [Int64: Date] {
        try await base.claimedFireDates(revisions: revisions)
    }

    func releaseClaims(revisions: [Int64]) async throws { try await base.releaseClaims(revisions: revisions) }

    func renewClaims(revisions: [Int64], leaseUntil: Date) async throws -> [Int64] {
        try await base.renewClaims(revisions: revisions, leaseUntil: leaseUntil)
    }

    func releaseAbandonedClaims() async throws -> Int { try await base.releaseAbandonedClaims() }

    func completeFire(
        _ request: PendingRequest, nextFireDate: Date?, delivered: DeliveredNotification?, history: HistoryEntry,
        badge: Int?
    ) async throws -> Int64 {
        try await base.completeFire(
            request, nextFireDate: nextFireDate, delivered: delivered, history: history, badge: badge)
    }

    func floatingPlans(dueAfter date: Date) async throws -> [FloatingPlan] {
        try await base.floatingPlans(dueAfter: date)
    }

    func exhaustedFloatingPlans(at date: Date, appID: String?) async throws -> [FloatingPlan] {
        try await base.exhaustedFloatingPlans(at: date, appID: appID)
    }

    func updateFloatingPlans(_ updates: [FloatingPlanUpdate]) async throws { try await base.updateFloatingPlans(updates) }

    func replanFloatingPlans(
        dueAfter date: Date, nextFireDate: @escaping @Sendable (TriggerSpec) throws -> Date?
    ) async throws -> Int {
        try await base.replanFloatingPlans(dueAfter: date, nextFireDate: nextFireDate)
    }

    func locationRequests(appID: String?) async throws -> [LocationRequestState] {
        try await base.locationRequests(appID: appID)
    }

    func updateRegionStates(_ updates: [RegionStateUpdate]) async throws { try await base.updateRegionStates(updates) }

    func deliveredNotifications(appID: String) async throws -> [DeliveredNotification] {
        try await base.deliveredNotifications(appID: appID)
    }

    func removeDelivered(appID: String, identifiers: [String]?, outcome: HistoryEntry.Outcome) async throws
        -> [DeliveredNotification]
    {
        try await base.removeDelivered(appID: appID, identifiers: identifiers, outcome: outcome)
    }

    func recordResponse(_ response: ResponseSpec, outcome: HistoryEntry.Outcome, enqueue: Bool) async throws {
        try await base.recordResponse(response, outcome: outcome, enqueue: enqueue)
    }

    func queuedResponses(appID: String) async throws -> [QueuedResponse] { try await base.queuedResponses(appID: appID) }

    func removeQueuedResponse(id: Int64) async throws { try await base.removeQueuedResponse(id: id) }

    func setCategories(_ categories: [CategorySpec], appID: String) async throws {
        try await base.setCategories(categories, appID: appID)
    }

    func categories(appID: String) async throws -> [CategorySpec] { try await base.categories(appID: appID) }

    func appState(appID: String) async throws -> AppState? { try await base.appState(appID: appID) }

    func deniedAppIDs(among appIDs: [String]) async throws -> Set<String> {
        try await base.deniedAppIDs(among: appIDs)
    }

    func appStates(appIDs: [String]) async throws -> [String: AppState] { try await base.appStates(appIDs: appIDs) }

    func categories(appIDs: [String]) async throws -> [String: [CategorySpec]] {
        try await base.categories(appIDs: appIDs)
    }

    func saveAppState(_ state: AppState) async throws { try await base.saveAppState(state) }

    func allAppStates() async throws -> [AppState] { try await base.allAppStates() }

    func history(appID: String?, limit: Int) async throws -> [HistoryEntry] {
        try await base.history(appID: appID, limit: limit)
    }

    func appendHistory(_ entry: HistoryEntry) async throws { try await base.appendHistory(entry) }

    func metadata(_ key: String) async throws -> String? { try await base.metadata(key) }

    func setMetadata(_ key: String, _ value: String) async throws { try await base.setMetadata(key, value) }

    func appendAPNsLog(_ entries: [APNsLogEntry], keep: Int) async throws {
        try await base.appendAPNsLog(entries, keep: keep)
    }

    func apnsLog(afterID: Int64, limit: Int) async throws -> [APNsLogEntry] {
        try await base.apnsLog(afterID: afterID, limit: limit)
    }

    func pendingCount() async throws -> Int { try await base.pendingCount() }

    func pendingCounts() async throws -> [String: Int] { try await base.pendingCounts() }
}
