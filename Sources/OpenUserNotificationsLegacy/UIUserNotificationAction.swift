import Foundation

/// A button a notification offers. Build one with ``UIMutableUserNotificationAction``.
///
/// ```swift
/// let open = UIMutableUserNotificationAction()
/// open.identifier = "OPEN"
/// open.title = "Open"
/// open.activationMode = .foreground
/// ```
///
/// Mapped onto `UNNotificationAction` (or `UNTextInputNotificationAction` for `.textInput`): `activationMode`
/// `.foreground` → `.foreground`, ``isDestructive`` → `.destructive`, ``isAuthenticationRequired`` →
/// `.authenticationRequired`.
public class UIUserNotificationAction: NSObject, NSCopying, NSMutableCopying {
    var _identifier: String?
    var _title: String?
    var _behavior = UIUserNotificationActionBehavior.default
    var _parameters: [AnyHashable: Any] = [:]
    var _activationMode = UIUserNotificationActivationMode.background
    var _isAuthenticationRequired = false
    var _isDestructive = false

    /// Creates an action with no identifier.
    public override init() {
        super.init()
    }

    /// The identifier handed to `application(_:handleActionWithIdentifier:for:completionHandler:)`.
    public var identifier: String? { _identifier }
    /// The button's title.
    public var title: String? { _title }
    /// A button or a text field.
    public var behavior: UIUserNotificationActionBehavior { _behavior }
    /// Settings of the behavior, such as ``UIUserNotificationTextInputActionButtonTitleKey``.
    public var parameters: [AnyHashable: Any] { _parameters }
    /// Whether the app opens; `.background` by default.
    public var activationMode: UIUserNotificationActivationMode { _activationMode }
    /// Whether the device must be unlocked. Always `true` for foreground actions.
    public var isAuthenticationRequired: Bool { _isAuthenticationRequired || _activationMode == .foreground }
    /// Whether the action is shown as destructive.
    public var isDestructive: Bool { _isDestructive }

    /// Returns an immutable copy.
    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = UIUserNotificationAction()
        copy.assign(from: self)
        return copy
    }

    /// Returns a ``UIMutableUserNotificationAction`` with the same values.
    public func mutableCopy(with zone: NSZone? = nil) -> Any {
        let copy = UIMutableUserNotificationAction()
        copy.assign(from: self)
        return copy
    }

    func assign(from other: UIUserNotificationAction) {
        _identifier = other._identifier
        _title = other._title
        _behavior = other._behavior
        _parameters = other._parameters
        _activationMode = other._activationMode
        _isAuthenticationRequired = other._isAuthenticationRequired
        _isDestructive = other._isDestructive
    }

    /// The action as the UN API has it.
    var unAction: UNNotificationAction {
        var options: UNNotificationActionOptions = []
        if activationMode == .foreground { options.insert(.foreground) }
        if isDestructive { options.insert(.destructive) }
        if isAuthenticationRequired { options.insert(.authenticationRequired) }
        let identifier = identifier ?? "", title = title ?? ""
        if behavior == .textInput {
            let button = parameters[UIUserNotificationTextInputActionButtonTitleKey] as? String ?? ""
            return UNTextInputNotificationAction(
                identifier: identifier, title: title, options: options, textInputButtonTitle: button,
                textInputPlaceholder: "")
        }
        return UNNotificationAction(identifier: identifier, title: title, options: options)
    }

    /// Rebuilds an action from the UN API's form.
    static func make(_ action: UNNotificationAction) -> UIUserNotificationAction {
        let made = UIUserNotificationAction()
        made._identifier = action.identifier
        made._title = action.title
        made._activationMode = action.options.contains(.foreground) ? .foreground : .background
        made._isDestructive = action.options.contains(.destructive)
        made._isAuthenticationRequired = action.options.contains(.authenticationRequired)
        if let input = action as? UNTextInputNotificationAction {
            made._behavior = .textInput
            made._parameters = [UIUserNotificationTextInputActionButtonTitleKey: input.textInputButtonTitle]
        }
        return made
    }

    /// Whether two actions have the same values.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UIUserNotificationAction else { return false }
        return unAction.isEqual(other.unAction)
    }

    /// A hash consistent with ``isEqual(_:)``.
    public override var hash: Int { unAction.hash }
}
