import NIOCore
import Synchronization

/// The endpoint's open connections, to say GOAWAY to and close when it stops.
final class ConnectionRegistry: Sendable {
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])

    /// Keeps a connection until it closes.
    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        channels.withLock { $0[id] = channel }
        channel.closeFuture.whenComplete { [self] _ in _ = channels.withLock { $0.removeValue(forKey: id) } }
    }

    /// The connections open now.
    var all: [any Channel] { channels.withLock { Array($0.values) } }
}
