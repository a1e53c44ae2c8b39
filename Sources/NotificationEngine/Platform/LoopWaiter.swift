import Dispatch
import Foundation
import Synchronization

#if os(Linux)
import CNotificationPlatform
import Glibc
#elseif os(macOS)
import Darwin
#else
#error("LoopWaiter: unsupported operating system")
#endif

/// What the delivery loop's thread (`LoopExecutor`) blocks in between jobs: until another thread wakes it, or until a
/// deadline on the wall clock.
///
/// The deadlines are wall-clock instants (`CLOCK_REALTIME`, as `Date` counts), because a notification's fire date is
/// one. On Linux the thread waits in `poll` on an `eventfd` (``wake()``) and a `timerfd` on `CLOCK_REALTIME` armed with
/// `TFD_TIMER_ABSTIME` at the deadline: the kernel expires such a timer when the wall clock reaches the deadline,
/// however it got there, so the wait ends on time after a suspend (the monotonic clock stops while the machine
/// sleeps, the wall clock does not) and after the clock was set (`date -s`, an NTP step), without anyone having to
/// notice either. A wait on a monotonic clock (a semaphore's timeout, `Task.sleep(for:)` on the suspending clock)
/// would end late by the time suspended, or at the wrong wall time after a set. Where the descriptors cannot be
/// created (no descriptor left) and on macOS, it waits on a semaphore, with the deadline turned into a monotonic
/// timeout when the wait starts.
///
/// One thread waits; any thread may wake it. A wake before the wait is not lost: the next wait returns at once.
///
/// ```swift
/// let waiter = LoopWaiter()
/// waiter.wait(until: LoopWaiter.wallNanoseconds(Date().addingTimeInterval(1)))  // about a second
/// ```
final class LoopWaiter: Sendable {
    #if os(Linux)
    /// The `eventfd` that ``wake()`` writes to, and the `timerfd` armed at the deadline; `nil` when either could not
    /// be created (then `semaphore` is used).
    private let descriptors: (event: Int32, timer: Int32)?
    /// The deadline the timer is armed at (wall-clock nanoseconds), `nil` when disarmed or expired. Only the waiting
    /// thread reads and writes it; the lock is never contended.
    private let armed = Mutex<Int64?>(nil)
    #endif
    private let semaphore = DispatchSemaphore(value: 0)

    init() {
        #if os(Linux)
        let event = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        let timer = timerfd_create(CLOCK_REALTIME, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        if event >= 0, timer >= 0 {
            descriptors = (event, timer)
        } else {
            if event >= 0 { close(event) }
            if timer >= 0 { close(timer) }
            descriptors = nil
        }
        #endif
    }

    deinit {
        #if os(Linux)
        if let descriptors {
            close(descriptors.event)
            close(descriptors.timer)
        }
        #endif
    }

    /// The wall-clock timer's descriptor (for tests: its `/proc/self/fdinfo` shows the clock and the armed deadline).
    var timerDescriptor: Int32? {
        #if os(Linux)
        descriptors?.timer
        #else
        nil
        #endif
    }

    /// `date` as nanoseconds since 1970 on the wall clock: what ``wait(until:)`` takes.
    static func wallNanoseconds(_ date: Date) -> Int64 {
        let nanoseconds = (date.timeIntervalSince1970 * 1e9).rounded(.up)
        return nanoseconds >= Double(Int64.max) ? .max : Int64(max(1, nanoseconds))
    }

    /// The wall clock now, as nanoseconds since 1970.
    static func nowWallNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// Ends the current wait of the thread, or the next one if it is not waiting.
    func wake() {
        #if os(Linux)
        if let descriptors {
            var one: UInt64 = 1
            _ = write(descriptors.event, &one, MemoryLayout<UInt64>.size)
            return
        }
        #endif
        semaphore.signal()
    }

    /// Blocks the calling thread until ``wake()`` is called (or was called since the last wait), or until the wall
    /// clock reaches `deadline` (nanoseconds since 1970; `nil` for no deadline). It may also return early, spuriously:
    /// the caller checks what it waits for.
    func wait(until deadline: Int64?) {
        #if os(Linux)
        if let descriptors {
            waitInPoll(descriptors, until: deadline)
            return
        }
        #endif
        guard let deadline else {
            semaphore.wait()
            return
        }
        let remaining = deadline - Self.nowWallNanoseconds()
        guard remaining > 0 else { return }
        _ = semaphore.wait(timeout: .now() + .nanoseconds(Int(clamping: remaining)))
    }

    #if os(Linux)
    private func waitInPoll(_ descriptors: (event: Int32, timer: Int32), until deadline: Int64?) {
        armed.withLock { armed in
            guard armed != deadline else { return }
            // An absolute deadline on the wall clock; all zeros disarms the timer.
            var value = itimerspec()
            if let deadline {
                value.it_value.tv_sec = Int(deadline / 1_000_000_000)
                value.it_value.tv_nsec = Int(deadline % 1_000_000_000)
            }
            if timerfd_settime(descriptors.timer, Int32(TFD_TIMER_ABSTIME), &value, nil) == 0 {
                armed = deadline
            } else {
                armed = nil  // not expected (the values are valid); the wait then ends on a wake alone
            }
        }
        var watched = [
            pollfd(fd: descriptors.event, events: Int16(POLLIN), revents: 0),
            pollfd(fd: descriptors.timer, events: Int16(POLLIN), revents: 0),
        ]
        guard poll(&watched, 2, -1) > 0 else { return }  // EINTR: the caller looks again
        var count: UInt64 = 0
        if watched[0].revents != 0 { _ = read(descriptors.event, &count, MemoryLayout<UInt64>.size) }
        if watched[1].revents != 0 {
            _ = read(descriptors.timer, &count, MemoryLayout<UInt64>.size)
            armed.withLock { $0 = nil }
        }
    }
    #endif
}
