import Foundation

/// How the web center serves: its address, whether a non-loopback address is allowed, the body limit, and where
/// attachment files may be read from.
///
/// ```swift
/// var configuration = WebCenterConfiguration(address: try WebCenterAddress(parsing: "127.0.0.1:0"))
/// configuration.attachmentStoreRoot = "/home/me/.local/share/openusernotifications/attachments"
/// ```
public struct WebCenterConfiguration: Sendable {
    /// Where it listens (`unotifyd --web-address`).
    public var address: WebCenterAddress
    /// Whether an address beyond loopback is allowed (`unotifyd --web-allow-remote`); ``WebCenter/run(onListening:)``
    /// refuses one otherwise.
    public var allowsRemote = false
    /// The largest request body taken, in bytes; larger ones are answered 413.
    public var maximumBodySize = 64 * 1024
    /// The attachment data store: only files inside it are served as attachment images; `nil` serves none.
    public var attachmentStoreRoot: String?
    /// How many history entries the center reads at most (the History page, and what `/events` can resume).
    public var historyLimit = 2_000
    /// How often, in seconds on the engine's clock, `/events` reads the store for changes.
    public var eventPollInterval: TimeInterval = 1
    /// How long, in seconds on the engine's clock, a content extension may take to draw a view or answer an action.
    public var contentExtensionTimeout: TimeInterval = 10
    /// The largest view a content extension may draw, in bytes of UTF-8.
    public var contentExtensionMaximumSize = 256 * 1024

    /// Creates the settings for an address.
    public init(address: WebCenterAddress = .default) {
        self.address = address
    }
}
