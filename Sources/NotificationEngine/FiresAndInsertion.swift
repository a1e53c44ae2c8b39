import Foundation

/// What ``NotificationStore/completeFires(_:insertingPending:cap:at:leavingOutDenied:claimedUntil:)`` did: the
/// recording of the fires and the insertion of the batch, each with its own result, so that a failure of one part
/// fails only the callers waiting for that part.
///
/// ```swift
/// let outcome = await store.completeFires(
///     fires, insertingPending: pushes, cap: nil, at: now, leavingOutDenied: true, claimedUntil: lease)
/// let historyIDs = try outcome.historyIDs.get()
/// let claimed = try outcome.insertion.get().claimed
/// ```
public struct FiresAndInsertion: Sendable {
    /// The fires' history entries, in order, as ``NotificationStore/completeFires(_:)`` returns them; or why they were
    /// not recorded (then none of them is).
    public var historyIDs: Result<[Int64], any Error>
    /// What the insertion did, as ``NotificationStore/insertPendingOfAllowedApps(batch:cap:at:claimedUntil:)``
    /// returns it; or why the batch was not stored (then none of it is).
    public var insertion: Result<PendingBatchInsertion, any Error>

    /// Creates the outcome of a write of both parts.
    ///
    /// - Parameters:
    ///   - historyIDs: The fires' part.
    ///   - insertion: The batch's part.
    public init(historyIDs: Result<[Int64], any Error>, insertion: Result<PendingBatchInsertion, any Error>) {
        self.historyIDs = historyIDs
        self.insertion = insertion
    }
}
