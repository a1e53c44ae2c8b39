import NIOSSL

/// The certificate and key the server API speaks TLS with: `unotifyd --server --api-tls-certificate PEM
/// --api-tls-key PEM`. With it the API serves only HTTPS (HTTP/1.1 over TLS 1.2 or 1.3); a client speaking plain HTTP
/// to its port gets no answer but a closed connection.
///
/// ```swift
/// var configuration = ServerAPIConfiguration(host: "0.0.0.0", port: 2199, allowsRemote: true)
/// configuration.tls = ServerAPITLS(certificatePath: "/etc/unotify/api.pem", keyPath: "/etc/unotify/api.key")
/// let tls = try configuration.tls!.serverConfiguration()   // throws now, not at the first connection
/// ```
public struct ServerAPITLS: Sendable, Hashable {
    /// A PEM file: the server's certificate, then any intermediate certificates of its chain.
    public var certificatePath: String
    /// A PEM file: the certificate's private key (not encrypted).
    public var keyPath: String

    /// Names the two PEM files; nothing is read until ``serverConfiguration()``.
    public init(certificatePath: String, keyPath: String) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
    }

    /// A certificate chain and its key, read and checked.
    struct Pair: Sendable {
        var chain: [NIOSSLCertificate]
        var key: NIOSSLPrivateKey
    }

    /// Reads the certificate chain and the key, and checks that they make a usable TLS context (the key is the
    /// certificate's).
    ///
    /// - Returns: The server side's TLS configuration (with the pair as read now; ``ServerAPICertificate`` serves a
    ///   pair that can be read again).
    /// - Throws: ``ServerAPIError`` with reason `BadTLSConfiguration` naming the file at fault.
    public func serverConfiguration() throws -> TLSConfiguration {
        let pair = try load()
        return TLSConfiguration.makeServerConfiguration(
            certificateChain: pair.chain.map { .certificate($0) }, privateKey: .privateKey(pair.key))
    }

    /// Reads and checks the pair (see ``serverConfiguration()``).
    func load() throws -> Pair {
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMFile(certificatePath) } catch {
            throw Self.error("cannot read the certificate \(certificatePath): \(error)")
        }
        guard !chain.isEmpty else { throw Self.error("\(certificatePath) holds no PEM certificate") }
        let key: NIOSSLPrivateKey
        do { key = try NIOSSLPrivateKey(file: keyPath, format: .pem) } catch {
            throw Self.error("cannot read the private key \(keyPath): \(error)")
        }
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        do { _ = try NIOSSLContext(configuration: configuration) } catch {
            throw Self.error("cannot use \(certificatePath) with \(keyPath) (is it the certificate's key?): \(error)")
        }
        return Pair(chain: chain, key: key)
    }

    private static func error(_ detail: String) -> ServerAPIError {
        ServerAPIError(.internalServerError, reason: "BadTLSConfiguration", detail: detail)
    }
}
