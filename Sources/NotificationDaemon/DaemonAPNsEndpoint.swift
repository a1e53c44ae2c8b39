import Logging
import NotificationEngine
import NotificationModel
import NotificationPush
import NotificationPushGateway

/// The APNs endpoint a daemon serves besides its socket (``DaemonConfiguration/apnsEndpoint``), as
/// `unotifyd --apns-*` describe it; provider keys are read when the daemon starts the endpoint.
///
/// ```swift
/// var configuration = DaemonConfiguration(socketPath: socket, storePath: store)
/// configuration.apnsEndpoint = DaemonAPNsEndpoint(
///     configuration: APNsEndpointConfiguration(address: try APNsEndpointAddress(parsing: "127.0.0.1:2197")),
///     authKeys: "~/apns-keys", teamID: "DEF123GHIJ")
/// ```
public struct DaemonAPNsEndpoint: Sendable {
    /// Address, TLS and limits.
    public var configuration: APNsEndpointConfiguration
    /// `--apns-auth-keys`: a `.p8` file or a folder of them; `nil` turns token checks off.
    public var authKeys: String?
    /// `--apns-team-id`.
    public var teamID: String?
    /// `--apns-log-size`: how many requests the store's request log keeps (`unotify apns log`); 0 logs none.
    public var logSize = 1_000

    /// Creates the description.
    public init(configuration: APNsEndpointConfiguration, authKeys: String? = nil, teamID: String? = nil) {
        self.configuration = configuration
        self.authKeys = authKeys
        self.teamID = teamID
    }

    /// Starts the endpoint over the daemon's engine: the gateway only makes pushes due, the daemon's loop
    /// (woken by the store change) delivers them. Warns when it listens beyond loopback.
    func start(scheduler: NotificationScheduler, logger: Logger) async throws -> APNsEndpoint {
        var configuration = configuration
        if let authKeys {
            configuration.providerTokens = try await ProviderTokenVerifier(authKeys: authKeys, teamID: teamID)
        }
        if !configuration.address.isLoopback {
            logger.warning(
                "the APNs endpoint listens beyond loopback: other machines can send notifications",
                metadata: ["address": "\(configuration.address)"])
        }
        // Fault rules live in the store (`unotify apns fault`), so that any process sets them.
        let store = scheduler.store
        let faultRules = APNsFaultRuleCache(store: store, logger: logger)
        configuration.faultRules = { await faultRules.rules() }
        if logSize > 0 {
            configuration.requestLog = APNsRequestLog(keep: logSize, logger: logger) { entries, keep in
                try await store.appendAPNsLog(entries, keep: keep)
            }
        }
        let endpoint = APNsEndpoint(
            configuration: configuration,
            gateway: PushGateway(
                scheduler: scheduler, deliversImmediately: false, environment: configuration.environment, logger: logger),
            logger: logger)
        try await endpoint.start()
        return endpoint
    }
}
