import Foundation

/// The files through which the daemon tells its user how to open the web center: `web-center.token` (the
/// ``WebCenterSecret``) and `web-center.url` (the address the center actually listens on), both mode 0600, in the
/// folder of the daemon's socket (`$XDG_RUNTIME_DIR/openusernotifications`, else `/tmp/openusernotifications-<uid>`).
///
/// The daemon writes them once the center listens and removes them when it stops; `unotify center` reads them.
///
/// ```swift
/// let files = WebCenterFiles(folder: "/run/user/1000/openusernotifications")
/// try files.publish(secret: .random(), baseURL: "http://127.0.0.1:2198/")
/// let link = try files.read().link   // http://127.0.0.1:2198/?token=…
/// ```
public struct WebCenterFiles: Sendable, Hashable {
    /// The folder that holds both files.
    public var folder: String

    /// Names the folder.
    public init(folder: String) {
        self.folder = folder
    }

    /// The files beside a daemon socket.
    public init(socketPath: String) {
        folder = (socketPath as NSString).deletingLastPathComponent
    }

    /// `<folder>/web-center.token`.
    public var tokenPath: String { folder + "/web-center.token" }
    /// `<folder>/web-center.url`.
    public var urlPath: String { folder + "/web-center.url" }

    /// What the files say: the secret and the center's base URL.
    public struct Contents: Sendable, Hashable {
        public var secret: WebCenterSecret
        /// `http://host:port/`.
        public var baseURL: String

        /// The URL a person opens: the base URL with the secret as `token`.
        public var link: String { baseURL + "?token=" + secret.hex }
    }

    /// Writes both files (mode 0600; the folder 0700 when it is made). The token goes first, so a reader that finds
    /// the URL finds the secret that goes with it.
    /// - Throws: ``WebCenterError`` (``WebCenterError/Code/secretUnavailable``).
    public func publish(secret: WebCenterSecret, baseURL: String) throws(WebCenterError) {
        try PrivateFile.store(secret.hex + "\n", at: tokenPath)
        try PrivateFile.store(baseURL + "\n", at: urlPath)
    }

    /// Reads both files.
    /// - Throws: ``WebCenterError`` (``WebCenterError/Code/secretUnavailable``) saying which file is missing or
    ///   damaged: a missing URL file means no daemon serves the center (not running, or `--web-address off`).
    public func read() throws(WebCenterError) -> Contents {
        guard FileManager.default.fileExists(atPath: urlPath), FileManager.default.fileExists(atPath: tokenPath) else {
            throw WebCenterError(
                .secretUnavailable,
                "no web center is running: \(urlPath) does not exist (start unotifyd, without --web-address off)")
        }
        let secret = try WebCenterSecret(
            hex: try PrivateFile.read(tokenPath).trimmingCharacters(in: .whitespacesAndNewlines))
        let url = try PrivateFile.read(urlPath).trimmingCharacters(in: .whitespacesAndNewlines)
        guard url.hasPrefix("http://"), url.hasSuffix("/") else {
            throw WebCenterError(.secretUnavailable, "\(urlPath) does not hold the center's URL")
        }
        return Contents(secret: secret, baseURL: url)
    }

    /// Removes both files (the URL first); missing ones are fine.
    public func remove() {
        try? FileManager.default.removeItem(atPath: urlPath)
        try? FileManager.default.removeItem(atPath: tokenPath)
    }
}
