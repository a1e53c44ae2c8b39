import Foundation
import NIOCore
import NotificationEngine
import Synchronization

/// Sent down a connection's pipeline when it has read nothing for the endpoint's idle timeout.
struct ConnectionIdleEvent: Sendable {}

/// Watches a connection's reads on the endpoint's clock: when nothing arrived for `timeout`, it sends a
/// ``ConnectionIdleEvent`` down the pipeline, and ``ConnectionGuard`` says GOAWAY `{"reason":"IdleTimeout"}` and
/// closes.
///
/// NIO's `IdleStateHandler` measures real time on the event loop; this handler sleeps on the injected
/// `NotificationClock` instead, so a test that moves a manual clock past the timeout ends the connection at once,
/// however loaded the machine is. The deadline is always the last read plus `timeout`, never "when the watcher
/// last woke", so it does not matter when the watching task gets to run.
final class IdleTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The instant of the connection's last read, written on the event loop and read by the watcher.
    private final class LastRead: Sendable {
        private let instant: Mutex<Date>
        init(_ instant: Date) { self.instant = Mutex(instant) }
        var value: Date {
            get { instant.withLock { $0 } }
            set { instant.withLock { $0 = newValue } }
        }
    }

    private let timeout: TimeInterval
    private let clock: any NotificationClock
    private let lastRead: LastRead
    private var watcher: Task<Void, Never>?

    /// - Parameters:
    ///   - timeout: How long the connection may read nothing.
    ///   - clock: The endpoint's clock.
    init(timeout: TimeInterval, clock: any NotificationClock) {
        self.timeout = timeout
        self.clock = clock
        self.lastRead = LastRead(clock.now)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        let timeout = timeout, clock = clock, lastRead = lastRead
        watcher = Task {
            while true {
                do {
                    try await clock.sleep(until: lastRead.value.addingTimeInterval(timeout))
                } catch {
                    return  // cancelled: the connection closed
                }
                if clock.now >= lastRead.value.addingTimeInterval(timeout) {
                    channel.pipeline.fireUserInboundEventTriggered(ConnectionIdleEvent())
                    return
                }
            }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        watcher?.cancel()
        watcher = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastRead.value = clock.now
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        watcher?.cancel()
        watcher = nil
        context.fireChannelInactive()
    }
}
