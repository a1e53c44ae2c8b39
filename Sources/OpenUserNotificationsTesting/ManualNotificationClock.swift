import Foundation
import NotificationEngine
import Synchronization

/// A clock that stands still until a test moves it: sleepers wake exactly when ``advance(by:)`` or ``set(to:)``
/// reaches their deadline, never on their own.
///
/// ```swift
/// let clock = ManualNotificationClock(now: Date(timeIntervalSince1970: 0), timeZone: TimeZone(identifier: "UTC")!)
/// clock.advance(by: 60)
/// ```
public final class ManualNotificationClock: NotificationClock {
    private struct Sleeper {
        var deadline: Date
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var timeZone: TimeZone
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>

    /// Creates a clock at an instant, in a zone.
    public init(now: Date, timeZone: TimeZone = TimeZone(identifier: "UTC")!) {
        state = Mutex(State(now: now, timeZone: timeZone))
    }

    public var now: Date { state.withLock { $0.now } }

    public var timeZone: TimeZone { state.withLock { $0.timeZone } }

    /// How many tasks are sleeping on the clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    public func sleep(until deadline: Date) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: (any Error)?? = state.withLock { state in
                    if Task.isCancelled { return .some(CancellationError()) }
                    if deadline <= state.now { return .some(nil) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return .none
                }
                switch resumeNow {
                case .some(.some(let error)): continuation.resume(throwing: error)
                case .some(.none): continuation.resume()
                case .none: break
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come.
    public func advance(by interval: TimeInterval) {
        set(to: now.addingTimeInterval(interval))
    }

    /// Sets the time (backwards too, as a manual clock change does) and wakes every sleeper whose deadline has come.
    public func set(to date: Date) {
        let woken = state.withLock { state in
            state.now = date
            let due = state.sleepers.filter { $0.value.deadline <= date }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Changes the system zone, as travelling or `timedatectl set-timezone` does.
    public func setTimeZone(_ zone: TimeZone) {
        state.withLock { $0.timeZone = zone }
    }
}
