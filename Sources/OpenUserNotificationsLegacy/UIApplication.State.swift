extension UIApplication {
    /// Whether the app is in the foreground and receiving events.
    public enum State: Int, Sendable {
        /// In the foreground: notifications that fire go to `application(_:didReceive:)` and are not shown.
        case active = 0
        /// Launching or coming back to the foreground.
        case inactive = 1
        /// In the background (or not launched yet): notifications that fire are shown.
        case background = 2
    }
}
