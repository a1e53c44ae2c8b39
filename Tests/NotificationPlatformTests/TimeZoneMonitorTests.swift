import Foundation
import NotificationPlatform
import Testing

#if os(Linux)
import Glibc
#elseif os(macOS)
import Darwin
#else
#error("TimeZoneMonitorTests: unsupported operating system")
#endif

/// One row of the resolution table.
struct ZoneCase: Sendable, CustomTestStringConvertible {
    var tz: String?
    var link: String?
    var timezoneFile: String?
    var expected: String

    var testDescription: String {
        let tz = tz.map { String(reflecting: $0) } ?? "unset"
        let file = timezoneFile.map { String(reflecting: $0) } ?? "none"
        return "TZ=\(tz) link=\(link ?? "none") timezone=\(file) → \(expected)"
    }
}

@Suite("Time zone resolution")
struct TimeZoneResolutionTests {
    /// A zone no rule below produces, so a row expecting it proves the fallback was used.
    static let fallback = "Pacific/Chatham"

    @Test(
        "TZ wins, then the localtime link, then /etc/timezone, then TimeZone.current",
        arguments: [
            // TZ set: it wins over the link.
            ZoneCase(tz: "Asia/Tokyo", link: "/usr/share/zoneinfo/Europe/Paris", expected: "Asia/Tokyo"),
            ZoneCase(tz: ":Europe/Paris", link: nil, expected: "Europe/Paris"),
            ZoneCase(tz: ":/usr/share/zoneinfo/America/New_York", link: nil, expected: "America/New_York"),
            ZoneCase(tz: "Etc/UTC", link: "/usr/share/zoneinfo/Asia/Tokyo", expected: "Etc/UTC"),
            // TZ empty, a POSIX rule or unknown: skipped.
            ZoneCase(tz: "", link: "/usr/share/zoneinfo/Europe/Paris", expected: "Europe/Paris"),
            ZoneCase(tz: "CET-1CEST,M3.5.0,M10.5.0/3", link: "/usr/share/zoneinfo/Asia/Tokyo", expected: "Asia/Tokyo"),
            ZoneCase(tz: "Nowhere/Atlantis", link: "/usr/share/zoneinfo/Asia/Tokyo", expected: "Asia/Tokyo"),
            // The link: the name after the last zoneinfo/.
            ZoneCase(tz: nil, link: "/usr/share/zoneinfo/Europe/Paris", expected: "Europe/Paris"),
            ZoneCase(
                tz: nil, link: "../usr/share/zoneinfo/America/Argentina/Buenos_Aires",
                expected: "America/Argentina/Buenos_Aires"),
            ZoneCase(tz: nil, link: "/usr/share/zoneinfo/posix/Asia/Tokyo", expected: "Asia/Tokyo"),
            ZoneCase(tz: nil, link: "/usr/share/zoneinfo/right/Europe/Paris", expected: "Europe/Paris"),
            ZoneCase(tz: nil, link: "/etc/zoneinfo/Etc/UTC", expected: "Etc/UTC"),
            ZoneCase(tz: nil, link: "/tmp/zoneinfo-test/zoneinfo/Asia/Tokyo", expected: "Asia/Tokyo"),
            ZoneCase(
                tz: nil, link: "/usr/share/zoneinfo/Asia/Tokyo", timezoneFile: "Europe/Paris\n",
                expected: "Asia/Tokyo"),
            // A link outside zoneinfo, to zoneinfo itself, or to an unknown name: the next rules.
            ZoneCase(tz: nil, link: "/opt/zones/Europe/Paris", expected: fallback),
            ZoneCase(tz: nil, link: "/usr/share/zoneinfo/", expected: fallback),
            ZoneCase(tz: nil, link: "/usr/share/zoneinfo/Nowhere/Atlantis", expected: fallback),
            ZoneCase(
                tz: nil, link: "/opt/zones/Europe/Paris", timezoneFile: "Europe/Paris\n", expected: "Europe/Paris"),
            // /etc/timezone: its first line.
            ZoneCase(tz: nil, link: nil, timezoneFile: "  America/New_York  \n", expected: "America/New_York"),
            ZoneCase(tz: nil, link: nil, timezoneFile: "  \n", expected: fallback),
            ZoneCase(tz: nil, link: nil, timezoneFile: "Nowhere/Atlantis\n", expected: fallback),
            // Nothing: TimeZone.current in practice.
            ZoneCase(tz: nil, link: nil, timezoneFile: nil, expected: fallback),
        ])
    func resolve(_ row: ZoneCase) throws {
        let zone = TimeZoneMonitor.resolveZone(
            tz: row.tz, localtimeLinkTarget: row.link, timezoneFileContents: row.timezoneFile,
            fallback: try #require(TimeZone(identifier: Self.fallback)))
        #expect(zone.identifier == row.expected)
    }

    @Test(
        "the zone name in a zoneinfo path",
        arguments: [
            ("/usr/share/zoneinfo/Europe/Paris", "Europe/Paris"),
            ("/usr/share/zoneinfo//America/New_York", "America/New_York"),
            ("zoneinfo/UTC", "UTC"),
            ("/usr/share/zoneinfo/posix/Asia/Tokyo", "Asia/Tokyo"),
            ("/usr/share/zoneinfo", nil),
            ("/usr/share/zoneinfo/right", nil),
            ("/etc/localtime", nil),
            ("/usr/share/zoneinfo-leaps/Europe/Paris", nil),
        ] as [(String, String?)])
    func zoneName(path: String, expected: String?) {
        #expect(TimeZoneMonitor.zoneName(fromZoneinfoPath: path) == expected)
    }
}

#if os(Linux)
@Suite("Time zone monitor")
struct TimeZoneMonitorTests {
    /// A temporary stand-in for /etc and /usr/share/zoneinfo.
    struct FakeSystem {
        let folder: URL
        var localtime: String { folder.appendingPathComponent("localtime").path }
        var timezone: String { folder.appendingPathComponent("timezone").path }

        init() throws {
            folder = try makeTemporaryFolder()
            for zone in ["Asia/Tokyo", "America/New_York", "Europe/Paris"] {
                let file = folder.appendingPathComponent("zoneinfo/\(zone)")
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data("TZif".utf8).write(to: file)
            }
        }

        func zoneinfo(_ zone: String) -> String { folder.appendingPathComponent("zoneinfo/\(zone)").path }

        /// Points `localtime` at `zone` as `timedatectl set-timezone` does: a new link under a temporary name,
        /// renamed over the old one.
        func link(to zone: String) throws {
            let temporary = folder.appendingPathComponent(".#localtime\(UUID().uuidString.prefix(8))").path
            #expect(symlink(zoneinfo(zone), temporary) == 0)
            #expect(rename(temporary, localtime) == 0)
        }

        func remove() { try? FileManager.default.removeItem(at: folder) }
    }

    @Test("replacing the localtime link as timedatectl does reports the new zone")
    func linkReplaced() async throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.link(to: "Asia/Tokyo")
        let (zones, continuation) = AsyncStream.makeStream(of: TimeZone.self)

        let monitor = try TimeZoneMonitor(localtimePath: system.localtime, timezonePath: nil, readTZ: { nil }) {
            continuation.yield($0)
        }
        #expect(monitor.zoneAtStart.identifier == "Asia/Tokyo")

        try system.link(to: "America/New_York")
        let zone = try await firstElement(of: zones)
        #expect(zone?.identifier == "America/New_York")
        await monitor.stop()
    }

    @Test("a link replaced by one to the same zone is not reported")
    func sameZoneIgnored() async throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.link(to: "Asia/Tokyo")
        let (zones, continuation) = AsyncStream.makeStream(of: TimeZone.self)

        let monitor = try TimeZoneMonitor(localtimePath: system.localtime, timezonePath: nil, readTZ: { nil }) {
            continuation.yield($0)
        }
        try system.link(to: "Asia/Tokyo")
        try system.link(to: "Europe/Paris")
        // Events are handled in order on one queue: had the first replacement been reported, Tokyo would come first.
        let zone = try await firstElement(of: zones)
        #expect(zone?.identifier == "Europe/Paris")
        await monitor.stop()
    }

    @Test("rewriting /etc/timezone reports the zone it names when localtime is not a link")
    func timezoneFileRewritten() async throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try Data("TZif".utf8).write(to: URL(fileURLWithPath: system.localtime))  // a copy, not a link
        try "Asia/Tokyo\n".write(toFile: system.timezone, atomically: false, encoding: .utf8)
        let (zones, continuation) = AsyncStream.makeStream(of: TimeZone.self)

        let monitor = try TimeZoneMonitor(
            localtimePath: system.localtime, timezonePath: system.timezone, readTZ: { nil }
        ) { continuation.yield($0) }
        #expect(monitor.zoneAtStart.identifier == "Asia/Tokyo")

        try "Europe/Paris\n".write(toFile: system.timezone, atomically: false, encoding: .utf8)
        let zone = try await firstElement(of: zones)
        #expect(zone?.identifier == "Europe/Paris")
        await monitor.stop()
    }

    @Test("TZ wins over the files")
    func tzWins() async throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.link(to: "Asia/Tokyo")

        let monitor = try TimeZoneMonitor(
            localtimePath: system.localtime, timezonePath: nil, readTZ: { "America/New_York" }, onChange: { _ in })
        #expect(monitor.zoneAtStart.identifier == "America/New_York")
        await monitor.stop()
    }

    @Test("a folder that does not exist cannot be watched")
    func missingFolder() throws {
        let system = try FakeSystem()
        system.remove()
        #expect(throws: SystemCallError(call: "inotify_add_watch", code: ENOENT)) {
            try TimeZoneMonitor(
                localtimePath: system.localtime, timezonePath: nil, readTZ: { nil }, onChange: { _ in })
        }
    }

    @Test("the real system zone resolves like Foundation's when /etc/localtime links into zoneinfo and TZ is unset")
    func systemZone() throws {
        let localtime = TimeZoneMonitor.systemLocaltimePath
        guard TimeZoneMonitor.processTZ() == nil,
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: localtime),
            TimeZoneMonitor.zoneName(fromZoneinfoPath: target) != nil
        else { return }  // nothing comparable on this machine
        #expect(TimeZoneMonitor.currentZone().identifier == TimeZone.current.identifier)
    }
}
#endif
