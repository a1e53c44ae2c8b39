import Foundation
import NotificationPlatform
import Testing

#if os(Linux)
import Glibc
#elseif os(macOS)
import Darwin
#else
#error("WallClockJumpMonitorTests: unsupported operating system")
#endif

#if os(Linux)
/// Only the set-up and tear-down are tested: a real jump needs setting the system clock, which tests never do
/// (the manual check is in `WallClockJumpMonitor`'s documentation).
///
/// Serialized so that no other timer of this suite can take the descriptor number a stopped monitor released.
@Suite("Wall-clock jump monitor", .serialized)
struct WallClockJumpMonitorTests {
    /// What the kernel reports about `descriptor` (`/proc/self/fdinfo`), or `nil` once it is closed.
    func fdinfo(_ descriptor: Int32) -> [String: String]? {
        guard let text = try? String(contentsOfFile: "/proc/self/fdinfo/\(descriptor)", encoding: .utf8) else {
            return nil
        }
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    /// Whether `fields` describe a timer armed as the monitor arms it: on `CLOCK_REALTIME` (0), with
    /// `TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET` (3), for a deadline decades away.
    func isMonitorTimer(_ fields: [String: String]?) -> Bool {
        guard let fields, fields["clockid"] == "0", let flags = fields["settime flags"], Int(flags, radix: 8) == 3,
            let value = fields["it_value"]
        else { return false }
        // "(3155760000, 123)": seconds and nanoseconds left.
        let seconds = value.drop { !$0.isNumber }.prefix { $0.isNumber }
        return (Int(seconds) ?? 0) > 50 * 365 * 86_400
    }

    @Test("starting creates a realtime timerfd armed with cancel-on-set; stopping closes it")
    func startAndStop() async throws {
        let monitor = try WallClockJumpMonitor(onJump: { Issue.record("no jump expected") })
        let descriptor = monitor.fileDescriptor
        #expect(descriptor >= 0)
        #expect(isMonitorTimer(fdinfo(descriptor)), "\(fdinfo(descriptor) ?? [:])")
        #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(descriptor, F_GETFL) & O_NONBLOCK != 0)

        await monitor.stop()
        // Closed: the number is free, or was reused by something that is not this timer.
        #expect(!isMonitorTimer(fdinfo(descriptor)))
        await monitor.stop()  // again: nothing left to do
    }

    @Test("cancel, then stop: the timer is closed once")
    func cancelThenStop() async throws {
        let monitor = try WallClockJumpMonitor(onJump: {})
        let descriptor = monitor.fileDescriptor
        monitor.cancel()
        monitor.cancel()
        await monitor.stop()
        #expect(!isMonitorTimer(fdinfo(descriptor)))
    }

    @Test(
        "read results: ECANCELED is a jump, EAGAIN the end of the events",
        arguments: [
            (-1, ECANCELED, WallClockJumpMonitor.ReadOutcome.clockWasSet),
            (8, 0, .expired),
            (-1, EAGAIN, .drained),
            (-1, EINTR, .interrupted),
            (-1, EBADF, .failed(EBADF)),
            (4, 0, .failed(EIO)),
        ] as [(Int, Int32, WallClockJumpMonitor.ReadOutcome)])
    func readOutcome(count: Int, code: Int32, expected: WallClockJumpMonitor.ReadOutcome) {
        #expect(WallClockJumpMonitor.outcome(ofReadReturning: count, errorCode: code) == expected)
    }
}
#endif
