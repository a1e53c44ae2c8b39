import Foundation

#if os(Linux)
import Glibc
#endif

/// Tells when another process wrote to the store, so an engine wakes up for a request `unotify add` stored while
/// it sleeps, without polling: inotify on the store's folder, read through a dispatch source (idle, it costs
/// nothing).
public final class StoreFileMonitor: @unchecked Sendable {  // `source` is set once; dispatch sources are thread-safe
    #if os(Linux)
    private let source: any DispatchSourceRead
    #endif

    /// Starts watching the folder of the store at `path`; `onChange` runs on a background queue after writes.
    /// - Returns: `nil` when the folder cannot be watched (the engine then only sees its own changes).
    public init?(storePath: String, onChange: @escaping @Sendable () -> Void) {
        #if os(Linux)
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        let folder = URL(fileURLWithPath: storePath).deletingLastPathComponent().path
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)
        guard inotify_add_watch(descriptor, folder, mask) >= 0 else {
            close(descriptor)
            return nil
        }
        let name = URL(fileURLWithPath: storePath).lastPathComponent
        let queue = DispatchQueue(label: "OpenUserNotifications.store-monitor")
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        source.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 4096)
            var relevant = false
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                relevant = relevant || Self.mentions(name, in: buffer[0..<count])
            }
            if relevant { onChange() }
        }
        source.setCancelHandler { close(descriptor) }
        source.resume()
        #elseif os(macOS)
        return nil  // Embedded processes on macOS see only their own changes; the daemon is Linux-only.
        #else
        #error("StoreFileMonitor: unsupported operating system")
        #endif
    }

    deinit {
        #if os(Linux)
        source.cancel()
        #endif
    }

    #if os(Linux)
    /// Whether any event names the store file or its `-wal` companion.
    private static func mentions(_ name: String, in events: ArraySlice<UInt8>) -> Bool {
        var offset = events.startIndex
        let header = MemoryLayout<inotify_event>.size
        while offset + header <= events.endIndex {
            let length = events[(offset + 12)..<(offset + 16)].reversed().reduce(0) { $0 << 8 | Int($1) }
            let nameBytes = events[(offset + header)..<min(events.endIndex, offset + header + length)]
            let eventName = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
            if eventName == name || eventName == name + "-wal" { return true }
            offset += header + length
        }
        return false
    }
    #endif
}
