import Foundation

#if canImport(Glibc)
import Glibc
#endif
import NotificationModel

/// Starts an app's notification service extension: the part of the system that, on iOS, launches the extension
/// bundle of an app when a push with `mutable-content` arrives.
///
/// Hosts live where the extension's code can run: inside the app's own process (a registered
/// `UNNotificationServiceExtension` subclass, reached directly in embedded mode and over the daemon's socket
/// otherwise) or as an executable the app declared (``NotificationStore/serviceExtensionCommand(appID:)``). The
/// engine owns the time budget, so a host only starts, relays and stops.
public protocol ServiceExtensionHost: Sendable {
    /// Starts the app's extension on a push's request.
    /// - Returns: The run, or `nil` when the app has no extension this host can start.
    func startExtension(for request: RequestSpec, appID: String) async -> (any ServiceExtensionRun)?
}

/// One service extension working on one push: the analogue of the extension instance iOS makes for it.
public protocol ServiceExtensionRun: Sendable {
    /// Waits for the content the extension passes to its content handler; `nil` when it ended without calling it
    /// (it crashed, its process exited, its connection closed). Called once.
    func content() async -> NotificationPayload?

    /// Tells the extension that its time is about to run out (`serviceExtensionTimeWillExpire()`): it should
    /// call its content handler with its best attempt now.
    func timeWillExpire() async

    /// Ends the run: the engine waits no longer (an extension process is killed). Called once, last.
    func finish() async
}

extension NotificationStore {
    /// The command of the app's service extension executable (absolute path first), if it declared one.
    public func serviceExtensionCommand(appID: String) async throws -> [String]? {
        guard let stored = try await metadata(ServiceExtensionKeys.command(appID)), !stored.isEmpty else { return nil }
        return try JSONDecoder().decode([String].self, from: Data(stored.utf8))
    }

    /// Declares (or with `nil` removes) the app's service extension executable.
    public func setServiceExtensionCommand(_ command: [String]?, appID: String) async throws {
        let value = try command.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) } ?? ""
        try await setMetadata(ServiceExtensionKeys.command(appID), value)
    }
}

/// The metadata keys of service extension state.
enum ServiceExtensionKeys {
    static func command(_ appID: String) -> String { "serviceExtension.command.\(appID)" }
}

/// The lines a service extension executable and the system exchange, one JSON object per line: the system writes
/// a `request` to the executable's standard input and, when the time is nearly up, `timeWillExpire`; the
/// executable writes `content` to its standard output once and may exit. An executable that exits without
/// writing content leaves the original content.
public enum ServiceExtensionProcessMessage: Codable, Sendable, Hashable {
    /// The push's request, for the app.
    case request(appID: String, request: RequestSpec)
    /// `serviceExtensionTimeWillExpire()`: answer with the best attempt now.
    case timeWillExpire
    /// The content to show.
    case content(payload: NotificationPayload)

    /// The message as one line of JSON, newline included.
    public func encodedLine() throws -> Data {
        var data = try JSONEncoder().encode(self)
        data.append(0x0A)
        return data
    }

    /// Decodes one line (without its newline); `nil` for anything else.
    public static func decode(line: Data) -> ServiceExtensionProcessMessage? {
        try? JSONDecoder().decode(ServiceExtensionProcessMessage.self, from: line)
    }
}

/// Splits what a file descriptor delivers into lines; the blocking reads run on a thread of their own, never on
/// the cooperative pool.
public enum LineReader {
    /// Reads `handle` until end of file (or a read error) on a new thread, calling `line` for each complete line,
    /// then `end`. A read returns what the pipe has, so each line is handed over as soon as it arrives.
    public static func start(
        _ handle: FileHandle, line: @escaping @Sendable (Data) -> Void, end: @escaping @Sendable () -> Void
    ) {
        let descriptor = handle.fileDescriptor
        let thread = Thread {
            var buffer = Data()
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                buffer.append(contentsOf: chunk[0..<count])
                while let newline = buffer.firstIndex(of: 0x0A) {
                    line(Data(buffer[buffer.startIndex..<newline]))
                    buffer.removeSubrange(buffer.startIndex...newline)
                }
            }
            end()
        }
        thread.start()
    }
}
