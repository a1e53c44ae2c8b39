import Foundation
import Synchronization

/// The tokens a running server API accepts, swapped whole when their file is read again: `unotifyd --server` reads
/// `--api-token-file` at start and again on SIGHUP, so revoking a client is deleting its line and sending SIGHUP.
///
/// A file that cannot be read or parsed on a reload changes nothing: the tokens in use stay, and the error is
/// thrown for the caller to log. Requests in flight finish with the set they were checked against.
///
/// ```swift
/// let credentials = try ServerAPICredentials(file: "/etc/unotify/api.tokens")
/// let api = ServerAPI(devices: devices, credentials: credentials)
/// // later, on SIGHUP:
/// do { let tokens = try credentials.reload(); print(tokens.clients) } catch { print("kept the old tokens: \(error)") }
/// ```
public final class ServerAPICredentials: Sendable {
    /// The file the tokens are read from; `nil` for tokens given in code (``reload()`` then changes nothing).
    public let file: String?
    private let current: Mutex<ServerAPITokens>

    /// Tokens given in code, never reloaded.
    ///
    /// - Parameter tokens: The tokens.
    public init(tokens: ServerAPITokens) {
        file = nil
        current = Mutex(tokens)
    }

    /// Reads the tokens of a file (``ServerAPITokens`` describes its two forms).
    ///
    /// - Parameter file: The token file's path.
    /// - Throws: ``ServerAPITokens/FileError`` when the file cannot be read or is not a token file.
    public init(file: String) throws(ServerAPITokens.FileError) {
        self.file = file
        current = Mutex(try Self.read(file))
    }

    /// The tokens in use now.
    public var tokens: ServerAPITokens { current.withLock { $0 } }

    /// Reads the file again and, when it is a valid token file, uses its tokens from the next request on.
    ///
    /// - Returns: The tokens now in use.
    /// - Throws: ``ServerAPITokens/FileError`` when the file cannot be read or is not a token file: the tokens in use
    ///   stay.
    @discardableResult
    public func reload() throws(ServerAPITokens.FileError) -> ServerAPITokens {
        guard let file else { return tokens }
        let tokens = try Self.read(file)
        current.withLock { $0 = tokens }
        return tokens
    }

    /// The client whose token this is, or `nil` (``ServerAPITokens/client(presenting:)``).
    public func client(presenting bearer: some StringProtocol) -> String? {
        tokens.client(presenting: bearer)
    }

    /// The client whose token this is and its scopes, or `nil` (``ServerAPITokens/identify(presenting:)``).
    public func identify(presenting bearer: some StringProtocol) -> (client: String, scopes: ServerAPIScopes)? {
        tokens.identify(presenting: bearer)
    }

    private static func read(_ file: String) throws(ServerAPITokens.FileError) -> ServerAPITokens {
        let text: String
        do { text = try String(contentsOfFile: file, encoding: .utf8) } catch {
            throw ServerAPITokens.FileError(line: nil, "cannot be read: \(error.localizedDescription)")
        }
        return try ServerAPITokens(parsing: text)
    }
}
