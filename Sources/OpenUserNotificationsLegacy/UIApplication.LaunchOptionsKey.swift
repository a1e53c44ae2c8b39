import Foundation

extension UIApplication {
    /// A key of the launch options handed to `application(_:didFinishLaunchingWithOptions:)`.
    public struct LaunchOptionsKey: RawRepresentable, Hashable, Sendable {
        /// The key's name.
        public let rawValue: String

        /// Creates a key from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The ``UILocalNotification`` the person tapped to launch the app.
        ///
        /// ```swift
        /// if let notification = launchOptions?[.localNotification] as? UILocalNotification { … }
        /// ```
        public static let localNotification = LaunchOptionsKey(rawValue: "UIApplicationLaunchOptionsLocalNotificationKey")
    }
}
