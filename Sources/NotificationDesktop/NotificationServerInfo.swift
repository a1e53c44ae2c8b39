/// What the desktop's notification server said about itself: `GetServerInformation` and `GetCapabilities`.
public struct NotificationServerInfo: Sendable, Hashable {
    /// The product name, such as `dunst`.
    public var name: String
    /// The vendor, such as `knopwob`.
    public var vendor: String
    /// The server's version.
    public var version: String
    /// The version of the notification specification it follows, such as `1.2`.
    public var specificationVersion: String
    /// Its capabilities, such as `actions`, `body`, `body-markup`, `persistence`, `sound`.
    public var capabilities: Set<String>

    public init(
        name: String, vendor: String = "", version: String = "", specificationVersion: String = "",
        capabilities: Set<String>
    ) {
        self.name = name
        self.vendor = vendor
        self.version = version
        self.specificationVersion = specificationVersion
        self.capabilities = capabilities
    }

    /// Whether the server shows action buttons (and sends `ActionInvoked`).
    public var supportsActions: Bool { capabilities.contains("actions") }
    /// Whether the server shows a body at all.
    public var supportsBody: Bool { capabilities.contains("body") }
    /// Whether the server interprets markup in the body, so `&`, `<` and `>` must be escaped.
    public var supportsBodyMarkup: Bool { capabilities.contains("body-markup") }
    /// Whether the server plays sounds itself (`sound-file` and `sound-name` hints).
    public var supportsSound: Bool { capabilities.contains("sound") }
    /// Whether the server shows a text field for a reply (KDE Plasma's `inline-reply`, answered with
    /// `NotificationReplied`).
    public var supportsInlineReply: Bool { capabilities.contains("inline-reply") }
    /// Whether the server shows images from the `image-path` hint (`icon-static`, or `body-images`).
    public var supportsImages: Bool { capabilities.contains("icon-static") || capabilities.contains("body-images") }
}
