import Foundation

/// The content of a notification as the engine and the store keep it: a checked, `Sendable` snapshot of
/// `UNNotificationContent`.
public struct NotificationPayload: Sendable, Hashable, Codable {
    public var title: String = ""
    public var subtitle: String = ""
    public var body: String = ""
    /// The app's new badge count; `nil` leaves the badge as it is, `0` hides it.
    public var badge: Int?
    public var sound: SoundSpec?
    public var launchImageName: String = ""
    public var userInfo: [String: PropertyListValue] = [:]
    public var attachments: [AttachmentSpec] = []
    public var categoryIdentifier: String = ""
    public var threadIdentifier: String = ""
    public var summaryArgument: String = ""
    public var summaryArgumentCount: Int = 1
    public var targetContentIdentifier: String?
    /// The raw value of `UNNotificationInterruptionLevel` (passive 0, active 1, timeSensitive 2, critical 3).
    public var interruptionLevel: UInt = 1
    public var relevanceScore: Double = 0
    public var filterCriteria: String?
    /// Set by `updating(from:)` with a message intent: the notification is a message from this sender.
    public var communication: CommunicationSpec?
    /// The app's name and icon on the desktop, from its `Info.plist` or configuration when the request was made
    /// (an addition of this library: Apple's content has no such property).
    public var appAppearance: AppAppearance?

    public init() {}

    /// Whether the content would show anything to a person: a title, subtitle or body.
    public var hasVisibleText: Bool { !(title.isEmpty && subtitle.isEmpty && body.isEmpty) }
}

/// A notification sound: the default one, a named file, or their critical and ringtone forms.
public struct SoundSpec: Sendable, Hashable, Codable {
    /// The file name; `nil` means the system's default sound.
    public var name: String?
    public var isCritical: Bool
    public var isRingtone: Bool
    /// The volume of a critical sound, 0.0 to 1.0.
    public var volume: Float?
    /// The app's bundle directory when the sound was created, where a named sound is looked up first (the
    /// daemon delivers for apps whose files it cannot otherwise find).
    public var bundleDirectory: String?

    public init(
        name: String? = nil, isCritical: Bool = false, isRingtone: Bool = false, volume: Float? = nil,
        bundleDirectory: String? = nil
    ) {
        self.name = name
        self.isCritical = isCritical
        self.isRingtone = isRingtone
        self.volume = volume
        self.bundleDirectory = bundleDirectory
    }
}

/// A file shown with a notification.
public struct AttachmentSpec: Sendable, Hashable, Codable {
    public var identifier: String
    public var url: URL
    /// The uniform type identifier, such as `public.png`.
    public var type: String
    public var options: [String: PropertyListValue]

    public init(identifier: String, url: URL, type: String, options: [String: PropertyListValue] = [:]) {
        self.identifier = identifier
        self.url = url
        self.type = type
        self.options = options
    }
}
