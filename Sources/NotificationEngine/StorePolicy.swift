import NotificationModel

/// The settings that decide what happens to stored requests, kept in the store itself so that every process that
/// opens it — the daemon, a command's fallback engine, an app in embedded mode — applies the same ones.
///
/// A setting that is `nil` is not set: each engine then applies its own ``EngineConfiguration``. The daemon's
/// explicit options (`unotifyd --pending-cap`, `--authorization`) and `unotify config set` write them; the engine
/// reads the pending cap inside the transaction that adds a request, so a change takes effect for everyone at once
/// and an add in one process never removes requests another accepted under another setting.
///
/// ```swift
/// try await store.setPolicy(StorePolicy(pendingCap: .unlimited))   // `unotify config set pending-cap off`
/// ```
public struct StorePolicy: Sendable, Hashable {
    /// How many dated pending requests an app keeps.
    public enum PendingCap: Sendable, Hashable, CustomStringConvertible {
        /// Keep every request.
        case unlimited
        /// Keep the soonest-firing `n` (Apple's is 64).
        case limit(Int)

        /// The cap as ``NotificationStore/insertPending(_:cap:at:)`` takes it.
        public var value: Int? {
            if case .limit(let count) = self { count } else { nil }
        }

        /// `off`, or the number: how the command line and the store write it.
        public var description: String { value.map(String.init) ?? "off" }

        /// Parses `off` or a whole number from 0 up; `nil` for anything else.
        public init?(_ text: String) {
            if text == "off" {
                self = .unlimited
            } else if let count = Int(text), count >= 0 {
                self = .limit(count)
            } else {
                return nil
            }
        }
    }

    /// The pending cap every engine on this store applies, or `nil` for each engine's own.
    public var pendingCap: PendingCap?
    /// How authorization requests are answered, or `nil` for each engine's own.
    public var authorizationPolicy: AuthorizationPolicy?

    public init(pendingCap: PendingCap? = nil, authorizationPolicy: AuthorizationPolicy? = nil) {
        self.pendingCap = pendingCap
        self.authorizationPolicy = authorizationPolicy
    }
}
