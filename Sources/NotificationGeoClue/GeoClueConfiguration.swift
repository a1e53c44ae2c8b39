/// The settings of a ``GeoClueLocationSource``: which bus, which application it claims to be, and how precise a
/// location it asks for.
///
/// GeoClue2 decides by the `DesktopId` whether a client may have a location: `/etc/geoclue/geoclue.conf` may allow
/// it outright (a section `[<desktopID>]` with `allowed=true`, `system=true`, `users=`), otherwise the user's
/// agent (GNOME Shell, or the demo agent) is asked.
///
/// ```swift
/// let configuration = GeoClueConfiguration(desktopID: "unotifyd", accuracyLevel: .exact)
/// let source = GeoClueLocationSource(configuration: configuration)
/// ```
public struct GeoClueConfiguration: Sendable, Hashable {
    /// The client's `DesktopId`: the name of the application's `.desktop` file without the suffix, or a section of
    /// `geoclue.conf`.
    public var desktopID: String
    /// The client's `RequestedAccuracyLevel`.
    public var accuracyLevel: GeoClueAccuracyLevel
    /// The D-Bus address of the system bus, or `nil` for `DBUS_SYSTEM_BUS_ADDRESS` (or the default system bus
    /// socket when it is not set).
    public var busAddress: String?
    /// How long each D-Bus call may take. GeoClue 2.6 does not answer `GetClient` while no agent is registered, so
    /// this is also how long a missing agent takes to be reported.
    public var callTimeout: Duration

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - desktopID: The client's `DesktopId`; `unotifyd` by default.
    ///   - accuracyLevel: The requested accuracy; ``GeoClueAccuracyLevel/exact`` by default (needed for GPS and
    ///     NMEA fixes).
    ///   - busAddress: The system bus's address; `nil` (the default) for `DBUS_SYSTEM_BUS_ADDRESS` or the
    ///     standard socket.
    ///   - callTimeout: The limit of each D-Bus call; 10 seconds by default.
    public init(
        desktopID: String = "unotifyd", accuracyLevel: GeoClueAccuracyLevel = .exact, busAddress: String? = nil,
        callTimeout: Duration = .seconds(10)
    ) {
        self.desktopID = desktopID
        self.accuracyLevel = accuracyLevel
        self.busAddress = busAddress
        self.callTimeout = callTimeout
    }
}
