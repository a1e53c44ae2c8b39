import Logging
import Synchronization

/// A logger that keeps every entry, at every level: tests read what a component logged.
///
/// ```swift
/// let log = LogRecords()
/// let cache = APNsFaultRuleCache(store: store, logger: log.logger)
/// #expect(log.entries.filter { $0.level >= .error }.count == 1)
/// ```
public final class LogRecords: Sendable {
    /// One logged entry.
    public struct Entry: Sendable {
        public var level: Logger.Level
        public var message: String
        public var metadata: [String: String]
        /// The message and the metadata as one text.
        public var text: String { message + " " + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined() }
    }

    private let recorded = Mutex<[Entry]>([])

    /// Creates an empty record.
    public init() {}

    /// Every entry so far, in order.
    public var entries: [Entry] { recorded.withLock { $0 } }

    /// The messages logged at `error` level or above, in order.
    public var errorMessages: [String] { entries.filter { $0.level >= .error }.map(\.message) }

    /// A logger (at `trace` level) whose entries land here.
    public var logger: Logger {
        Logger(label: "test") { _ in Handler(records: self) }
    }

    private struct Handler: LogHandler {
        let records: LogRecords
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            let entry = Entry(
                level: event.level, message: "\(event.message)", metadata: all.mapValues { "\($0)" })
            records.recorded.withLock { $0.append(entry) }
        }
    }
}
