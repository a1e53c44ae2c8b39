import Logging
import Synchronization

/// A logger that keeps every entry, at every level.
final class LogRecords: Sendable {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
        /// The message and the metadata as one text.
        var text: String { message + " " + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined() }
    }

    private let recorded = Mutex<[Entry]>([])

    var entries: [Entry] { recorded.withLock { $0 } }

    var logger: Logger {
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
