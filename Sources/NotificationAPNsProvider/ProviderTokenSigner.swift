import Foundation
import JWTKit
import NotificationEngine

/// Makes and keeps the provider token every request carries (`authorization: bearer <JWT>`): ES256-signed, with the
/// key identifier (`kid`), the team (`iss`) and the time it was made (`iat`), as APNs asks.
///
/// APNs refuses a token older than an hour (403 `ExpiredProviderToken`) and one changed more often than every
/// 20 minutes (429 `TooManyProviderTokenUpdates`), so a token is reused until it is ``refreshInterval`` old
/// (50 minutes unless given; at least 20, under 60), then replaced. Time comes from the injected clock.
///
/// ```swift
/// let signer = try ProviderTokenSigner(key: key, clock: SystemNotificationClock())
/// let token = try await signer.token()      // the same one for 50 minutes
/// request.headers.add(name: "authorization", value: "bearer \(token.value)")
/// ```
public actor ProviderTokenSigner {
    /// One signed token and when it was made.
    public struct Token: Sendable, Hashable {
        /// The JWT.
        public let value: String
        /// Its `iat`, in whole seconds.
        public let issuedAt: Date
    }

    /// APNs's shortest interval between two tokens: 20 minutes.
    public static let minimumRefreshInterval: TimeInterval = 20 * 60
    /// APNs's longest life of a token: one hour.
    public static let lifetime: TimeInterval = 60 * 60

    /// The signing key.
    public nonisolated let key: APNsSigningKey
    /// How old a token gets before the next request gets a new one.
    public nonisolated let refreshInterval: TimeInterval
    /// How many tokens were made so far.
    public private(set) var tokensMade = 0
    private let clock: any NotificationClock
    private let keys: JWTKeyCollection
    private var current: Token?
    /// The signing in progress, which concurrent callers share.
    private var signing: Task<Token, any Error>?
    private var keyAdded = false

    /// Creates a signer.
    ///
    /// - Parameters:
    ///   - key: The `.p8` key with its identifiers.
    ///   - refreshInterval: How old a token gets before it is replaced: from 20 minutes to under an hour.
    ///   - clock: Where time comes from.
    /// - Throws: ``APNsClientError/Code/invalidConfiguration`` for an interval out of that range.
    public init(
        key: APNsSigningKey, refreshInterval: TimeInterval = 50 * 60, clock: any NotificationClock
    ) throws(APNsClientError) {
        guard refreshInterval >= Self.minimumRefreshInterval, refreshInterval < Self.lifetime else {
            throw APNsClientError(
                .invalidConfiguration,
                "the provider token refresh interval is \(refreshInterval) s; APNs needs 1200 s to under 3600 s")
        }
        self.key = key
        self.refreshInterval = refreshInterval
        self.clock = clock
        self.keys = JWTKeyCollection()
    }

    /// The token to send now: the current one while it is younger than ``refreshInterval``, else a new one.
    ///
    /// - Throws: jwt-kit's error when signing fails.
    public func token() async throws -> Token {
        if let current, isFresh(current) { return current }
        return try await sign()
    }

    /// Replaces `stale` after the server answered 403 `ExpiredProviderToken` to it.
    ///
    /// Concurrent requests that got the same answer share one new token: when `stale` was already replaced, the
    /// newer token is returned. A token younger than 20 minutes is not replaced (APNs would refuse the change with
    /// `TooManyProviderTokenUpdates`; the server's clock then disagrees with ours).
    ///
    /// - Returns: The token to retry with, or `nil` when `stale` is too young to replace.
    /// - Throws: jwt-kit's error when signing fails.
    public func refresh(replacing stale: Token) async throws -> Token? {
        if let current, current != stale, current.issuedAt >= stale.issuedAt { return current }
        if let signing { return try await signing.value }
        guard clock.now.timeIntervalSince(stale.issuedAt) >= Self.minimumRefreshInterval else { return nil }
        return try await sign()
    }

    /// Whether a token can still be sent: younger than the refresh interval, and not from the future (the clock
    /// was set back more than the five minutes of skew APNs allows).
    private func isFresh(_ token: Token) -> Bool {
        let age = clock.now.timeIntervalSince(token.issuedAt)
        return age < refreshInterval && age > -300
    }

    /// Signs a new token, or joins the signing in progress.
    private func sign() async throws -> Token {
        if let signing { return try await signing.value }
        let task = Task { try await self.makeToken() }
        signing = task
        defer { signing = nil }
        let token = try await task.value
        current = token
        tokensMade += 1
        return token
    }

    /// Signs a token dated now; only ever runs once at a time (``sign()`` shares it).
    private func makeToken() async throws -> Token {
        let kid = JWKIdentifier(string: key.keyID)
        if !keyAdded {
            await keys.add(ecdsa: key.privateKey, kid: kid)
            keyAdded = true
        }
        let issuedAt = Date(timeIntervalSince1970: clock.now.timeIntervalSince1970.rounded(.down))
        let claims = ProviderTokenClaims(iss: key.teamID, iat: Int64(issuedAt.timeIntervalSince1970))
        let value = try await keys.sign(claims, kid: kid)
        return Token(value: value, issuedAt: issuedAt)
    }
}

/// The claims of a provider token: the team and the time, in whole seconds.
struct ProviderTokenClaims: JWTPayload {
    var iss: String
    var iat: Int64

    /// Nothing to check: the signer makes these, APNs verifies them.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
