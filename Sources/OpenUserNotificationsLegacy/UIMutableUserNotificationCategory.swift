import Foundation

/// A category you configure before registering it.
///
/// ```swift
/// let category = UIMutableUserNotificationCategory()
/// category.identifier = "ALERTCATEGORY"
/// category.setActions([open, ignore], for: .default)
/// ```
public class UIMutableUserNotificationCategory: UIUserNotificationCategory {
    /// The name a ``UILocalNotification/category`` uses.
    public override var identifier: String? {
        get { _identifier }
        set { _identifier = newValue }
    }

    /// Sets the actions shown in a context.
    ///
    /// - Parameters:
    ///   - actions: The actions, in order; `nil` removes them.
    ///   - context: `.default` (up to four actions) or `.minimal` (two).
    public func setActions(_ actions: [UIUserNotificationAction]?, for context: UIUserNotificationActionContext) {
        actionsByContext[context] = actions?.map { $0.copy() as! UIUserNotificationAction }
    }
}
