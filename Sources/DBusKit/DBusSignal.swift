/// A signal received on a ``DBusConnection``: broadcast and matched by a rule, or sent to the connection itself.
public struct DBusSignal: Sendable, Hashable {
    /// The unique bus name of the sender, such as `:1.4`.
    public var sender: String
    /// The object path that emitted it.
    public var path: String
    /// Its interface, such as `org.freedesktop.Notifications`.
    public var interface: String
    /// Its name, such as `ActionInvoked`.
    public var member: String
    /// Its arguments, in order.
    public var arguments: [DBusValue]

    public init(sender: String, path: String, interface: String, member: String, arguments: [DBusValue]) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }
}
