import NIOCore
import NotificationPush

/// The requests of one HTTP/2 connection's streams that arrived in the same pass of its event loop, answered
/// together: one task per batch hands them to ``RequestAnswerer/answer(batch:connection:then:)`` and writes their
/// answers in one turn of the event loop, where each request would otherwise have a task of its own, a wait of its
/// own for the group commit and a hop of its own back to the loop.
///
/// Lives on the connection's event loop (the streams' handlers run there); not `Sendable`, and reached from elsewhere
/// only through `NIOLoopBound`.
///
/// ```swift
/// batch.add(request) { response in handler.write(response, context: context) }   // answered once the pass ends
/// ```
final class StreamBatch {
    /// A request waiting for the end of the pass, and how its answer is written to its stream.
    private struct Pending {
        var request: APNsRequest
        var write: (APNsResponse) -> EventLoopFuture<Void>
    }

    private let answerer: RequestAnswerer
    private let connection: ConnectionState
    private let eventLoop: any EventLoop
    private var pending: [Pending] = []

    /// - Parameters:
    ///   - answerer: Answers the batches.
    ///   - connection: The connection whose streams the requests arrive on.
    ///   - eventLoop: The connection's event loop.
    init(answerer: RequestAnswerer, connection: ConnectionState, eventLoop: any EventLoop) {
        self.answerer = answerer
        self.connection = connection
        self.eventLoop = eventLoop
    }

    /// Adds a complete request; the first of a pass schedules the batch's hand-over for when the loop has read what
    /// arrived (the loop runs its scheduled work after the reads of its pass).
    /// - Parameters:
    ///   - request: The request.
    ///   - write: Writes the request's answer to its stream, on the event loop; the future completes once flushed.
    func add(_ request: APNsRequest, write: @escaping (APNsResponse) -> EventLoopFuture<Void>) {
        eventLoop.preconditionInEventLoop()
        pending.append(Pending(request: request, write: write))
        guard pending.count == 1 else { return }
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        eventLoop.execute { bound.value.handOver() }
    }

    /// Hands the waiting requests to the answerer, in one task, and writes their answers on the loop as they come.
    private func handOver() {
        let batch = pending
        pending = []
        let requests = batch.map(\.request)
        let writes = NIOLoopBound(batch.map(\.write), eventLoop: eventLoop)
        let answerer = answerer, connection = connection, eventLoop = eventLoop
        Task {
            // The requests stay in flight until their answers are flushed (or the connection is gone), so a stopping
            // endpoint closes the connection only after the answers went out.
            await answerer.answer(batch: requests, connection: connection) { answered in
                try? await eventLoop.flatSubmit {
                    let writes = writes.value
                    let flushed = answered.map { writes[$0.index]($0.response) }
                    return EventLoopFuture.andAllComplete(flushed, on: eventLoop)
                }.get()
            }
        }
    }
}
