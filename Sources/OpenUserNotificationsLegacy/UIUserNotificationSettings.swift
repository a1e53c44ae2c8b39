import Foundation

/// What an app asks permission for, and the categories of actions its notifications offer.
///
/// ```swift
/// let settings = UIUserNotificationSettings(types: [.badge, .alert, .sound], categories: [category])
/// UIApplication.shared.registerUserNotificationSettings(settings)
/// ```
public class UIUserNotificationSettings: NSObject {
    /// The kinds of interaction asked for (or, from ``UIApplication/currentUserNotificationSettings``, granted).
    public let types: UIUserNotificationType
    /// The categories registered with the settings.
    public let categories: Set<UIUserNotificationCategory>?

    /// Creates settings.
    ///
    /// - Parameters:
    ///   - types: The kinds of interaction to ask for.
    ///   - categories: The categories of actions; replaces the ones registered before.
    public init(types: UIUserNotificationType, categories: Set<UIUserNotificationCategory>?) {
        self.types = types
        self.categories = categories
        super.init()
    }

    /// Whether two settings have the same types and categories.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UIUserNotificationSettings else { return false }
        return types == other.types && categories == other.categories
    }

    /// A hash consistent with ``isEqual(_:)``.
    public override var hash: Int { types.hashValue }
}
