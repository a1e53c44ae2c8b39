/// What an action does when chosen: a plain button, or a text field.
public enum UIUserNotificationActionBehavior: UInt, Sendable {
    /// A plain button.
    case `default` = 0
    /// A button that asks for text, mapped onto `UNTextInputNotificationAction`.
    case textInput = 1
}

/// The ``UIUserNotificationAction/parameters`` key of the send button's title for a `.textInput` action.
public let UIUserNotificationTextInputActionButtonTitleKey: String = "UIUserNotificationTextInputActionButtonTitleKey"

/// The `responseInfo` key under which the text typed for a `.textInput` action is handed to
/// `application(_:handleActionWithIdentifier:for:withResponseInfo:completionHandler:)`.
public let UIUserNotificationActionResponseTypedTextKey: String = "UIUserNotificationActionResponseTypedTextKey"
