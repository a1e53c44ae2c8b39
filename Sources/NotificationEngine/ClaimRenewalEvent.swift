/// What an engine's claim renewal reports to ``EngineConfiguration/claimRenewalObserver``: the events a server
/// worker counts in its metrics (`unotify_worker_claim_renewal_failures_total`,
/// `unotify_worker_claims_taken_over_total`). Both are also logged by the engine.
///
/// ```swift
/// var configuration = EngineConfiguration()
/// configuration.claimRenewalObserver = { event in
///     if case .takenOver(let claims) = event { print("\(claims) claims were taken over") }
/// }
/// ```
public enum ClaimRenewalEvent: Sendable, Hashable {
    /// A renewal failed (the store threw: the database is down or unreachable); the `claims` held then were not
    /// renewed this time. The renewal is tried again a third of a lease later.
    case renewalFailed(claims: Int)
    /// A renewal found `claims` no longer this engine's (another engine took them over after their lease ended, or
    /// they are gone): they are not renewed any more, and may be delivered twice.
    case takenOver(claims: Int)
}
