import DBusKit
import Foundation
import Logging
import NotificationLocation

/// Fixes from GeoClue2, the location service of Linux desktops, over the system bus.
///
/// Each sequence made by ``fixes()`` opens its own system-bus connection and GeoClue client: it calls
/// `GetClient` on `/org/freedesktop/GeoClue2/Manager`, sets the client's `DesktopId` and
/// `RequestedAccuracyLevel`, listens for the client's `LocationUpdated(o old, o new)` signal, calls `Start`, and
/// yields a ``LocationFix`` for each new location object (its `Latitude`, `Longitude`, `Accuracy` and
/// `Timestamp`, read with `GetAll`). Cancelling the iteration (or dropping the sequence) calls `Stop` and closes
/// the connection. Nothing is stored: the source only passes fixes on.
///
/// The sequence throws a ``GeoClueError`` when there is no system bus, no GeoClue, when GeoClue or its agent
/// refuses the client (``GeoClueError/Code/accessDenied``), or when GeoClue does not answer
/// (``GeoClueError/Code/timedOut``: 2.6 does not answer `GetClient` while no agent runs). Every failure is also
/// logged.
///
/// ```swift
/// let source = GeoClueLocationSource(configuration: GeoClueConfiguration(desktopID: "unotifyd"))
/// for try await fix in source.fixes() {
///     try await scheduler.locationDidChange(fix)
/// }
/// ```
///
/// > Note: GeoClue2 hands locations only to clients it allows: `/etc/geoclue/geoclue.conf` needs a section
/// > `[unotifyd]` with `allowed=true`, `system=true` and `users=`, or an agent (GNOME Shell, the demo agent) must
/// > authorize the desktop id. See docs/location.md.
public final class GeoClueLocationSource: LocationSource {
    /// GeoClue2's well-known bus name.
    public static let serviceName = "org.freedesktop.GeoClue2"
    /// The manager object's path.
    public static let managerPath = "/org/freedesktop/GeoClue2/Manager"

    static let managerInterface = "org.freedesktop.GeoClue2.Manager"
    static let clientInterface = "org.freedesktop.GeoClue2.Client"
    static let locationInterface = "org.freedesktop.GeoClue2.Location"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"

    /// The bus, desktop id and accuracy this source uses.
    public let configuration: GeoClueConfiguration
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let environment: [String: String]

    /// Creates a source; nothing happens until ``fixes()`` is iterated.
    ///
    /// - Parameters:
    ///   - configuration: The bus, desktop id, accuracy and call timeout.
    ///   - logger: Where failures and each client's life are logged.
    ///   - environment: Where `DBUS_SYSTEM_BUS_ADDRESS` is looked up when the configuration names no bus; the
    ///     process's environment by default.
    ///   - now: The arrival time of an update, used as the fix's timestamp when GeoClue gives none.
    public init(
        configuration: GeoClueConfiguration = GeoClueConfiguration(),
        logger: Logger = Logger(label: "org.openusernotifications.geoclue"),
        environment: [String: String] = ProcessInfo.processInfo.environment,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.logger = logger
        self.environment = environment
        self.now = now
    }

    /// The fixes GeoClue2 reports from now on, until the iteration is cancelled or the connection fails.
    ///
    /// - Returns: A sequence that throws a ``GeoClueError`` when the client cannot be set up or the bus is lost.
    public func fixes() -> AsyncThrowingStream<LocationFix, any Error> {
        let (stream, continuation) = AsyncThrowingStream<LocationFix, any Error>.makeStream()
        let task = Task { [self] in
            do {
                try await run(continuation)
                continuation.finish()
            } catch {
                logger.error("GeoClue2 location source failed", metadata: ["error": "\(error)"])
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    // MARK: - One client's life

    private func run(_ continuation: AsyncThrowingStream<LocationFix, any Error>.Continuation) async throws(
        GeoClueError
    ) {
        let bus = try connect()
        let signals = bus.signals()
        var client: String?
        do {
            client = try await setUpClient(on: bus)
            if let client {
                try await listen(on: bus, client: client, signals: signals, continuation)
            }
        } catch {
            await tearDown(bus, client: client)
            throw error
        }
        await tearDown(bus, client: client)
    }

    private func connect() throws(GeoClueError) -> DBusConnection {
        do {
            if let address = configuration.busAddress { return try DBusConnection(address: address) }
            return try DBusConnection.systemBus(environment: environment)
        } catch {
            let address = configuration.busAddress ?? environment["DBUS_SYSTEM_BUS_ADDRESS"]
            throw GeoClueError(
                .noSystemBus,
                message: "cannot connect to the system bus (\(address ?? DBusConnection.defaultSystemBusAddress)): "
                    + error.message, dbusErrorName: error.name)
        }
    }

    /// `GetClient`, `DesktopId`, `RequestedAccuracyLevel`, the match rule and `Start`; returns the client's path.
    private func setUpClient(on bus: DBusConnection) async throws(GeoClueError) -> String {
        let reply = try await call(
            bus, "GetClient", path: Self.managerPath, interface: Self.managerInterface, member: "GetClient")
        guard let client = reply.first?.stringValue, !client.isEmpty else {
            throw GeoClueError(.invalidReply, message: "GetClient returned \(reply), not an object path")
        }
        logger.debug("GeoClue2 client", metadata: ["path": "\(client)", "desktopID": "\(configuration.desktopID)"])
        try await setProperty(bus, client: client, "DesktopId", .string(configuration.desktopID))
        try await setProperty(
            bus, client: client, "RequestedAccuracyLevel", .uint32(configuration.accuracyLevel.rawValue))
        do {
            try await bus.addMatch(Self.matchRule(client: client))
        } catch {
            throw GeoClueError.from(error, during: "AddMatch")
        }
        _ = try await call(bus, "Start", path: client, interface: Self.clientInterface, member: "Start")
        logger.info(
            "GeoClue2 client started",
            metadata: ["path": "\(client)", "accuracyLevel": "\(configuration.accuracyLevel.rawValue)"])
        return client
    }

    /// The match rule for the client's `LocationUpdated` signal.
    static func matchRule(client: String) -> String {
        "type='signal',sender='\(serviceName)',interface='\(clientInterface)',member='LocationUpdated',"
            + "path='\(client)'"
    }

    /// The new location's path in a `LocationUpdated` signal of `client`, or `nil` for any other signal.
    static func updatedLocation(in signal: DBusSignal, client: String) -> String? {
        guard signal.interface == clientInterface, signal.member == "LocationUpdated", signal.path == client,
            signal.arguments.count == 2, case .objectPath(let path) = signal.arguments[1], path != "/"
        else { return nil }
        return path
    }

    private func listen(
        on bus: DBusConnection, client: String, signals: AsyncStream<DBusSignal>,
        _ continuation: AsyncThrowingStream<LocationFix, any Error>.Continuation
    ) async throws(GeoClueError) {
        // A location GeoClue already had when the client started may come before the match rule took effect:
        // read the client's `Location` once, then follow the signals.
        var last: String?
        let current = try? await call(
            bus, "Get Location", path: client, interface: Self.propertiesInterface, member: "Get",
            arguments: [.string(Self.clientInterface), .string("Location")])
        if let path = current?.first?.stringValue, path != "/" {
            last = path
            await report(path, on: bus, continuation)
        }
        for await signal in signals {
            guard let path = Self.updatedLocation(in: signal, client: client), path != last else { continue }
            last = path
            await report(path, on: bus, continuation)
        }
        if Task.isCancelled { return }
        throw GeoClueError(.disconnected, message: "the system bus connection was lost")
    }

    /// Reads the location object at `path` and yields its fix; a location that vanished or cannot be decoded is
    /// logged and skipped (the next update replaces it).
    private func report(
        _ path: String, on bus: DBusConnection, _ continuation: AsyncThrowingStream<LocationFix, any Error>.Continuation
    ) async {
        do {
            let reply = try await call(
                bus, "GetAll", path: path, interface: Self.propertiesInterface, member: "GetAll",
                arguments: [.string(Self.locationInterface)])
            guard case .variantDictionary(let properties)? = reply.first else {
                throw GeoClueError(.invalidReply, message: "GetAll returned \(reply), not a{sv}")
            }
            let fix = try GeoClueLocation(properties: properties).fix(receivedAt: now())
            logger.trace(
                "GeoClue2 fix",
                metadata: ["latitude": "\(fix.latitude)", "longitude": "\(fix.longitude)",
                    "accuracy": "\(fix.horizontalAccuracy)"])
            continuation.yield(fix)
        } catch {
            logger.warning("GeoClue2 location skipped", metadata: ["path": "\(path)", "error": "\(error)"])
        }
    }

    /// `Stop` (when a client was made) and close; failures are logged, not thrown.
    private func tearDown(_ bus: DBusConnection, client: String?) async {
        if let client {
            do {
                _ = try await bus.call(
                    DBusMethodCall(
                        destination: Self.serviceName, path: client, interface: Self.clientInterface, member: "Stop"),
                    timeout: .seconds(2))
                logger.debug("GeoClue2 client stopped", metadata: ["path": "\(client)"])
            } catch {
                logger.debug("GeoClue2 Stop failed", metadata: ["path": "\(client)", "error": "\(error)"])
            }
        }
        await bus.close()
    }

    private func setProperty(_ bus: DBusConnection, client: String, _ name: String, _ value: DBusValue)
        async throws(GeoClueError)
    {
        _ = try await call(
            bus, "Set \(name)", path: client, interface: Self.propertiesInterface, member: "Set",
            arguments: [.string(Self.clientInterface), .string(name), .variant(value)])
    }

    private func call(
        _ bus: DBusConnection, _ step: String, path: String, interface: String, member: String,
        arguments: [DBusValue] = []
    ) async throws(GeoClueError) -> [DBusValue] {
        do {
            return try await bus.call(
                DBusMethodCall(
                    destination: Self.serviceName, path: path, interface: interface, member: member,
                    arguments: arguments),
                timeout: configuration.callTimeout)
        } catch {
            throw GeoClueError.from(error, during: step)
        }
    }
}
