import Foundation
import NotificationEngine
import NotificationLocation
import NotificationWebCenter
import NotificationWire
import Synchronization

/// How `unotifyd` runs.
public struct DaemonConfiguration: Sendable {
    /// The Unix-domain socket apps connect to.
    public var socketPath: String
    /// The SQLite store.
    public var storePath: String
    /// Engine settings (pending cap, authorization policy, willPresent deadline).
    public var engine: EngineConfiguration
    /// How many messages may wait for a client that does not read before it is disconnected.
    public var maximumQueuedMessages: Int
    /// How long the daemon waits for a client's answer to an event before giving up on it.
    public var answerTimeout: TimeInterval
    /// How many of a connection's requests may be unanswered (read, and their reply not yet written) before the
    /// daemon stops reading that connection until replies went out.
    public var maximumUnansweredRequests = 32
    /// How long a new connection has to send its `hello` before it is closed, in seconds.
    public var helloDeadline: TimeInterval = 10
    /// How many connections one process may hold open at once; more are refused (closed at once).
    public var maximumConnectionsPerPeer = 64
    /// An already bound listening socket (systemd socket activation) to use instead of binding `socketPath`.
    public var inheritedSocket: Int32?
    /// Whether `run()` runs the engine's delivery loop; tests drive delivery themselves on a manual clock.
    public var runsEngineLoop = true
    /// Settings `run()` writes into the store's ``StorePolicy`` before it serves (the fields that are set; the
    /// others stay as the store has them): what `unotifyd --pending-cap` and `--authorization` say.
    public var policyToWrite = StorePolicy()
    /// Whether `run()` takes the store's daemon lock (``storeLockPath``), so that a second daemon on the same store
    /// refuses to start. Only tests that simulate a crash by leaving an engine behind turn it off.
    public var locksStore = true
    /// The lock file beside the store that one daemon holds while it runs: `<store>-daemon.lock`.
    public var storeLockPath: String { storePath + "-daemon.lock" }
    /// The files that define the system zone, watched for changes.
    public var localtimePath = "/etc/localtime"
    public var timezonePath: String? = "/etc/timezone"
    /// Receives the zone the monitor reports; the clock reads it (see ``SystemZone``).
    public var systemZone: SystemZone?
    /// Where location fixes come from while the daemon runs (GeoClue2 with `unotifyd --location geoclue`); `nil`
    /// takes fixes only from clients (`unotify location`).
    public var locationSource: (any LocationSource)?
    /// The APNs provider API served while the daemon runs (`unotifyd --apns-address`, on by default there);
    /// `nil` serves none, as `--apns-address off` and in-process daemons in tests. If it cannot start (the port is
    /// taken), the daemon logs an error and serves its socket anyway.
    public var apnsEndpoint: DaemonAPNsEndpoint?
    /// The production environment's APNs endpoint (`--apns-production-address`), which takes production tokens only;
    /// ``apnsEndpoint`` is the development one.
    public var apnsProductionEndpoint: DaemonAPNsEndpoint?
    /// The web notification center served while the daemon runs (`unotifyd --web-address`, on by default there);
    /// `nil` serves none, as `--web-address off` and in-process daemons in tests. Its secret and URL are written
    /// beside the socket (``WebCenterFiles``) once it listens, and removed when it stops. If it cannot start, the
    /// daemon logs an error and serves its socket anyway.
    public var webCenter: WebCenterConfiguration?
    /// The relay the desktop presenter's answers go through; the web center's actions take the same one. `nil`
    /// gives the web center a relay of its own, connected to the daemon's engine.
    public var responseRelay: ResponseRelay?

    public init(
        socketPath: String, storePath: String, engine: EngineConfiguration = EngineConfiguration(),
        maximumQueuedMessages: Int = 1_024, answerTimeout: TimeInterval = 30, inheritedSocket: Int32? = nil
    ) {
        self.socketPath = socketPath
        self.storePath = storePath
        self.engine = engine
        self.maximumQueuedMessages = maximumQueuedMessages
        self.answerTimeout = answerTimeout
        self.inheritedSocket = inheritedSocket
    }

    /// The file descriptor systemd passed for socket activation (`LISTEN_PID` = us, `LISTEN_FDS` ≥ 1), if any.
    public static func activationSocket(environment: [String: String]) -> Int32? {
        guard let pid = environment["LISTEN_PID"].flatMap(Int32.init), pid == getpid(),
            let count = environment["LISTEN_FDS"].flatMap(Int.init), count >= 1
        else { return nil }
        return 3  // SD_LISTEN_FDS_START
    }
}

/// The system time zone as the daemon's monitor last saw it, shared with the clock.
public final class SystemZone: Sendable {
    private let zone: Mutex<TimeZone>

    public init(_ zone: TimeZone) {
        self.zone = Mutex(zone)
    }

    public var current: TimeZone { zone.withLock { $0 } }

    public func set(_ newZone: TimeZone) {
        zone.withLock { $0 = newZone }
    }
}
