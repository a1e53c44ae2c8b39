import Foundation
import NotificationModel

/// An icon for an action button.
public final class UNNotificationActionIcon: NSObject, NSSecureCoding, @unchecked Sendable {
    let spec: ActionSpec.Icon

    /// An image from the app's bundle.
    public init(templateImageName: String) {
        spec = ActionSpec.Icon(name: templateImageName, isSystemImage: false)
    }

    /// A system symbol.
    public init(systemImageName: String) {
        spec = ActionSpec.Icon(name: systemImageName, isSystemImage: true)
    }

    /// Icons archive securely.
    public static var supportsSecureCoding: Bool { true }

    /// Decodes an icon archived with ``encode(with:)``.
    public init?(coder: NSCoder) {
        guard let spec = coder.decodeSpec(ActionSpec.Icon.self, forKey: "icon") else { return nil }
        self.spec = spec
    }

    /// Archives the icon.
    public func encode(with coder: NSCoder) { coder.encodeSpec(spec, forKey: "icon") }

    public override func isEqual(_ object: Any?) -> Bool { (object as? UNNotificationActionIcon)?.spec == spec }
    public override var hash: Int { spec.hashValue }
}

/// A button on a notification.
///
/// ```swift
/// let cancel = UNNotificationAction(identifier: "cancel", title: "Cancel", options: [.destructive])
/// ```
open class UNNotificationAction: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    public let identifier: String
    public let title: String
    public let options: UNNotificationActionOptions
    public let icon: UNNotificationActionIcon?

    public convenience init(identifier: String, title: String, options: UNNotificationActionOptions = []) {
        self.init(identifier: identifier, title: title, options: options, icon: nil)
    }

    public init(identifier: String, title: String, options: UNNotificationActionOptions = [], icon: UNNotificationActionIcon?) {
        self.identifier = identifier
        self.title = title
        self.options = options
        self.icon = icon
    }

    /// Actions archive securely.
    public class var supportsSecureCoding: Bool { true }

    /// Decodes an action archived with ``encode(with:)``.
    public required init?(coder: NSCoder) {
        guard let spec = coder.decodeSpec(ActionSpec.self, forKey: "action") else { return nil }
        identifier = spec.identifier
        title = spec.title
        options = UNNotificationActionOptions(rawValue: spec.options)
        icon = spec.icon.map {
            $0.isSystemImage ? UNNotificationActionIcon(systemImageName: $0.name) : UNNotificationActionIcon(templateImageName: $0.name)
        }
    }

    /// Archives the action.
    open func encode(with coder: NSCoder) { coder.encodeSpec(spec, forKey: "action") }

    package var spec: ActionSpec {
        ActionSpec(identifier: identifier, title: title, options: options.rawValue, icon: icon?.spec)
    }

    package static func make(_ spec: ActionSpec) -> UNNotificationAction {
        let icon = spec.icon.map {
            $0.isSystemImage ? UNNotificationActionIcon(systemImageName: $0.name) : UNNotificationActionIcon(templateImageName: $0.name)
        }
        let options = UNNotificationActionOptions(rawValue: spec.options)
        if let input = spec.textInput {
            return UNTextInputNotificationAction(
                identifier: spec.identifier, title: spec.title, options: options, icon: icon,
                textInputButtonTitle: input.buttonTitle, textInputPlaceholder: input.placeholder)
        }
        return UNNotificationAction(identifier: spec.identifier, title: spec.title, options: options, icon: icon)
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool { (object as? UNNotificationAction)?.spec == spec }
    open override var hash: Int { spec.hashValue }
}

/// A button that lets the person type a reply.
open class UNTextInputNotificationAction: UNNotificationAction, @unchecked Sendable {
    public let textInputButtonTitle: String
    public let textInputPlaceholder: String

    public convenience init(
        identifier: String, title: String, options: UNNotificationActionOptions = [], textInputButtonTitle: String,
        textInputPlaceholder: String
    ) {
        self.init(
            identifier: identifier, title: title, options: options, icon: nil, textInputButtonTitle: textInputButtonTitle,
            textInputPlaceholder: textInputPlaceholder)
    }

    public init(
        identifier: String, title: String, options: UNNotificationActionOptions = [], icon: UNNotificationActionIcon?,
        textInputButtonTitle: String, textInputPlaceholder: String
    ) {
        self.textInputButtonTitle = textInputButtonTitle
        self.textInputPlaceholder = textInputPlaceholder
        super.init(identifier: identifier, title: title, options: options, icon: icon)
    }

    /// Decodes an action archived with ``UNNotificationAction/encode(with:)``.
    public required init?(coder: NSCoder) {
        guard let input = coder.decodeSpec(ActionSpec.self, forKey: "action")?.textInput else { return nil }
        textInputButtonTitle = input.buttonTitle
        textInputPlaceholder = input.placeholder
        super.init(coder: coder)
    }

    package override var spec: ActionSpec {
        var spec = super.spec
        spec.textInput = ActionSpec.TextInput(buttonTitle: textInputButtonTitle, placeholder: textInputPlaceholder)
        return spec
    }
}
