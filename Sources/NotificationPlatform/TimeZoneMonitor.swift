import Dispatch
import Foundation

#if os(Linux)
import Glibc
#elseif os(macOS)
import Darwin
#else
#error("TimeZoneMonitor: unsupported operating system")
#endif

/// Tells when the system time zone changes, so floating calendar triggers ("every day at 8:00") follow it.
///
/// The system zone is defined by `/etc/localtime`, a symlink into the zoneinfo database
/// (`/usr/share/zoneinfo/Europe/Paris`), and on Debian also by `/etc/timezone`, a text file naming the zone.
/// `timedatectl set-timezone` does not edit the link: it creates a new one and renames it over the old. So the
/// monitor watches the *folders* of both files with inotify (`IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM |
/// IN_CLOSE_WRITE | IN_DELETE | IN_ATTRIB`, filtered on the two names), read through a dispatch source: no polling
/// and no wake-ups while nothing changes.
///
/// On a change it resets Foundation's cached system zone (`NSTimeZone.resetSystemTimeZone()`, so `TimeZone.current`
/// and the engine's `SystemNotificationClock` see the new zone), resolves the zone with
/// ``resolveZone(tz:localtimeLinkTarget:timezoneFileContents:fallback:)`` and, when its identifier differs from the
/// last one reported (or from ``zoneAtStart``), calls `onChange` with it on a private serial queue. Several events
/// in one wake-up (a new link and a rewritten `/etc/timezone`) produce at most one call. When `TZ` is set it wins,
/// so changes to the files are not reported.
///
/// The monitor does not watch the zoneinfo file the link points to: Foundation takes zone rules from its own ICU
/// data, not from that file, so a `tzdata` update does not change what the engine computes.
///
/// The paths and the `TZ` lookup are parameters so tests can point the monitor at a temporary folder.
///
/// On macOS (where the daemon does not run) the monitor is a stub that never calls `onChange`.
///
/// ```swift
/// let zones = try TimeZoneMonitor { zone in
///     logger.info("system time zone is now \(zone.identifier)")
///     Task { try await scheduler.timeZoneDidChange() }  // re-plans floating calendar triggers
/// }
/// // ... keep `zones` alive as long as the daemon runs; `await zones.stop()` when shutting down.
/// ```
public final class TimeZoneMonitor: @unchecked Sendable {
    // Safe to share: every stored property is a `let` of a Sendable type or a dispatch object (thread-safe); the
    // mutable "last reported zone" lives in the event handler's closure and is only touched on the source's
    // serial queue.

    /// The file that defines the system zone on Linux.
    public static let systemLocaltimePath = "/etc/localtime"
    /// Debian's text file naming the system zone (absent on some distributions: then it is simply never written).
    public static let systemTimezonePath = "/etc/timezone"

    /// The `TZ` environment variable of this process.
    public static let processTZ: @Sendable () -> String? = { getenv("TZ").map { String(cString: $0) } }

    /// The zone the files defined when the monitor started.
    public let zoneAtStart: TimeZone

    #if os(Linux)
    private let source: any DispatchSourceRead
    #endif
    /// Entered at start, left by the cancel handler once the inotify descriptor is closed.
    private let running = DispatchGroup()

    /// Starts watching.
    ///
    /// - Parameters:
    ///   - localtimePath: The zone's symlink; its folder must exist.
    ///   - timezonePath: The text file naming the zone, or `nil` to ignore it; its folder must exist.
    ///   - readTZ: Reads the `TZ` variable at each change (tests pass `{ nil }`).
    ///   - onChange: Called on a private serial queue with the new zone.
    /// - Throws: ``SystemCallError`` when `inotify_init1` or `inotify_add_watch` fails (`ENOENT` for a missing
    ///   folder).
    public init(
        localtimePath: String = TimeZoneMonitor.systemLocaltimePath,
        timezonePath: String? = TimeZoneMonitor.systemTimezonePath,
        readTZ: @escaping @Sendable () -> String? = TimeZoneMonitor.processTZ,
        onChange: @escaping @Sendable (TimeZone) -> Void
    ) throws(SystemCallError) {
        #if os(Linux)
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw SystemCallError.last("inotify_init1") }
        // Replacing, removing or rewriting the file; IN_ONLYDIR makes a path whose folder is a file fail.
        let mask = UInt32(
            IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_CLOSE_WRITE | IN_DELETE | IN_ATTRIB | IN_ONLYDIR)
        var namesByWatch: [Int32: Set<String>] = [:]
        for path in [localtimePath, timezonePath].compactMap({ $0 }) {
            let url = URL(fileURLWithPath: path)
            let watch = inotify_add_watch(descriptor, url.deletingLastPathComponent().path, mask)
            guard watch >= 0 else {
                let error = SystemCallError.last("inotify_add_watch")
                close(descriptor)
                throw error
            }
            namesByWatch[watch, default: []].insert(url.lastPathComponent)
        }
        // Resolved after the watches exist, so a change made in between is reported rather than missed.
        let current = { @Sendable in
            Self.currentZone(localtimePath: localtimePath, timezonePath: timezonePath, tz: readTZ())
        }
        let start = current()
        zoneAtStart = start
        source = DispatchSource.makeReadSource(
            fileDescriptor: descriptor, queue: DispatchQueue(label: "NotificationPlatform.time-zone"))
        var lastIdentifier = start.identifier
        source.setEventHandler { [namesByWatch] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            var relevant = false
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                relevant = relevant || Self.mentions(namesByWatch, in: buffer[0..<count])
            }
            guard relevant else { return }
            // A rewrite in place (truncate, then write) is seen empty first: that names no zone, and the write's own
            // event follows, so report nothing yet rather than the fallback zone for a moment.
            if let timezonePath, (try? String(contentsOfFile: timezonePath, encoding: .utf8))?.isEmpty == true { return }
            NSTimeZone.resetSystemTimeZone()
            let zone = current()
            guard zone.identifier != lastIdentifier else { return }
            lastIdentifier = zone.identifier
            onChange(zone)
        }
        running.enter()
        source.setCancelHandler { [running] in
            close(descriptor)
            running.leave()
        }
        source.resume()
        #elseif os(macOS)
        // Stub: the daemon is Linux-only; report the zone but never a change.
        zoneAtStart = TimeZone.current
        #else
        #error("TimeZoneMonitor: unsupported operating system")
        #endif
    }

    deinit {
        cancel()
    }

    /// Stops watching; the inotify descriptor is closed shortly after, on the monitor's queue. Calling it again
    /// does nothing.
    public func cancel() {
        #if os(Linux)
        source.cancel()
        #endif
    }

    /// Stops watching and returns once the inotify descriptor is closed.
    public func stop() async {
        cancel()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            running.notify(queue: .global()) { continuation.resume() }
        }
    }

    // MARK: - Resolving the zone

    /// The system zone as the files and `TZ` define it now (reads the link and the file; see
    /// ``resolveZone(tz:localtimeLinkTarget:timezoneFileContents:fallback:)``).
    public static func currentZone(
        localtimePath: String = systemLocaltimePath, timezonePath: String? = systemTimezonePath,
        tz: String? = processTZ()
    ) -> TimeZone {
        resolveZone(
            tz: tz, localtimeLinkTarget: try? FileManager.default.destinationOfSymbolicLink(atPath: localtimePath),
            timezoneFileContents: timezonePath.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) },
            fallback: TimeZone.current)
    }

    /// Resolves the system zone from its sources, first match wins. Pure: the caller reads the sources.
    ///
    /// 1. `tz`, the `TZ` variable, when it names a zone: `Europe/Paris`, glibc's `:Europe/Paris`, or a path into
    ///    zoneinfo (`:/usr/share/zoneinfo/Europe/Paris`). Empty means unset (as for Foundation); a POSIX rule
    ///    such as `CET-1CEST,M3.5.0,M10.5.0/3` or an unknown name is skipped.
    /// 2. `localtimeLinkTarget`, the target of `/etc/localtime`, when it points into a zoneinfo folder: the name
    ///    after the last `zoneinfo/` (`/usr/share/zoneinfo/Europe/Paris` and `../usr/share/zoneinfo/Europe/Paris`
    ///    give `Europe/Paris`; the `posix/` and `right/` variants give the plain name).
    /// 3. `timezoneFileContents`, the text of `/etc/timezone`, when its first line names a zone. Foundation does
    ///    not read that file; it matters when `/etc/localtime` is a copied file rather than a link, where
    ///    Foundation would name the zone by its abbreviation (`JST`).
    /// 4. `fallback`: `TimeZone.current` in practice.
    ///
    /// ```swift
    /// TimeZoneMonitor.resolveZone(
    ///     tz: nil, localtimeLinkTarget: "/usr/share/zoneinfo/Europe/Paris", fallback: .gmt
    /// ).identifier  // "Europe/Paris"
    /// ```
    public static func resolveZone(
        tz: String?, localtimeLinkTarget: String?, timezoneFileContents: String? = nil, fallback: TimeZone
    ) -> TimeZone {
        if let tz, let zone = zone(fromTZ: tz) { return zone }
        if let target = localtimeLinkTarget, let name = zoneName(fromZoneinfoPath: target),
            let zone = TimeZone(identifier: name)
        {
            return zone
        }
        if let contents = timezoneFileContents,
            let line = contents.split(whereSeparator: \.isNewline).first?.trimmingCharacters(in: .whitespaces),
            !line.isEmpty, let zone = TimeZone(identifier: line)
        {
            return zone
        }
        return fallback
    }

    /// The zone a `TZ` value names, or `nil` for an empty value, a POSIX rule or an unknown name.
    static func zone(fromTZ value: String) -> TimeZone? {
        var name = Substring(value.trimmingCharacters(in: .whitespaces))
        if name.hasPrefix(":") { name = name.dropFirst() }
        guard !name.isEmpty else { return nil }
        if name.hasPrefix("/") {
            return zoneName(fromZoneinfoPath: String(name)).flatMap { TimeZone(identifier: $0) }
        }
        return TimeZone(identifier: String(name))
    }

    /// The zone name in a path into a zoneinfo folder: what follows the last `zoneinfo` component, without a
    /// leading `posix` or `right`; `nil` when the path has no such component or nothing after it.
    ///
    /// ```swift
    /// TimeZoneMonitor.zoneName(fromZoneinfoPath: "/usr/share/zoneinfo/America/New_York")  // "America/New_York"
    /// ```
    public static func zoneName(fromZoneinfoPath path: String) -> String? {
        let components = path.split(separator: "/")
        guard let index = components.lastIndex(of: "zoneinfo") else { return nil }
        var name = components[(index + 1)...]
        if let first = name.first, first == "posix" || first == "right" { name = name.dropFirst() }
        return name.isEmpty ? nil : name.joined(separator: "/")
    }

    #if os(Linux)
    /// Whether the inotify events in `events` concern one of the watched names, or may have (queue overflow,
    /// watch removed with its folder).
    private static func mentions(_ namesByWatch: [Int32: Set<String>], in events: ArraySlice<UInt8>) -> Bool {
        let header = MemoryLayout<inotify_event>.size
        return events.withUnsafeBytes { bytes in
            var offset = 0
            while offset + header <= bytes.count {
                let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                if mask & UInt32(IN_Q_OVERFLOW | IN_IGNORED) != 0 { return true }
                let nameBytes = bytes[(offset + header)..<min(bytes.count, offset + header + length)]
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                if namesByWatch[watch]?.contains(name) == true { return true }
                offset += header + length
            }
            return false
        }
    }
    #endif
}
