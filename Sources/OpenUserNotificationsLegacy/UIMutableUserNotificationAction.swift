import Foundation

/// An action you configure before putting it in a category.
///
/// ```swift
/// let ignore = UIMutableUserNotificationAction()
/// ignore.identifier = "IGNORE"
/// ignore.title = "Ignore"
/// ignore.activationMode = .background
/// ignore.isAuthenticationRequired = true
/// ignore.isDestructive = true
/// ```
public class UIMutableUserNotificationAction: UIUserNotificationAction {
    /// The identifier handed to `application(_:handleActionWithIdentifier:for:completionHandler:)`.
    public override var identifier: String? {
        get { _identifier }
        set { _identifier = newValue }
    }
    /// The button's title.
    public override var title: String? {
        get { _title }
        set { _title = newValue }
    }
    /// A button or a text field.
    public override var behavior: UIUserNotificationActionBehavior {
        get { _behavior }
        set { _behavior = newValue }
    }
    /// Settings of the behavior, such as ``UIUserNotificationTextInputActionButtonTitleKey``.
    public override var parameters: [AnyHashable: Any] {
        get { _parameters }
        set { _parameters = newValue }
    }
    /// Whether the app opens; `.background` by default.
    public override var activationMode: UIUserNotificationActivationMode {
        get { _activationMode }
        set { _activationMode = newValue }
    }
    /// Whether the device must be unlocked. Always `true` for foreground actions, whatever is set.
    public override var isAuthenticationRequired: Bool {
        get { _isAuthenticationRequired || _activationMode == .foreground }
        set { _isAuthenticationRequired = newValue }
    }
    /// Whether the action is shown as destructive.
    public override var isDestructive: Bool {
        get { _isDestructive }
        set { _isDestructive = newValue }
    }
}
