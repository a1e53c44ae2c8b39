/// Why `unotifyd` cannot serve: one sentence for the administrator and the exit status the executable ends with.
///
/// ```swift
/// do {
///     try await daemon.runUntilSignalled()
/// } catch let error as DaemonError {
///     print("unotifyd: \(error)")   // "another unotifyd serves the store at ...: pid 4242 socket ..."
///     exit(error.exitStatus)       // 75
/// }
/// ```
public struct DaemonError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong; new cases may be added.
    public struct Code: Sendable, Hashable {
        fileprivate let name: String
        /// Another daemon holds the store's lock.
        public static let alreadyRunning = Code(name: "alreadyRunning")
        /// The store file is damaged (not a database, or a corrupt one): `unotify store check` and
        /// `unotify store recover` are the way out.
        public static let damagedStore = Code(name: "damagedStore")
        /// The store cannot be opened for another reason (permissions, a missing folder that cannot be made).
        public static let storeUnavailable = Code(name: "storeUnavailable")
        /// A file the options name cannot be used (`unotifyd --server`'s provider key, its APNs hosts).
        public static let invalidConfiguration = Code(name: "invalidConfiguration")
    }

    public var code: Code
    /// One sentence: what happened, and what to do.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// The exit status of `unotifyd` for this error, from sysexits(3): 75 (`EX_TEMPFAIL`) when another daemon
    /// runs, 65 (`EX_DATAERR`) for a damaged store, 78 (`EX_CONFIG`) for an unusable configuration file, 73
    /// (`EX_CANTCREAT`) for a store that cannot be opened.
    public var exitStatus: Int32 {
        switch code {
        case .alreadyRunning: 75
        case .damagedStore: 65
        case .invalidConfiguration: 78
        default: 73
        }
    }

    /// The store file is damaged; `reason` is SQLite's word for it.
    public static func damagedStore(path: String, reason: String) -> DaemonError {
        DaemonError(
            .damagedStore,
            "the store at \(path) is damaged (\(reason)): see `unotify store check --store \(path)`, and "
                + "`unotify store recover --store \(path)`, which keeps the damaged file beside the new one")
    }

    /// Another daemon holds the store's lock; `owner` is what it wrote there (its pid and socket).
    public static func alreadyRunning(owner: String, storePath: String) -> DaemonError {
        DaemonError(
            .alreadyRunning,
            "another unotifyd serves the store at \(storePath)\(owner.isEmpty ? "" : ": \(owner)"); stop it first, or "
                + "give this one another --store")
    }
}
