import Foundation

/// An app's notification content extension as the system knows it: the categories it draws, the executable that
/// runs it while the app does not run it in its own process, and whether its view may load from the network.
///
/// The analogue of the `NSExtension` dictionary of a content extension bundle on iOS (its
/// `UNNotificationExtensionCategory`); the web center shows the extension's view for notifications of these
/// categories. Kept in the store's metadata (the engine's `NotificationStore.contentExtension(appID:)`), as service
/// extension commands are.
///
/// ```swift
/// try await store.setContentExtension(
///     ContentExtensionDeclaration(categories: ["invite"], command: ["/opt/chat/bin/InviteView"]),
///     appID: "com.example.chat")
/// ```
public struct ContentExtensionDeclaration: Codable, Sendable, Hashable {
    /// The categories (`categoryIdentifier`) whose notifications the extension draws.
    public var categories: [String]
    /// The executable and its arguments (absolute path first): one process per view and per action; `nil` when the
    /// extension only runs in the app's process.
    public var command: [String]?
    /// Whether the view may load images, styles and scripts from `https:` addresses and connect to them; without
    /// it, the view's frame has no network at all.
    public var allowsNetwork: Bool

    /// Creates a declaration.
    public init(categories: [String], command: [String]? = nil, allowsNetwork: Bool = false) {
        self.categories = categories
        self.command = command
        self.allowsNetwork = allowsNetwork
    }
}
