import Foundation
import Logging
import NotificationAPNsProvider
import NotificationEngine
import NotificationServer
import NotificationStorePostgres

/// `unotifyd --server`: one server-mode worker on a PostgreSQL database, delivering devices' requests through APNs.
///
/// ```swift
/// let options = try DaemonOptions.parse(["--server", "--database", url, "--provider-key", p8, "--provider-team-id", team])
/// try await options.makeServer().run()  // until the task is cancelled
/// ```
public struct DaemonServerMode: Sendable {
    /// The store; connected while ``run()`` runs.
    public let store: PostgresNotificationStore
    /// The APNs client for development devices.
    public let development: APNsClient
    /// The APNs client for production devices.
    public let production: APNsClient
    /// The HTTP JSON API served beside the worker (`--api-address`, `--api-token-file`); `nil` serves none.
    public var api: API?
    /// How long the worker's claims on due requests last, in seconds (`--claim-lease`; the engine's
    /// ``EngineConfiguration/claimLease``, 60 by default). A live worker renews its claims every third of it; a killed
    /// worker's claims (or those of a worker cut off from the database that long) are delivered by the others once it
    /// ends.
    public var claimLease: TimeInterval = EngineConfiguration().claimLease
    /// Called with the API's base URL once it listens (tests use it to learn a port the system chose).
    public var onAPIListening: @Sendable (String) async -> Void = { _ in }

    /// The server API's address and its clients' bearer tokens.
    public struct API: Sendable {
        /// Where it listens and what it accepts.
        public var configuration: ServerAPIConfiguration
        /// The tokens a request may bring (`--api-token-file`, read again by ``DaemonServerMode/reloadAPITokens()``).
        public var credentials: ServerAPICredentials
        /// The TLS pair of ``ServerAPIConfiguration/tls`` (`--api-tls-certificate`, `--api-tls-key`), read again by
        /// ``DaemonServerMode/reloadAPICertificate(logger:)``; `nil` without TLS, or to read the files once at start.
        public var certificate: ServerAPICertificate?

        /// Creates the API settings with one token.
        public init(configuration: ServerAPIConfiguration, token: String) {
            self.init(configuration: configuration, credentials: ServerAPICredentials(tokens: ServerAPITokens(token: token)))
        }

        /// Creates the API settings with each client's token, and the TLS pair to serve (reloadable).
        public init(
            configuration: ServerAPIConfiguration, credentials: ServerAPICredentials,
            certificate: ServerAPICertificate? = nil
        ) {
            self.configuration = configuration
            self.credentials = credentials
            self.certificate = certificate
        }
    }

    /// Creates a worker's composition; ``run()`` connects it.
    public init(store: PostgresNotificationStore, development: APNsClient, production: APNsClient, api: API? = nil) {
        self.store = store
        self.development = development
        self.production = production
        self.api = api
    }

    /// Reads the API's token file again (on SIGHUP: ``DaemonOptions/runServerUntilSignalled()``) and logs the
    /// outcome: the clients now accepted at `notice` level, or why the file was refused at `error` level, in which case
    /// the tokens in use stay. The next request is checked against the new tokens; requests in flight finish.
    ///
    /// - Returns: The tokens in use afterwards, or `nil` without an API or a token file.
    @discardableResult
    public func reloadAPITokens(logger: Logger = Logger(label: "unotifyd.server")) -> ServerAPITokens? {
        guard let credentials = api?.credentials, let file = credentials.file else {
            logger.notice("SIGHUP: no API token file to read again")
            return nil
        }
        do {
            let tokens = try credentials.reload()
            logger.notice(
                "read the API token file again", metadata: ["file": "\(file)", "clients": "\(tokens.clients)"])
            return tokens
        } catch {
            let kept = credentials.tokens
            logger.error(
                "the API token file was refused; the tokens in use stay",
                metadata: ["file": "\(file)", "error": "\(error)", "clients": "\(kept.clients)"])
            return kept
        }
    }

    /// Reads the API's TLS certificate and key again (on SIGHUP, with the token file) and logs the outcome: at `notice`
    /// level when the new pair is used for every connection from now on (connections already open keep theirs), at
    /// `error` level with why when it is refused (a file that cannot be read, a key that is not the certificate's), in
    /// which case the pair in use stays.
    ///
    /// - Returns: Whether a new pair is in use; `false` without TLS or when the files were refused.
    @discardableResult
    public func reloadAPICertificate(logger: Logger = Logger(label: "unotifyd.server")) -> Bool {
        guard let certificate = api?.certificate else { return false }
        let files: Logger.Metadata = [
            "certificate": "\(certificate.tls.certificatePath)", "key": "\(certificate.tls.keyPath)",
        ]
        do {
            try certificate.reload()
            logger.notice("read the API's TLS certificate and key again; new connections use them", metadata: files)
            return true
        } catch {
            var metadata = files
            metadata["error"] = "\(error)"
            logger.error("the API's TLS certificate or key was refused; the pair in use stays", metadata: metadata)
            return false
        }
    }

    /// Runs the worker until the task is cancelled: runs the store's pool, migrates the database, then runs a
    /// ``ServerWorker`` (its timer and `LISTEN/NOTIFY`) and, when ``api`` is set, the ``ServerAPI`` beside it;
    /// shuts the APNs clients down at the end. While the database cannot be reached, it waits for it (the pool keeps
    /// trying to connect).
    ///
    /// - Throws: ``DaemonError`` with `storeUnavailable` when the database cannot be migrated.
    public func run() async throws {
        let logger = Logger(label: "unotifyd.server")
        // The pool runs in a task of its own, which the caller's cancellation does not reach: the worker, stopping,
        // still records and releases its claims through it, and the pool stops only once the worker has returned
        // (a pool stopped at the same time left the worker's last store call waiting for ever).
        let pool = Task { await store.run() }
        var failure: (any Error)?
        do {
            // Waiting for a database that is down ends with the caller's cancellation: the pool is stopped then.
            do {
                try await withTaskCancellationHandler {
                    try await store.migrate()
                } onCancel: {
                    pool.cancel()
                }
            } catch {
                throw DaemonError(.storeUnavailable, "cannot migrate the database: \(error)")
            }
            logger.info("server-mode worker running", metadata: ["owner": "\(store.owner)"])
            var engine = EngineConfiguration()
            engine.claimLease = claimLease
            engine.claimBatch = ServerWorker.claimBatch
            engine.batchesInFlight = ServerWorker.batchesInFlight
            // The worker's figures carry the name its claims carry.
            let metrics = ServerMetrics(worker: store.owner)
            let worker = ServerWorker(
                store: store, development: development, production: production, configuration: engine,
                metrics: metrics, logger: logger)
            if let api {
                // The API and the worker stop together: the API failing (a port in use) stops the worker too.
                let server = ServerAPI(
                    devices: worker.devices, credentials: api.credentials, configuration: api.configuration,
                    metrics: metrics, certificate: api.certificate, logger: logger)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { await worker.run() }
                    group.addTask { [onAPIListening] in
                        try await server.run { url in
                            logger.info("server API listening", metadata: ["url": "\(url)"])
                            await onAPIListening(url)
                        }
                    }
                    defer { group.cancelAll() }
                    try await group.next()
                }
            } else {
                await worker.run()
            }
        } catch {
            failure = error
        }
        pool.cancel()
        await pool.value
        try? await development.shutdown()
        try? await production.shutdown()
        // Stopped while waiting for the database (the pool waits for a server that is down): a clean stop too.
        if let failure, !Task.isCancelled { throw failure }
    }
}
