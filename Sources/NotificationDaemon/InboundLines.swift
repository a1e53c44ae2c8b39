import NIOCore
import Synchronization

/// The lines a client sent on one connection, handed from the channel's event loop to the connection's reader task
/// (`NotificationDaemon.serve`) in the order they arrived, with back-pressure.
///
/// It sits in the pipeline right after the line framing and keeps every line for itself (NIO's async inbound stream
/// behind it sees none). NIO's stream did the same job generically: a state machine over its producer's generic
/// types, whose metadata lookups, element copies and locks cost about 6% of the daemon's CPU per add at 64 clients
/// (`perf`, session 15); this queue holds concrete `ByteBuffer`s under one lock.
///
/// Back-pressure, as NIO's stream applied it: once ``highWatermark`` lines wait unread, the handler holds the channel's
/// next `read`, so the socket is not read further and a client that sends without reading its replies fills its own
/// socket buffer, not the daemon's memory; once the reader has taken the queue down to ``lowWatermark`` lines, the
/// held read goes on.
///
/// The queue ends when the channel goes inactive or its input closes (``next()`` returns `nil` once the lines before
/// that were taken) or when the pipeline reports an error (``next()`` throws it after those lines).
///
/// ```swift
/// let lines = InboundLines()
/// let channel = try channel.wrappedForWireProtocol(lineHandler: lines)
/// while let line = try await lines.next() { … }
/// ```
final class InboundLines: ChannelDuplexHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Lines waiting unread at which the channel stops being read.
    static let highWatermark = 16
    /// Lines waiting unread at which a held read goes on.
    static let lowWatermark = 2

    private struct State {
        var lines = CircularBuffer<ByteBuffer>(initialCapacity: 4)
        /// The reader, suspended in ``next()`` with nothing to take.
        var waiter: UnsafeContinuation<ByteBuffer?, any Error>?
        /// Set once no line follows: `success` at the end of input, `failure` with the pipeline's error.
        var end: Result<Void, any Error>?
        /// Whether a `read` is held back because ``highWatermark`` lines wait.
        var readHeld = false
        /// The channel, for the held read (set when the handler is added; `Channel` may be used from any thread).
        var channel: (any Channel)?
    }

    private let state = Mutex(State())

    init() {}

    /// The next line, in the order the client sent them; `nil` after the last one. Suspends while none is waiting.
    ///
    /// One reader at a time: the connection's reader task.
    /// - Throws: The error that ended the channel's input (a line longer than the limit, a failed read), after the
    ///   lines read before it.
    func next() async throws -> ByteBuffer? {
        switch try take() {
        case .line(let line): return line
        case .end: return nil
        case .waiting: break
        }
        // The reader waits: the continuation is resumed exactly once, here or by the next line or the end.
        return try await withUnsafeThrowingContinuation { continuation in
            do {
                switch try take(orWait: continuation) {
                case .line(let line): continuation.resume(returning: line)
                case .end: continuation.resume(returning: nil)
                case .waiting: break
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// What ``take(orWait:)`` found.
    private enum Taken {
        case line(ByteBuffer)
        case end
        /// Nothing yet: the reader (if one was given) now waits for the next line.
        case waiting
    }

    /// Takes the next line, or (with `waiter`) leaves the reader waiting for it under the same lock.
    private func take(orWait waiter: UnsafeContinuation<ByteBuffer?, any Error>? = nil) throws -> Taken {
        let (taken, resumeReading) = try state.withLock { state throws -> (Taken, (any Channel)?) in
            if !state.lines.isEmpty {
                let line = state.lines.removeFirst()
                guard state.readHeld, state.lines.count <= Self.lowWatermark else { return (.line(line), nil) }
                state.readHeld = false
                return (.line(line), state.channel)
            }
            if let end = state.end {
                try end.get()
                return (.end, nil)
            }
            if let waiter { state.waiter = waiter }
            return (.waiting, nil)
        }
        // The held read, outside the lock (from the loop's thread it runs through the pipeline at once).
        resumeReading?.read()
        return taken
    }

    /// Ends the queue after the lines already in it; the first end counts.
    private func finish(_ end: Result<Void, any Error>) {
        let waiter = state.withLock { state -> UnsafeContinuation<ByteBuffer?, any Error>? in
            guard state.end == nil else { return nil }
            state.end = end
            defer { state.waiter = nil }
            return state.waiter
        }
        guard let waiter else { return }
        switch end {
        case .success: waiter.resume(returning: nil)
        case .failure(let error): waiter.resume(throwing: error)
        }
    }

    // MARK: ChannelHandler

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        state.withLock { $0.channel = channel }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        state.withLock { $0.channel = nil }
        finish(.success(()))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = unwrapInboundIn(data)
        let waiter = state.withLock { state -> UnsafeContinuation<ByteBuffer?, any Error>? in
            guard state.end == nil else { return nil }
            guard let waiter = state.waiter else {
                state.lines.append(line)
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: line)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(.success(()))
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { finish(.success(())) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(.failure(error))
        context.fireErrorCaught(error)
    }

    func read(context: ChannelHandlerContext) {
        let hold = state.withLock { state -> Bool in
            guard state.lines.count >= Self.highWatermark else { return false }
            state.readHeld = true
            return true
        }
        if !hold { context.read() }
    }
}
