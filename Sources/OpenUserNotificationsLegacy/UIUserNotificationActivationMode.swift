/// Whether choosing an action brings the app to the foreground or runs it in the background.
public enum UIUserNotificationActivationMode: UInt, Sendable {
    /// Opens the app (mapped onto `UNNotificationActionOptions.foreground`).
    case foreground = 0
    /// Lets the app handle the action without opening it.
    case background = 1
}
