import ArgumentParser
import Foundation
import Logging
import NotificationAPNsProvider
import NotificationEngine
import NotificationServer
import NotificationStorePostgres
import NotificationWebCenter

// `unotifyd --server`: a server-mode worker (issue 12) instead of the per-user daemon.
extension DaemonOptions {
    /// Whether these options ask for a server-mode worker.
    public var isServerMode: Bool { server }

    /// Checks the server-mode options: all of them need `--server`, which needs a database, a key and a team.
    func validateServerMode() throws {
        let serverOnly: [(String, Bool)] = [
            ("--database", database != nil), ("--provider-key", providerKey != nil),
            ("--provider-key-id", providerKeyID != nil), ("--provider-team-id", providerTeamID != nil),
            ("--provider-trust-roots", providerTrustRoots != nil), ("--api-token-file", apiTokenFile != nil),
            ("--api-allow-remote", apiAllowRemote), ("--api-address", apiAddress != "127.0.0.1:2199"),
            ("--api-tls-certificate", apiTLSCertificate != nil), ("--api-tls-key", apiTLSKey != nil),
            ("--claim-lease", claimLease != nil), ("--database-connection-wait", databaseConnectionWait != nil),
            ("--database-call-deadline", databaseCallDeadline != nil),
        ]
        guard server else {
            if let (name, _) = serverOnly.first(where: \.1) { throw ValidationError("\(name) needs --server") }
            return
        }
        guard let database else { throw ValidationError("--server needs --database postgres://...") }
        do { _ = try PostgresNotificationStore.configuration(databaseURL: database) } catch {
            throw ValidationError("--database: \(error)")
        }
        guard providerKey != nil, providerTeamID != nil else {
            throw ValidationError("--server needs --provider-key AuthKey_<KEYID>.p8 and --provider-team-id")
        }
        if let claimLease, !(claimLease.isFinite && claimLease > 0 && claimLease <= 86_400) {
            throw ValidationError("--claim-lease takes a number of seconds above 0 and at most 86400, not \(claimLease)")
        }
        for (name, value) in [
            ("--database-connection-wait", databaseConnectionWait), ("--database-call-deadline", databaseCallDeadline),
        ] {
            if let value, !(value.isFinite && value > 0 && value <= 3_600) {
                throw ValidationError("\(name) takes a number of seconds above 0 and at most 3600, not \(value)")
            }
        }
        for (name, value) in [
            ("--provider-development-server", providerDevelopmentServer),
            ("--provider-production-server", providerProductionServer),
        ] where Self.apnsServer(value) == nil {
            throw ValidationError("\(name) takes host:port, not '\(value)'")
        }
        switch (apiTLSCertificate, apiTLSKey) {
        case (nil, nil): break
        case (_, nil): throw ValidationError("--api-tls-certificate needs --api-tls-key (the certificate's private key)")
        case (nil, _): throw ValidationError("--api-tls-key needs --api-tls-certificate")
        case (_, _):
            guard apiAddress != "off" else {
                throw ValidationError("--api-tls-certificate and --api-tls-key need the API: not with --api-address off")
            }
        }
        if apiAddress != "off" {
            let address: WebCenterAddress
            do { address = try WebCenterAddress(parsing: apiAddress) } catch { throw ValidationError("--api-address: \(error)") }
            guard address.isLoopback || apiAllowRemote else {
                throw ValidationError("--api-address \(address) is not a loopback address: add --api-allow-remote")
            }
            guard apiTokenFile != nil else {
                throw ValidationError("--server needs --api-token-file FILE (the API's bearer token), or --api-address off")
            }
        }
    }

    /// Runs a server-mode worker until SIGINT or SIGTERM (see ``DaemonServerMode/run()``); SIGHUP reads the API's
    /// token file again (``DaemonServerMode/reloadAPITokens(logger:)``) and its TLS certificate and key
    /// (``DaemonServerMode/reloadAPICertificate(logger:)``) without a restart.
    ///
    /// - Throws: ``DaemonError`` when the key cannot be read or the database cannot be migrated.
    public func runServerUntilSignalled() async throws {
        let server = try makeServer()
        let reloads = NotificationDaemon.onSignal(SIGHUP) {
            server.reloadAPITokens()
            server.reloadAPICertificate()
        }
        defer { reloads.cancel() }
        try await NotificationDaemon.untilSignalled { try await server.run() }
    }

    /// How long a worker's transaction may sit idle before PostgreSQL ends it (the store's `idleTransactionTimeout`):
    /// 10 seconds, or a quarter of the claim lease when that is shorter, so that a worker frozen in the middle of a
    /// claim loses it before the rows it marked could be claimed by another worker (docs/server-mode.md, "A worker
    /// frozen past its lease").
    static func idleTransactionTimeout(claimLease: TimeInterval) -> Duration {
        .milliseconds(Int(min(10, claimLease / 4) * 1000))
    }

    /// The server-mode worker these options describe: its APNs clients made and its key read, nothing connected
    /// yet.
    ///
    /// - Throws: ``DaemonError`` with `invalidConfiguration` when the key cannot be read or an option is missing.
    public func makeServer() throws -> DaemonServerMode {
        guard let database, let providerKey, let providerTeamID else {
            throw DaemonError(.invalidConfiguration, "--server needs --database, --provider-key and --provider-team-id")
        }
        let key: APNsSigningKey
        do { key = try APNsSigningKey(p8File: providerKey, teamID: providerTeamID, keyID: providerKeyID) } catch {
            throw DaemonError(.invalidConfiguration, "cannot read --provider-key \(providerKey): \(error)")
        }
        let store: PostgresNotificationStore
        do {
            store = PostgresNotificationStore(
                configuration: try PostgresNotificationStore.configuration(databaseURL: database),
                logger: Logger(label: "unotifyd.server"),
                connectionWait: .seconds(databaseConnectionWait ?? 15),
                callDeadline: .seconds(databaseCallDeadline ?? 120),
                idleTransactionTimeout: Self.idleTransactionTimeout(claimLease: claimLease ?? EngineConfiguration().claimLease))
        } catch {
            throw DaemonError(.invalidConfiguration, "--database: \(error)")
        }
        var server = DaemonServerMode(
            store: store, development: try client(providerDevelopmentServer, key: key),
            production: try client(providerProductionServer, key: key))
        if apiAddress != "off" {
            server.api = try apiConfiguration()
        }
        if let claimLease { server.claimLease = claimLease }
        return server
    }

    /// The API's address, tokens and TLS: `--api-address`, `--api-allow-remote`, the tokens read from
    /// `--api-token-file`, the files of `--api-tls-certificate` and `--api-tls-key`.
    private func apiConfiguration() throws -> DaemonServerMode.API {
        guard let apiTokenFile else {
            throw DaemonError(.invalidConfiguration, "--server needs --api-token-file, or --api-address off")
        }
        let address: WebCenterAddress
        do { address = try WebCenterAddress(parsing: apiAddress) } catch {
            throw DaemonError(.invalidConfiguration, "--api-address: \(error)")
        }
        let credentials: ServerAPICredentials
        do { credentials = try ServerAPICredentials(file: apiTokenFile) } catch {
            throw DaemonError(.invalidConfiguration, "--api-token-file \(apiTokenFile): \(error)")
        }
        var configuration = ServerAPIConfiguration(host: address.host, port: address.port, allowsRemote: apiAllowRemote)
        var certificate: ServerAPICertificate?
        if let apiTLSCertificate, let apiTLSKey {
            let tls = ServerAPITLS(certificatePath: apiTLSCertificate, keyPath: apiTLSKey)
            // Read now: a file that cannot be used stops the worker at start (exit status 78), not at a connection.
            // Read again on SIGHUP (``DaemonServerMode/reloadAPICertificate(logger:)``).
            do { certificate = try ServerAPICertificate(tls) } catch let error as ServerAPIError {
                throw DaemonError(.invalidConfiguration, "--api-tls-certificate / --api-tls-key: \(error.detail)")
            }
            configuration.tls = tls
        }
        return DaemonServerMode.API(configuration: configuration, credentials: credentials, certificate: certificate)
    }

    /// A client for `server` (host:port).
    private func client(_ server: String, key: APNsSigningKey) throws -> APNsClient {
        guard let server = Self.apnsServer(server) else {
            throw DaemonError(.invalidConfiguration, "not host:port: \(server)")
        }
        var configuration = APNsClientConfiguration(server: server)
        if let providerTrustRoots { configuration.trustRoots(pemFile: providerTrustRoots) }
        do { return try APNsClient(configuration: configuration, key: key) } catch {
            throw DaemonError(.invalidConfiguration, "\(error)")
        }
    }

    /// `host:port` (a bracketed IPv6 host too) as an APNs server.
    static func apnsServer(_ text: String) -> APNsServer? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65_535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        return APNsServer(host: host, port: port)
    }
}
