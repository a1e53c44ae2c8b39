import Dispatch
import Foundation

#if os(Linux)
import CNotificationPlatform
import Glibc
#elseif os(macOS)
import Darwin
#else
#error("WallClockJumpMonitor: unsupported operating system")
#endif

/// Tells when the wall clock was set discontinuously: a manual change (`date -s`, `timedatectl set-time`), an NTP
/// step, or a resume from suspend.
///
/// The engine's delivery loop sleeps on a wall-clock timer of its own (`CLOCK_REALTIME`, absolute), which the kernel
/// expires at the right wall time after a jump anyway; its other sleeps (`Task.sleep`) count on a monotonic clock,
/// and end at the wrong wall time after one. On a jump the daemon calls the scheduler's `storeDidChange()`, which
/// wakes the loop so it reads the store again and recomputes its sleep from the new `now` at once (and delivers what
/// became due).
///
/// Linux only reports the jump to a timer that asks for it: the monitor creates a
/// `timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC)`, arms it with
/// `TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET` for an instant a century away, and reads it through a dispatch
/// source. Idle, it costs no wake-ups. When the clock is set, the kernel cancels the timer: the descriptor becomes
/// readable and `read` fails with `ECANCELED`. The monitor re-arms the timer, then calls `onJump` (in that order, so
/// a second jump during the callback is not lost). Gradual NTP slewing is not a jump and is not reported.
///
/// `onJump` runs on a private serial queue; several jumps seen in one wake-up produce one call.
///
/// On macOS (where the daemon does not run) the monitor is a stub that never calls `onJump`.
///
/// ## Checking the jump path by hand
///
/// Tests only check that the timer is created, armed and closed: triggering it means setting the system clock,
/// which tests must never do, and time namespaces (`unshare --time`) offset only the monotonic and boot-time
/// clocks, not `CLOCK_REALTIME`. On a throwaway Linux machine or VM, from a scratch copy of this package (root is
/// needed to set the clock):
///
/// ```sh
/// mkdir -p Sources/JumpProbe && cat > Sources/JumpProbe/main.swift <<'SWIFT'
/// import Foundation
/// import NotificationPlatform
/// let monitor = try WallClockJumpMonitor(onJump: { print("jump, wall clock now", Date()) })
/// print("armed timerfd", monitor.fileDescriptor)
/// dispatchMain()
/// SWIFT
/// echo 'package.targets.append(.executableTarget(name: "JumpProbe", dependencies: ["NotificationPlatform"]))' \
///     >> Package.swift
/// swift build --product JumpProbe && .build/debug/JumpProbe &
/// sudo timedatectl set-ntp false  # so NTP does not step the clock back in between
/// sudo date -s '+1 hour'          # prints "jump, wall clock now ..." (an hour ahead) at once
/// sudo date -s '-1 hour'          # prints it again: the timer was re-armed
/// sudo timedatectl set-ntp true
/// kill %1
/// ```
///
/// Any `clock_settime(CLOCK_REALTIME, ...)` is reported, even one that keeps the time (`sudo date -s "$(date)"`).
/// Waking from `systemctl suspend` should print a line too (the kernel's `timerfd_resume()` cancels these timers
/// on resume).
///
/// ```swift
/// let jumps = try WallClockJumpMonitor { [scheduler] in
///     scheduler.storeDidChange()  // re-reads the store and recomputes the sleep from the new wall time
/// }
/// // ... keep `jumps` alive as long as the daemon runs; `await jumps.stop()` when shutting down.
/// ```
public final class WallClockJumpMonitor: @unchecked Sendable {
    // Safe to share: every stored property is a `let`; the dispatch source and group are thread-safe, and the
    // descriptor is only read by the source's handlers, which run serially on the source's queue and close it in
    // the cancel handler.

    #if os(Linux)
    private let source: any DispatchSourceRead
    /// The timer descriptor, for diagnostics and tests: closed once ``stop()`` returns.
    package let fileDescriptor: Int32
    #endif
    /// Entered at start, left by the cancel handler once the descriptor is closed.
    private let running = DispatchGroup()

    /// Creates the timer, arms it and starts watching.
    ///
    /// - Parameters:
    ///   - onJump: Called on a private serial queue after each discontinuous change of the wall clock.
    ///   - onFailure: Called if re-arming or reading the timer fails after a jump (the monitor then stops, since
    ///     a cancelled timer that cannot be re-armed would stay readable). Never expected in practice.
    /// - Throws: ``SystemCallError`` when `timerfd_create` or `timerfd_settime` fails (e.g. `EMFILE`).
    public init(
        onJump: @escaping @Sendable () -> Void, onFailure: (@Sendable (SystemCallError) -> Void)? = nil
    ) throws(SystemCallError) {
        #if os(Linux)
        let descriptor = timerfd_create(CLOCK_REALTIME, Self.timerCreateFlags)
        guard descriptor >= 0 else { throw SystemCallError.last("timerfd_create") }
        do {
            try Self.arm(descriptor)
        } catch {
            close(descriptor)
            throw error
        }
        fileDescriptor = descriptor
        let source = DispatchSource.makeReadSource(
            fileDescriptor: descriptor, queue: DispatchQueue(label: "NotificationPlatform.wall-clock"))
        self.source = source
        source.setEventHandler {
            var jumped = false
            var expirations: UInt64 = 0
            reading: while true {
                let count = read(descriptor, &expirations, MemoryLayout<UInt64>.size)
                switch Self.outcome(ofReadReturning: count, errorCode: count < 0 ? errno : 0) {
                case .clockWasSet, .expired:
                    jumped = true  // reported even if re-arming fails
                    do throws(SystemCallError) {
                        try Self.arm(descriptor)
                    } catch {
                        source.cancel()
                        onFailure?(error)
                        break reading
                    }
                case .interrupted:
                    continue
                case .drained:
                    break reading
                case .failed(let code):
                    source.cancel()
                    onFailure?(SystemCallError(call: "read(timerfd)", code: code))
                    break reading
                }
            }
            if jumped { onJump() }
        }
        running.enter()
        source.setCancelHandler { [running] in
            close(descriptor)
            running.leave()
        }
        source.resume()
        #elseif os(macOS)
        // Stub: the daemon is Linux-only; nothing to watch, nothing to close.
        #else
        #error("WallClockJumpMonitor: unsupported operating system")
        #endif
    }

    deinit {
        cancel()
    }

    /// Stops watching; the descriptor is closed shortly after, on the monitor's queue. Calling it again does
    /// nothing.
    public func cancel() {
        #if os(Linux)
        source.cancel()
        #endif
    }

    /// Stops watching and returns once the timer's descriptor is closed.
    public func stop() async {
        cancel()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            running.notify(queue: .global()) { continuation.resume() }
        }
    }

    #if os(Linux)
    /// Flags of `timerfd_create` (`TFD_*` are enumerators of <sys/timerfd.h>, imported as `Int`).
    private static let timerCreateFlags = Int32(TFD_NONBLOCK | TFD_CLOEXEC)
    /// Flags of `timerfd_settime`: an absolute deadline, cancelled when the wall clock is set.
    private static let timerSetFlags = Int32(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET)
    /// How far ahead the timer is armed: a century, so it only ever "fires" through a jump.
    private static let horizon: Int = 100 * 366 * 86_400

    /// Arms `descriptor` (again) for a century from now, with cancel-on-set.
    private static func arm(_ descriptor: Int32) throws(SystemCallError) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var value = itimerspec()
        value.it_value.tv_sec = now.tv_sec + horizon
        guard timerfd_settime(descriptor, timerSetFlags, &value, nil) == 0 else {
            throw SystemCallError.last("timerfd_settime")
        }
    }
    #endif

    /// What one `read` of the timer descriptor means.
    ///
    /// The event handler reads until ``drained``, re-arming the timer after ``clockWasSet`` or ``expired``; the
    /// classification is separate so it can be tested without setting the clock.
    ///
    /// ```swift
    /// let count = read(descriptor, &expirations, 8)
    /// if WallClockJumpMonitor.outcome(ofReadReturning: count, errorCode: errno) == .clockWasSet { ... }
    /// ```
    package enum ReadOutcome: Equatable, Sendable {
        /// `ECANCELED`: the wall clock was set; the timer must be re-armed.
        case clockWasSet
        /// Eight bytes read: the far deadline passed (a clock set past it); re-armed like a jump.
        case expired
        /// `EINTR`: read again.
        case interrupted
        /// `EAGAIN`: nothing more to read until the next jump.
        case drained
        /// Any other error.
        case failed(Int32)
    }

    /// Classifies the result of `read(timerfd, &UInt64, 8)`: its return value and, when negative, `errno`.
    package static func outcome(ofReadReturning count: Int, errorCode: Int32) -> ReadOutcome {
        if count == MemoryLayout<UInt64>.size { return .expired }
        if count >= 0 { return .failed(EIO) }  // a timerfd reads exactly 8 bytes or fails
        switch errorCode {
        case ECANCELED: return .clockWasSet
        case EINTR: return .interrupted
        case EAGAIN: return .drained  // EWOULDBLOCK is the same value on Linux
        default: return .failed(errorCode)
        }
    }
}
