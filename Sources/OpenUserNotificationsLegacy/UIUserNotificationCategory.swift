import Foundation

/// A kind of notification and the actions it offers. Build one with ``UIMutableUserNotificationCategory`` and
/// register it in ``UIUserNotificationSettings``.
///
/// Mapped onto `UNNotificationCategory` with the same identifier and the `.default` context's actions (the
/// `.minimal` context's when the default has none).
public class UIUserNotificationCategory: NSObject, NSCopying, NSMutableCopying {
    var _identifier: String?
    var actionsByContext: [UIUserNotificationActionContext: [UIUserNotificationAction]] = [:]

    /// Creates a category with no identifier and no actions.
    public override init() {
        super.init()
    }

    /// The name a ``UILocalNotification/category`` uses.
    public var identifier: String? { _identifier }

    /// The actions shown in a context, in order; `nil` if none were set for it.
    ///
    /// - Parameter context: `.default` (up to four actions) or `.minimal` (two).
    /// - Returns: The actions.
    public func actions(for context: UIUserNotificationActionContext) -> [UIUserNotificationAction]? {
        actionsByContext[context]
    }

    /// Returns an immutable copy.
    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = UIUserNotificationCategory()
        copy._identifier = _identifier
        copy.actionsByContext = actionsByContext
        return copy
    }

    /// Returns a ``UIMutableUserNotificationCategory`` with the same values.
    public func mutableCopy(with zone: NSZone? = nil) -> Any {
        let copy = UIMutableUserNotificationCategory()
        copy._identifier = _identifier
        copy.actionsByContext = actionsByContext
        return copy
    }

    /// The category as the UN API has it.
    var unCategory: UNNotificationCategory {
        let actions = actionsByContext[.default] ?? actionsByContext[.minimal] ?? []
        return UNNotificationCategory(
            identifier: identifier ?? "", actions: actions.map(\.unAction), intentIdentifiers: [], options: [])
    }

    /// Rebuilds a category from the UN API's form: its actions in the `.default` context.
    static func make(_ category: UNNotificationCategory) -> UIUserNotificationCategory {
        let made = UIUserNotificationCategory()
        made._identifier = category.identifier
        made.actionsByContext[.default] = category.actions.map(UIUserNotificationAction.make)
        return made
    }

    /// Whether two categories have the same identifier and actions.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UIUserNotificationCategory else { return false }
        return identifier == other.identifier && actionsByContext == other.actionsByContext
    }

    /// A hash consistent with ``isEqual(_:)``.
    public override var hash: Int { identifier?.hashValue ?? 0 }
}
