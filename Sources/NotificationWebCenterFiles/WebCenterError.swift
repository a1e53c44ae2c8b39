/// Why the web center refused something: a bad address, a secret file that cannot be written or read, a request it
/// cannot serve. One sentence for a person, and the HTTP status a request gets for it.
///
/// ```swift
/// do {
///     _ = try WebCenterAddress(parsing: "127.0.0.1")
/// } catch let error as WebCenterError {
///     print(error)   // "'127.0.0.1' is not host:port with a port from 0 to 65535"
/// }
/// ```
public struct WebCenterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong; new cases may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate let name: String
        /// An address that is not `host:port`.
        public static let badAddress = Code(name: "badAddress")
        /// The secret file cannot be written or read, or does not hold a secret.
        public static let secretUnavailable = Code(name: "secretUnavailable")
        /// A request without the secret (401).
        public static let unauthorized = Code(name: "unauthorized")
        /// A state-changing request that is not from the center's own pages (403).
        public static let forbidden = Code(name: "forbidden")
        /// Form data or a query that cannot be read (400).
        public static let badRequest = Code(name: "badRequest")
        /// An app, notification, request or attachment that does not exist (404).
        public static let notFound = Code(name: "notFound")
        /// A body over the limit (413).
        public static let tooLarge = Code(name: "tooLarge")
        /// The engine refused (422), with its own words.
        public static let refused = Code(name: "refused")

        public var description: String { name }
    }

    public var code: Code
    /// One sentence: what happened.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// The HTTP status code a request that fails with this error is answered with.
    public var status: Int {
        switch code {
        case .unauthorized: 401
        case .forbidden: 403
        case .badRequest, .badAddress: 400
        case .notFound: 404
        case .tooLarge: 413
        case .refused: 422
        default: 500
        }
    }
}
