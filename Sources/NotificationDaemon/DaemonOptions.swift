import ArgumentParser
import Foundation
import Logging
import NotificationDelivery
import NotificationDesktop
import NotificationEngine
import NotificationModel
import NotificationGeoClue
import NotificationPlatform
import NotificationPush
import NotificationPushGateway
import NotificationStoreSQLite
import NotificationWebCenter
import NotificationWire

/// The command-line options of `unotifyd`, kept here so the executable's `main` stays a few lines.
public struct DaemonOptions: ParsableArguments {
    @Option(help: "The socket (default: $OPENUN_SOCKET, $XDG_RUNTIME_DIR/openusernotifications/unotifyd.sock).")
    var socket: String?

    @Option(help: "The store (default: $OPENUN_STORE, $XDG_DATA_HOME/openusernotifications/store.sqlite).")
    var store: String?

    @Option(
        name: .customLong("pending-cap"),
        help: "Pending requests kept per app, or off; written into the store, so every process on it applies it (unotify config).")
    var pendingCapOption: String?

    @Option(
        name: .customLong("authorization"),
        help: "How authorization requests are answered, grant or deny; written into the store like --pending-cap.")
    var authorizationOption: String?

    /// The cap when neither the option nor the store sets one: `$OPENUN_PENDING_CAP`, else Apple's 64.
    private var pendingCap: String {
        pendingCapOption ?? ProcessInfo.processInfo.environment["OPENUN_PENDING_CAP"] ?? "64"
    }

    /// Likewise for authorization: `$OPENUN_AUTHORIZATION`, else grant.
    private var authorization: String {
        authorizationOption ?? ProcessInfo.processInfo.environment["OPENUN_AUTHORIZATION"] ?? "grant"
    }

    @Option(name: .customLong("will-present-deadline"), help: "Seconds a running app has to answer willPresent.")
    var willPresentDeadline: Double = 2

    @Option(
        name: .customLong("service-extension-budget"),
        help: "Seconds an app's service extension may work on a push before serviceExtensionTimeWillExpire().")
    var serviceExtensionBudget: Double = 30

    @Option(
        name: .customLong("loop-realtime-priority"),
        help: "A SCHED_FIFO priority (1-99) for the delivery loop's thread, so a due notification is shown at once on a busy machine; needs CAP_SYS_NICE or LimitRTPRIO= (default: off).")
    var loopRealtimePriority: Int32?

    @Option(name: .customLong("max-queued-messages"), help: "Messages a client may leave unread before it is cut off.")
    var maximumQueuedMessages: Int = 1_024

    @Option(
        name: .customLong("max-unanswered-requests"),
        help: "Requests of one connection read ahead of their replies; past it the connection is not read until replies went out.")
    var maximumUnansweredRequests: Int = 32

    @Option(name: .customLong("hello-deadline"), help: "Seconds a new connection has to say hello before it is closed.")
    var helloDeadline: Double = 10

    @Option(name: .customLong("max-connections-per-peer"), help: "Connections one process may hold open at once.")
    var maximumConnectionsPerPeer: Int = 64

    @Option(name: .customLong("localtime-path"), help: .hidden)
    var localtimePath = "/etc/localtime"

    @Option(name: .customLong("timezone-path"), help: .hidden)
    var timezonePath = "/etc/timezone"

    @Option(help: "Where notifications are shown: automatic (the desktop when it has a notification server), desktop or terminal (default: $OPENUN_PRESENTER).")
    var presenter: AutomaticPresenter.Choice = AutomaticPresenter.choice(environment: ProcessInfo.processInfo.environment)

    @Option(help: "Where location fixes come from besides `unotify location`: geoclue (the system's GeoClue2) or off.")
    var location: String = "off"

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error.")
    var logLevelName: String = ProcessInfo.processInfo.environment["OPENUN_LOG_LEVEL"] ?? "info"

    @Option(
        name: .customLong("apns-address"),
        help: "Where the APNs provider API listens, host:port, or off (default: 127.0.0.1:2197).")
    var apnsAddress = "127.0.0.1:2197"

    @Option(
        name: .customLong("apns-production-address"),
        help: ArgumentHelp(
            "Where the production environment's APNs endpoint listens, host:port, or off (default: 127.0.0.1:2196; off when --apns-address is off).",
            discussion: "--apns-address serves the development (sandbox) environment. Each takes only the tokens issued for it (unotify token --environment); the other's answer 400 BadDeviceToken, as Apple's hosts do."))
    var apnsProductionAddress: String?

    @Option(
        name: .customLong("apns-log-size"),
        help: "How many of the latest APNs requests the store keeps for `unotify apns log` (0: none).")
    var apnsLogSize = 1_000

    @Flag(name: .customLong("apns-allow-remote"), help: "Allow --apns-address to be a non-loopback address.")
    var apnsAllowRemote = false

    @Option(name: .customLong("apns-certificate"), help: "A PEM certificate: the APNs endpoint speaks TLS (with --apns-key).")
    var apnsCertificate: String?

    @Option(name: .customLong("apns-key"), help: "The PEM private key of --apns-certificate.")
    var apnsKey: String?

    @Option(
        name: .customLong("apns-client-ca"),
        help: ArgumentHelp(
            "A PEM certificate authority whose client certificates authenticate providers (needs --apns-certificate).",
            discussion: "Certificates as Apple issues them: subject UID the bundle identifier, OU the team, extensions 1.2.840.113635.100.6.3.1 (development), .2 (production), .6 (topics). Clients without a certificate use provider tokens."))
    var apnsClientCA: String?

    @Option(
        name: .customLong("apns-auth-keys"),
        help: "An AuthKey_<KEYID>.p8 file or a folder of them: provider tokens (ES256 JWT) are then required.")
    var apnsAuthKeys: String?

    @Option(name: .customLong("apns-team-id"), help: "The team (iss) provider tokens must name.")
    var apnsTeamID: String?

    @Option(
        name: .customLong("web-address"),
        help: ArgumentHelp(
            "Where the web notification center listens, host:port, or off (default: 127.0.0.1:2198).",
            discussion: "`unotify center` prints its link, which carries a secret the daemon writes beside its socket (web-center.token, mode 0600); requests without it get 401."))
    var webAddress = "127.0.0.1:2198"

    @Flag(name: .customLong("web-allow-remote"), help: "Allow --web-address to be a non-loopback address.")
    var webAllowRemote = false

    @Flag(
        name: .customLong("server"),
        help: ArgumentHelp(
            "Run as a server-mode worker on a PostgreSQL database (--database) instead of the per-user daemon.",
            discussion: "The worker delivers registered devices' requests through APNs (--provider-key, --provider-team-id); any number of workers share one database. No socket, SQLite store or APNs endpoint is served then."))
    var server = false

    @Option(
        name: .customLong("database"),
        help: "With --server: the database, postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE or postgres://USER@/DATABASE?host=/socket/folder.")
    var database: String?

    @Option(name: .customLong("provider-key"), help: "With --server: the AuthKey_<KEYID>.p8 file provider tokens are signed with.")
    var providerKey: String?

    @Option(name: .customLong("provider-key-id"), help: "With --server: the key's identifier (default: from the AuthKey_<KEYID>.p8 name).")
    var providerKeyID: String?

    @Option(name: .customLong("provider-team-id"), help: "With --server: the team the provider tokens name.")
    var providerTeamID: String?

    @Option(
        name: .customLong("provider-development-server"),
        help: "With --server: where development devices' notifications go, host:port (default: Apple's sandbox host).")
    var providerDevelopmentServer = "api.sandbox.push.apple.com:443"

    @Option(
        name: .customLong("provider-production-server"),
        help: "With --server: where production devices' notifications go, host:port (default: Apple's production host).")
    var providerProductionServer = "api.push.apple.com:443"

    @Option(
        name: .customLong("api-address"),
        help: ArgumentHelp(
            "With --server: where the HTTP JSON API listens, host:port, or off (default: 127.0.0.1:2199).",
            discussion: "Routes: docs/openapi/server-api.yaml. Every request needs Authorization: Bearer <a token of --api-token-file>."))
    var apiAddress = "127.0.0.1:2199"

    @Flag(name: .customLong("api-allow-remote"), help: "With --server: allow --api-address to be a non-loopback address.")
    var apiAllowRemote = false

    @Option(
        name: .customLong("api-token-file"),
        help: ArgumentHelp(
            "With --server: the API's bearer tokens, read again on SIGHUP (required unless --api-address off).",
            discussion: """
                One token of at least 16 characters, or one line NAME TOKEN [SCOPES] per client (# comments; scopes \
                read,schedule,devices, all when none are given); the client's name is logged.
                """))
    var apiTokenFile: String?

    @Option(
        name: .customLong("api-tls-certificate"),
        help: ArgumentHelp(
            "With --server: a PEM certificate (chain): the API serves HTTPS only (with --api-tls-key).",
            discussion: """
                A host beyond loopback still needs --api-allow-remote; without TLS it is served with a warning. \
                Read again with the key on SIGHUP: new connections get a renewed certificate without a restart.
                """))
    var apiTLSCertificate: String?

    @Option(name: .customLong("api-tls-key"), help: "With --server: the PEM private key of --api-tls-certificate.")
    var apiTLSKey: String?

    @Option(
        name: .customLong("provider-trust-roots"),
        help: "With --server: a PEM file of the only certificate authorities the APNs hosts' certificates may chain to.")
    var providerTrustRoots: String?

    /// With `--server`: seconds a worker's claim on a due request lasts (the engine's `claimLease`, 60 by default).
    /// Hidden: a shorter lease brings a killed worker's claims back sooner (a live worker renews its claims every third
    /// of it); the crash tests use it (docs/server-mode.md, "What a crash costs").
    @Option(name: .customLong("claim-lease"), help: .hidden)
    var claimLease: Double?

    @Option(
        name: .customLong("database-connection-wait"),
        help: ArgumentHelp(
            "With --server: seconds a database call waits for a pooled connection (default 15).",
            discussion: "Then it fails (the API answers 503) instead of waiting while PostgreSQL is unreachable."))
    var databaseConnectionWait: Double?

    @Option(
        name: .customLong("database-call-deadline"),
        help: ArgumentHelp(
            "With --server: seconds a database call may run on its connection (default 120).",
            discussion: "Then it fails and its connection is closed: a call on a connection that died unnoticed ends."))
    var databaseCallDeadline: Double?

    public init() {}

    public var logLevel: Logger.Level { Logger.Level(rawValue: logLevelName) ?? .info }

    public func validate() throws {
        guard pendingCap == "off" || Int(pendingCap).map({ $0 >= 0 }) == true else {
            throw ValidationError("--pending-cap takes a number or off")
        }
        for (name, seconds) in [
            ("--will-present-deadline", willPresentDeadline), ("--service-extension-budget", serviceExtensionBudget),
            ("--hello-deadline", helloDeadline),
        ] where !(seconds.isFinite && seconds > 0 && seconds <= 86_400) {
            throw ValidationError("\(name) takes a number of seconds above 0 and at most 86400, not \(seconds)")
        }
        if let loopRealtimePriority, !(1...99).contains(loopRealtimePriority) {
            throw ValidationError("--loop-realtime-priority takes a SCHED_FIFO priority from 1 to 99, not \(loopRealtimePriority)")
        }
        for (name, count) in [
            ("--max-queued-messages", maximumQueuedMessages), ("--max-unanswered-requests", maximumUnansweredRequests),
            ("--max-connections-per-peer", maximumConnectionsPerPeer),
        ] where count < 1 {
            throw ValidationError("\(name) takes a whole number of at least 1, not \(count)")
        }
        guard (0...1_000_000).contains(apnsLogSize) else {
            throw ValidationError("--apns-log-size takes 0 (no log) to 1000000, not \(apnsLogSize)")
        }
        guard AuthorizationPolicy(rawValue: authorization) != nil else { throw ValidationError("--authorization takes grant or deny") }
        guard Logger.Level(rawValue: logLevelName) != nil else { throw ValidationError("unknown --log-level '\(logLevelName)'") }
        guard ["geoclue", "off"].contains(location) else { throw ValidationError("--location takes geoclue or off") }
        if apnsAddress != "off" {
            let address: APNsEndpointAddress
            do { address = try APNsEndpointAddress(parsing: apnsAddress) } catch { throw ValidationError("--apns-address: \(error)") }
            guard address.isLoopback || apnsAllowRemote else {
                throw ValidationError("--apns-address \(address) is not a loopback address: add --apns-allow-remote")
            }
        }
        if webAddress != "off" {
            let address: WebCenterAddress
            do { address = try WebCenterAddress(parsing: webAddress) } catch { throw ValidationError("--web-address: \(error)") }
            guard address.isLoopback || webAllowRemote else {
                throw ValidationError("--web-address \(address) is not a loopback address: add --web-allow-remote")
            }
        }
        guard (apnsCertificate == nil) == (apnsKey == nil) else {
            throw ValidationError("--apns-certificate and --apns-key go together")
        }
        guard apnsClientCA == nil || apnsCertificate != nil else {
            throw ValidationError("--apns-client-ca needs TLS: add --apns-certificate and --apns-key")
        }
        try validateServerMode()
    }

    /// The daemon these options describe, with the system clock, showing notifications on the desktop or in the
    /// terminal (``presenter``); the desktop's answers go to its engine.
    public func makeDaemon() throws -> NotificationDaemon {
        let environment = ProcessInfo.processInfo.environment
        let socketPath = socket ?? defaultDaemonSocketPath(environment: environment, userID: getuid())
        let storePath = store ?? Self.defaultStorePath(environment)
        var engine = EngineConfiguration(
            pendingCap: pendingCap == "off" ? nil : Int(pendingCap),
            authorizationPolicy: AuthorizationPolicy(rawValue: authorization) ?? .grantRequested,
            willPresentDeadline: willPresentDeadline)
        engine.presentationWhenUnanswered = [.banner, .list, .sound, .badge]
        engine.serviceExtensionTimeBudget = serviceExtensionBudget
        engine.loopRealtimePriority = loopRealtimePriority
        var configuration = DaemonConfiguration(
            socketPath: socketPath, storePath: storePath, engine: engine, maximumQueuedMessages: maximumQueuedMessages,
            inheritedSocket: DaemonConfiguration.activationSocket(environment: environment))
        configuration.policyToWrite = StorePolicy(
            pendingCap: pendingCapOption.flatMap(StorePolicy.PendingCap.init),
            authorizationPolicy: authorizationOption.flatMap(AuthorizationPolicy.init(rawValue:)))
        configuration.maximumUnansweredRequests = maximumUnansweredRequests
        configuration.helloDeadline = helloDeadline
        configuration.maximumConnectionsPerPeer = maximumConnectionsPerPeer
        configuration.localtimePath = localtimePath
        configuration.timezonePath = timezonePath
        let zone = SystemZone(TimeZoneMonitor.currentZone(localtimePath: localtimePath, timezonePath: timezonePath))
        configuration.systemZone = zone
        if location == "geoclue" {
            configuration.locationSource = GeoClueLocationSource(logger: Logger(label: "unotifyd"))
        }
        configuration.apnsEndpoint = try apnsEndpointConfiguration()
        configuration.apnsProductionEndpoint = try apnsProductionEndpointConfiguration()
        let relay = ResponseRelay(logger: Logger(label: "unotifyd"))
        configuration.responseRelay = relay
        if webAddress != "off" {
            var web = WebCenterConfiguration(address: try WebCenterAddress(parsing: webAddress))
            web.allowsRemote = webAllowRemote
            web.attachmentStoreRoot = engine.attachmentStoreRoot
            configuration.webCenter = web
        }
        let presenter = AutomaticPresenter(
            self.presenter, terminal: TerminalPresenter(output: .standardOutput, timeZone: { zone.current }),
            environment: environment, sounds: .standard(environment: environment, logger: Logger(label: "unotifyd")),
            logger: Logger(label: "unotifyd"), onResponse: relay.handler)
        do {
            let daemon = try NotificationDaemon(
                configuration: configuration, clock: SystemNotificationClock(timeZone: { zone.current }),
                presenter: presenter)
            relay.connect(daemon.scheduler)
            return daemon
        } catch let error as DaemonError {
            throw error
        } catch {
            guard SQLiteNotificationStore.isDamage(error) else {
                throw DaemonError(.storeUnavailable, "cannot open the store at \(storePath): \(error)")
            }
            throw DaemonError.damagedStore(path: storePath, reason: "\(error)")
        }
    }

    static func defaultStorePath(_ environment: [String: String]) -> String {
        if let path = environment["OPENUN_STORE"], !path.isEmpty { return path }
        let base =
            environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        return base + "/openusernotifications/store.sqlite"
    }
}

extension DaemonOptions {
    /// The APNs endpoint's settings, or `nil` for `--apns-address off`. Provider keys are loaded when
    /// ``NotificationDaemon/run()`` starts the endpoint.
    func apnsEndpointConfiguration() throws -> DaemonAPNsEndpoint? {
        try apnsEndpointConfiguration(address: apnsAddress, environment: .development)
    }

    /// The production endpoint's settings: `--apns-production-address`, by default 127.0.0.1:2196 unless
    /// `--apns-address` is off; the TLS and provider-token options apply to both endpoints.
    func apnsProductionEndpointConfiguration() throws -> DaemonAPNsEndpoint? {
        let address = apnsProductionAddress ?? (apnsAddress == "off" ? "off" : "127.0.0.1:2196")
        return try apnsEndpointConfiguration(address: address, environment: .production)
    }

    private func apnsEndpointConfiguration(address: String, environment: PushEnvironment) throws -> DaemonAPNsEndpoint? {
        guard address != "off" else { return nil }
        var configuration = APNsEndpointConfiguration(address: try APNsEndpointAddress(parsing: address))
        configuration.environment = environment
        configuration.allowsRemote = apnsAllowRemote
        if let apnsCertificate, let apnsKey {
            configuration.tls = .init(
                certificatePath: apnsCertificate, keyPath: apnsKey, clientCertificateAuthorityPath: apnsClientCA)
        }
        var endpoint = DaemonAPNsEndpoint(configuration: configuration, authKeys: apnsAuthKeys, teamID: apnsTeamID)
        endpoint.logSize = apnsLogSize
        return endpoint
    }
}

extension NotificationDaemon {
    /// Runs until SIGINT or SIGTERM, then stops cleanly.
    public func runUntilSignalled() async throws {
        // Every client holds a descriptor: take all the kernel allows this user (the soft limit is often 1,024).
        _ = try? DescriptorLimit.raiseToHardLimit()
        try await Self.untilSignalled { try await self.run() }
    }

    /// Calls `handler` (on a global queue) each time the process receives `number`, instead of the signal's default
    /// action, until the returned source is cancelled; the signal is unblocked first (a parent may have blocked it).
    static func onSignal(_ number: Int32, _ handler: @escaping @Sendable () -> Void) -> any DispatchSourceSignal {
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        sigaddset(&unblocked, number)
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler(handler: handler)
        source.resume()
        return source
    }

    /// Runs `body` in a task that SIGINT or SIGTERM cancels; a cancellation is a clean stop (exit status 0).
    static func untilSignalled(_ body: @escaping @Sendable () async throws -> Void) async throws {
        // A parent may have started us with these signals blocked (inherited masks): unblock them.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        sigaddset(&unblocked, SIGINT)
        sigaddset(&unblocked, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
        let task = Task { try await body() }
        let signals = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { task.cancel() }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }
        do {
            try await task.value
        } catch is CancellationError {
            // Stopped by SIGINT or SIGTERM: a clean stop.
        }
    }
}

extension AutomaticPresenter.Choice: ExpressibleByArgument {}
