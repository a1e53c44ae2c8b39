/// A method call to send on a ``DBusConnection``.
///
/// ```swift
/// let call = DBusMethodCall(
///     destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
///     interface: "org.freedesktop.Notifications", member: "GetCapabilities")
/// let reply = try await connection.call(call)
/// ```
public struct DBusMethodCall: Sendable, Hashable {
    /// The bus name of the peer, such as `org.freedesktop.Notifications`.
    public var destination: String
    /// The object path.
    public var path: String
    /// The interface that declares the method.
    public var interface: String
    /// The method's name.
    public var member: String
    /// The arguments, in order.
    public var arguments: [DBusValue]

    public init(destination: String, path: String, interface: String, member: String, arguments: [DBusValue] = []) {
        self.destination = destination
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }
}
