import Foundation

/// The bearer tokens the server API accepts, each with the name of the client it belongs to: what
/// `unotifyd --server --api-token-file FILE` reads.
///
/// The file has one of two forms:
///
/// - **One token** (the form of the first versions): the whole file, surrounding white space removed, is one token of
///   at least 16 characters without spaces or control characters. Its client is named ``defaultClient``.
/// - **Named tokens**: one `NAME TOKEN [SCOPES]` per line, separated by spaces or tabs. Names are 1 to 64 characters
///   among `A-Z a-z 0-9 . _ -`; tokens at least 16 characters without spaces or control characters; no name and no
///   token twice. `SCOPES`, when given, is a comma-separated list of ``ServerAPIScopes`` (`read`, `schedule`,
///   `devices`) that limits what the client may call (403 outside them); a line without it has every scope, as
///   before scopes existed. Blank lines and lines starting with `#` are skipped (a `#` after a token is part of no
///   comment: a line has two or three fields or is refused).
///
/// ```text
/// # who calls the API of the workers
/// backend     9f1c2e7a5b3d4c6e8f0a1b2c3d4e5f60
/// prometheus  0a1b2c3d4e5f60718293a4b5c6d7e8f9  read
/// signup      7e8f90a1b2c3d4e5f60718293a4b5c6d  devices,read
/// ```
///
/// A request is matched against every token in constant time (``client(presenting:)``): how long the check takes
/// does not tell which token, or how much of one, was right. The client's name, never its token, goes into the
/// request's context and the logs.
///
/// ```swift
/// let tokens = try ServerAPITokens(parsing: "backend 9f1c2e7a5b3d4c6e8f0a1b2c3d4e5f60\n")
/// tokens.client(presenting: "9f1c2e7a5b3d4c6e8f0a1b2c3d4e5f60")   // "backend"
/// ```
public struct ServerAPITokens: Sendable {
    /// The name of the client of a one-token file (and of ``init(token:)``).
    public static let defaultClient = "default"
    /// The shortest token a file may hold.
    public static let minimumTokenLength = 16
    /// The longest client name.
    public static let maximumNameLength = 64

    private let entries: [(name: String, token: [UInt8], scopes: ServerAPIScopes)]

    /// The clients' names, in the order of the file.
    public var clients: [String] { entries.map(\.name) }

    /// One token, of the client ``defaultClient``, taken as given (no length check: tests and benches use short
    /// ones; files are checked by ``init(parsing:)``).
    ///
    /// - Parameters:
    ///   - token: The bearer token.
    ///   - name: Its client's name.
    ///   - scopes: What it may call; all by default.
    public init(token: String, name: String = ServerAPITokens.defaultClient, scopes: ServerAPIScopes = .all) {
        entries = [(name, Array(token.utf8), scopes)]
    }

    /// The scopes of a client, by name, or `nil` for a name the tokens do not have.
    public func scopes(ofClient name: String) -> ServerAPIScopes? {
        entries.first { $0.name == name }?.scopes
    }

    /// Reads the text of a token file, in either form.
    ///
    /// - Parameter text: The file's contents.
    /// - Throws: ``FileError`` naming the line at fault (1-based) and what is wrong with it; nothing is accepted from
    ///   a file with one bad line.
    public init(parsing text: String) throws(FileError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if !trimmed.isEmpty, !trimmed.contains(where: Self.isSeparatorOrControl) {
            // The one-token form, checked as it always was.
            guard trimmed.count >= Self.minimumTokenLength else {
                throw FileError(
                    line: nil,
                    "must hold one token of at least \(Self.minimumTokenLength) characters, without spaces, or lines NAME TOKEN"
                )
            }
            entries = [(Self.defaultClient, Array(trimmed.utf8), .all)]
            return
        }
        var entries: [(name: String, token: [UInt8], scopes: ServerAPIScopes)] = []
        var lineOfName: [String: Int] = [:]
        var lineOfToken: [String: Int] = [:]
        // `\r\n` is one Character (a newline) in Swift: files written on Windows count their lines right too.
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let number = index + 1
            let fields = line.split(whereSeparator: \.isWhitespace)
            guard let first = fields.first, !first.hasPrefix("#") else { continue }
            guard fields.count == 2 || fields.count == 3 else {
                throw FileError(
                    line: number,
                    fields.count == 1
                        ? "a token without a name: write NAME TOKEN (a file holding only one token is the one-token form)"
                        : """
                        expected NAME TOKEN [SCOPES] (a name, a token of at least \(Self.minimumTokenLength) \
                        characters without spaces, and optionally scopes such as read,schedule), found \(fields.count) \
                        fields
                        """)
            }
            let name = String(fields[0])
            let token = String(fields[1])
            guard name.count <= Self.maximumNameLength, name.unicodeScalars.allSatisfy(Self.isNameCharacter) else {
                throw FileError(
                    line: number,
                    "the name '\(name)' is not 1 to \(Self.maximumNameLength) characters among A-Z a-z 0-9 . _ -")
            }
            guard token.count >= Self.minimumTokenLength, !token.contains(where: Self.isSeparatorOrControl) else {
                throw FileError(
                    line: number,
                    """
                    the token of '\(name)' must be at least \(Self.minimumTokenLength) characters without spaces or \
                    control characters
                    """)
            }
            if let earlier = lineOfName[name] {
                throw FileError(line: number, "the name '\(name)' is already used on line \(earlier)")
            }
            if let earlier = lineOfToken[token] {
                // The token itself is never repeated in a message: only where it was.
                throw FileError(line: number, "the token of '\(name)' is the same as the one on line \(earlier)")
            }
            var scopes = ServerAPIScopes.all
            if fields.count == 3 {
                do { scopes = try ServerAPIScopes(parsing: fields[2]) } catch {
                    throw FileError(line: number, "the scopes of '\(name)': \(error.message)")
                }
            }
            lineOfName[name] = number
            lineOfToken[token] = number
            entries.append((name, Array(token.utf8), scopes))
        }
        guard !entries.isEmpty else {
            throw FileError(line: nil, "holds no token (one token, or lines NAME TOKEN)")
        }
        self.entries = entries
    }

    /// The client whose token this is, or `nil`.
    ///
    /// Every token is compared, each in constant time, whichever matches: the time taken depends on the number of
    /// tokens and their lengths, not on which one (or how much of one) matched.
    ///
    /// - Parameter bearer: What followed `Bearer ` in the request's `Authorization` header.
    /// - Returns: The client's name.
    public func client(presenting bearer: some StringProtocol) -> String? {
        identify(presenting: bearer)?.client
    }

    /// The client whose token this is and its scopes, or `nil`; compared as ``client(presenting:)`` compares.
    ///
    /// - Parameter bearer: What followed `Bearer ` in the request's `Authorization` header.
    public func identify(presenting bearer: some StringProtocol) -> (client: String, scopes: ServerAPIScopes)? {
        let presented = Array(bearer.utf8)
        var found: (client: String, scopes: ServerAPIScopes)?
        for entry in entries {
            let equal = ServerAPIGuard.constantTimeEqual(presented, entry.token)
            if equal, found == nil { found = (entry.name, entry.scopes) }
        }
        return found
    }

    /// White space or a control character: never part of a token.
    private static func isSeparatorOrControl(_ character: Character) -> Bool {
        character.isWhitespace || character.unicodeScalars.contains { $0.value < 32 || $0.value == 127 }
    }

    /// `A-Z a-z 0-9 . _ -`.
    private static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", ".", "_", "-": return true
        default: return false
        }
    }
}
