import NIOCore
import NIOSSL
import Synchronization

/// The certificate and key a running server API speaks TLS with, swapped whole when their files are read again:
/// `unotifyd --server` reads `--api-tls-certificate` and `--api-tls-key` at start and again on SIGHUP (with the token
/// file), so a renewed certificate is used without a restart.
///
/// The listening socket keeps the TLS context it was given at start; that context asks this object for the
/// certificate chain and key at every handshake (NIOSSL's `sslContextCallback`), so every connection made after a
/// reload gets the new pair, and connections already open keep the one they were made with. A pair that cannot be
/// read, or whose key is not the certificate's, is refused on a reload: the pair in use stays, and the error is thrown
/// for the caller to log.
///
/// ```swift
/// let certificate = try ServerAPICertificate(ServerAPITLS(certificatePath: "/etc/unotify/api.pem", keyPath: "/etc/unotify/api.key"))
/// let api = ServerAPI(devices: devices, credentials: credentials, configuration: configuration, certificate: certificate)
/// // later, on SIGHUP:
/// do { try certificate.reload() } catch { print("kept the certificate in use: \(error)") }
/// ```
public final class ServerAPICertificate: Sendable {
    /// The two files, read again by ``reload()``.
    public let tls: ServerAPITLS
    private let current: Mutex<ServerAPITLS.Pair>

    /// Reads the certificate chain and key and checks that they make a usable TLS context.
    ///
    /// - Parameter tls: The two PEM files.
    /// - Throws: ``ServerAPIError`` with reason `BadTLSConfiguration` naming the file at fault.
    public init(_ tls: ServerAPITLS) throws {
        self.tls = tls
        current = Mutex(try tls.load())
    }

    /// The certificate chain in use now, leaf first.
    public var certificateChain: [NIOSSLCertificate] { current.withLock { $0.chain } }

    /// Reads the two files again and, when they make a usable pair, uses it for every handshake from now on.
    ///
    /// - Throws: ``ServerAPIError`` with reason `BadTLSConfiguration` naming the file at fault: the pair in use stays.
    public func reload() throws {
        let pair = try tls.load()
        current.withLock { $0 = pair }
    }

    /// The server side's TLS configuration: the pair read first, and a callback that gives each handshake the pair in
    /// use at that moment.
    public func serverConfiguration() -> TLSConfiguration {
        let pair = current.withLock { $0 }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: pair.chain.map { .certificate($0) }, privateKey: .privateKey(pair.key))
        configuration.sslContextCallback = { [self] _, promise in
            let pair = current.withLock { $0 }
            var override = NIOSSLContextConfigurationOverride()
            override.certificateChain = pair.chain.map { .certificate($0) }
            override.privateKey = .privateKey(pair.key)
            promise.succeed(override)
        }
        return configuration
    }
}
