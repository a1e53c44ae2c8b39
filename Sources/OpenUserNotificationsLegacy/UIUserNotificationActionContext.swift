/// Where a category's actions are shown: with room for up to four, or for two.
public enum UIUserNotificationActionContext: UInt, Sendable {
    /// An alert with room for up to four actions.
    case `default` = 0
    /// A banner or the lock screen, with room for two.
    case minimal = 1
}
