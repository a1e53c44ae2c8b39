import ArgumentParser
import Foundation
import NIOSSL

/// `unotify server`: a server-mode worker's HTTP API from the command line (devices, scheduling, figures).
struct ServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server",
        abstract: "Talk to a server-mode worker (unotifyd --server): devices, scheduling, pushes, status.",
        discussion: """
            Every subcommand calls the worker's HTTP API (docs/openapi/server-api.yaml) at --url with the bearer \
            token read from --token-file (a file holding one of the tokens of unotifyd --server --api-token-file). Any worker of a \
            cluster answers for the whole cluster: they share one database.
            """,
        subcommands: [
            ServerStatus.self, ServerDevices.self, ServerRegister.self, ServerUnregister.self, ServerAudience.self,
            ServerSchedule.self, ServerScheduleBatch.self, ServerList.self, ServerCancel.self, ServerPush.self,
            ServerStats.self, ServerCancelPush.self, ServerCenter.self,
        ])
}

/// Options every `unotify server` subcommand takes.
struct ServerOptions: ParsableArguments {
    @Option(
        name: .customLong("url"), help: "The worker's API (default: $UNOTIFY_SERVER_URL or http://127.0.0.1:2199/).")
    var givenURL: String?

    /// `--url`, else `$UNOTIFY_SERVER_URL`, else the worker's default address on this machine.
    var url: String {
        givenURL ?? ProcessInfo.processInfo.environment["UNOTIFY_SERVER_URL"] ?? "http://127.0.0.1:2199/"
    }

    @Option(help: "The file holding the API's bearer token (default: $UNOTIFY_SERVER_TOKEN_FILE).")
    var tokenFile: String?

    @Option(
        help: "A PEM file of the only certificate authorities an https:// API's certificate may chain to (default: the system's).")
    var trustRoots: String?

    @Flag(help: "Print the API's JSON instead of text.")
    var json = false

    func validate() throws {
        guard let base = URL(string: url), base.scheme == "http" || base.scheme == "https", base.host != nil else {
            throw ValidationError("--url takes an http:// or https:// address, not '\(url)'")
        }
        guard let tokenPath, !tokenPath.isEmpty else {
            throw ValidationError("--token-file is required (or set UNOTIFY_SERVER_TOKEN_FILE)")
        }
    }

    /// `--token-file`, else `$UNOTIFY_SERVER_TOKEN_FILE`.
    var tokenPath: String? { tokenFile ?? ProcessInfo.processInfo.environment["UNOTIFY_SERVER_TOKEN_FILE"] }

    /// A client for the API these options name.
    func client() throws -> ServerAPIClient {
        guard let tokenFile = tokenPath, let base = URL(string: url) else { throw CLIError("--url and --token-file are required") }
        let token: String
        do {
            token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            throw CLIError("cannot read --token-file \(tokenFile): \(error.localizedDescription)")
        }
        guard !token.isEmpty else { throw CLIError("--token-file \(tokenFile) is empty") }
        var client = ServerAPIClient(base: base, token: token)
        if let trustRoots {
            do { client.trustRoots = try NIOSSLCertificate.fromPEMFile(trustRoots) } catch {
                throw CLIError("cannot read --trust-roots \(trustRoots): \(error)")
            }
            guard client.trustRoots?.isEmpty == false else {
                throw CLIError("--trust-roots \(trustRoots) holds no PEM certificate")
            }
        }
        return client
    }
}
