import Foundation
import NIOCore
import NotificationEngine
import Synchronization

/// Watches every connection of an endpoint for idleness on the endpoint's clock, with one task for all of them (a
/// task per connection cost about 3 KB of each idle connection's 31).
///
/// NIO's `IdleStateHandler` measures real time on the event loop; the watch sleeps on the injected
/// `NotificationClock` instead, so a test that moves a manual clock past the timeout ends the connection at once,
/// however loaded the machine is. A connection's deadline is always its last read plus the timeout, never "when
/// the watch last woke". The task sleeps until the earliest deadline; a connection added later has a later one
/// (now plus the timeout), and a read only moves a deadline later, so nothing ever needs to wake it early. It ends
/// when no connection is left, and the next connection starts another.
final class IdleWatch: Sendable {
    /// The instant of a connection's last read, written on its event loop and read by the watch.
    final class LastRead: Sendable {
        private let instant: Mutex<Date>
        init(_ instant: Date) { self.instant = Mutex(instant) }
        var value: Date {
            get { instant.withLock { $0 } }
            set { instant.withLock { $0 = newValue } }
        }
    }

    private struct Watched {
        var channel: any Channel
        var lastRead: LastRead
    }

    private struct State {
        var connections: [ObjectIdentifier: Watched] = [:]
        var watching = false
    }

    /// How long a connection may read nothing.
    let timeout: TimeInterval
    /// The endpoint's clock.
    let clock: any NotificationClock
    private let state = Mutex(State())

    init(timeout: TimeInterval, clock: any NotificationClock) {
        self.timeout = timeout
        self.clock = clock
    }

    /// Watches a connection from now on.
    func add(_ channel: any Channel, lastRead: LastRead) {
        let start = state.withLock { state in
            state.connections[ObjectIdentifier(channel)] = Watched(channel: channel, lastRead: lastRead)
            defer { state.watching = true }
            return !state.watching
        }
        if start { Task { await watch() } }
    }

    /// Stops watching a connection (it closed).
    func remove(_ channel: any Channel) {
        _ = state.withLock { $0.connections.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Sleeps until the earliest deadline, ends the connections idle by then, and again, while any is left.
    private func watch() async {
        while true {
            let now = clock.now
            let (idle, earliest) = state.withLock { state -> ([any Channel], Date?) in
                var idle: [any Channel] = []
                var earliest: Date?
                for (id, watched) in state.connections {
                    let deadline = watched.lastRead.value.addingTimeInterval(timeout)
                    if now >= deadline {
                        idle.append(watched.channel)
                        state.connections[id] = nil
                    } else if earliest.map({ deadline < $0 }) ?? true {
                        earliest = deadline
                    }
                }
                if earliest == nil { state.watching = false }
                return (idle, earliest)
            }
            for channel in idle { channel.pipeline.fireUserInboundEventTriggered(ConnectionIdleEvent()) }
            guard let earliest else { return }
            do {
                try await clock.sleep(until: earliest)
            } catch {
                state.withLock { $0.watching = false }  // cancelled: the next connection starts another
                return
            }
        }
    }
}
