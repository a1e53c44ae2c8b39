extension PushServiceClient {
    /// What became of a push on the device, as the push service's `POST /v1/devices/{id}/receipts` counts it.
    ///
    /// ```swift
    /// await client.handleReceiveRemoteNotification(userInfo, kind: .action("reply"))
    /// ```
    public enum ReceiptKind: Sendable, Hashable {
        /// The notification service extension or `willPresent` saw it.
        case received
        /// The person opened it (`UNNotificationDefaultActionIdentifier`).
        case opened
        /// The person dismissed it (`UNNotificationDismissActionIdentifier`, with a custom dismiss action).
        case dismissed
        /// The person chose the action with this identifier.
        case action(String)

        /// The kind from a notification response's action identifier: the default action is `opened`, the dismiss
        /// action `dismissed`, anything else that action.
        ///
        /// - Parameter actionIdentifier: `UNNotificationResponse.actionIdentifier`.
        public init(actionIdentifier: String) {
            switch actionIdentifier {
            case "com.apple.UNNotificationDefaultActionIdentifier": self = .opened
            case "com.apple.UNNotificationDismissActionIdentifier": self = .dismissed
            default: self = .action(actionIdentifier)
            }
        }
    }
}
