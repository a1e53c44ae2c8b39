import Foundation

/// A category of notifications and its actions: the checked form of `UNNotificationCategory`.
public struct CategorySpec: Sendable, Hashable, Codable {
    public var identifier: String
    public var actions: [ActionSpec]
    public var intentIdentifiers: [String]
    public var hiddenPreviewsBodyPlaceholder: String?
    public var categorySummaryFormat: String?
    /// The bits of `UNNotificationCategoryOptions` (customDismissAction is 1).
    public var options: UInt

    public init(
        identifier: String, actions: [ActionSpec], intentIdentifiers: [String] = [],
        hiddenPreviewsBodyPlaceholder: String? = nil, categorySummaryFormat: String? = nil, options: UInt = 0
    ) {
        self.identifier = identifier
        self.actions = actions
        self.intentIdentifiers = intentIdentifiers
        self.hiddenPreviewsBodyPlaceholder = hiddenPreviewsBodyPlaceholder
        self.categorySummaryFormat = categorySummaryFormat
        self.options = options
    }

    /// Whether dismissing a notification of this category reaches the app's delegate.
    public var sendsDismissAction: Bool { options & 1 != 0 }
}

/// A button on a notification: the checked form of `UNNotificationAction`.
public struct ActionSpec: Sendable, Hashable, Codable {
    public var identifier: String
    public var title: String
    /// The bits of `UNNotificationActionOptions` (authenticationRequired 1, destructive 2, foreground 4).
    public var options: UInt
    /// Set for text-input actions.
    public var textInput: TextInput?
    public var icon: Icon?

    public struct TextInput: Sendable, Hashable, Codable {
        public var buttonTitle: String
        public var placeholder: String
        public init(buttonTitle: String, placeholder: String) {
            self.buttonTitle = buttonTitle
            self.placeholder = placeholder
        }
    }

    public struct Icon: Sendable, Hashable, Codable {
        public var name: String
        public var isSystemImage: Bool
        public init(name: String, isSystemImage: Bool) {
            self.name = name
            self.isSystemImage = isSystemImage
        }
    }

    public init(identifier: String, title: String, options: UInt = 0, textInput: TextInput? = nil, icon: Icon? = nil) {
        self.identifier = identifier
        self.title = title
        self.options = options
        self.textInput = textInput
        self.icon = icon
    }
}
