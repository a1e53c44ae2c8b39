import NIOCore
import NIOEmbedded
import Testing

@testable import NotificationDaemon

/// The daemon's queue of a connection's lines, from the event loop to the connection's reader: order, back-pressure
/// on the channel's reads, and the end of input.
@Suite("Daemon inbound lines", .timeLimit(.minutes(1)))
struct InboundLinesTests {
    /// Counts the reads that reach the channel's head: those the queue let through.
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = ByteBuffer
        var reads = 0

        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }
    }

    static func line(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    @Test("lines come out in order; past the high watermark reads are held until the reader takes the queue down")
    func orderAndBackPressure() async throws {
        let lines = InboundLines()
        let counter = ReadCounter()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(counter)
        try channel.pipeline.syncOperations.addHandler(lines)
        channel.read()
        #expect(counter.reads == 1)
        let count = InboundLines.highWatermark + 4
        for index in 0..<count { try channel.writeInbound(Self.line("line \(index)")) }
        // A client sending without pause: the queue is over its high watermark, the next read is held.
        channel.read()
        #expect(counter.reads == 1)
        var taken: [String] = []
        while taken.count < count - InboundLines.lowWatermark - 1 {
            taken.append(String(buffer: try #require(try await lines.next())))
        }
        #expect(counter.reads == 1, "still above the low watermark")
        taken.append(String(buffer: try #require(try await lines.next())))
        #expect(counter.reads == 2, "the held read went on at the low watermark")
        while taken.count < count { taken.append(String(buffer: try #require(try await lines.next()))) }
        #expect(taken == (0..<count).map { "line \($0)" })
        // Below the watermark reads pass at once.
        channel.read()
        #expect(counter.reads == 3)
        _ = try channel.finish()
    }

    @Test("a reader waiting for a line is resumed by it; the end of input comes after the lines before it")
    func waitingAndEnd() async throws {
        let lines = InboundLines()
        let channel = EmbeddedChannel(handler: lines)
        try await channel.connect(to: SocketAddress(unixDomainSocketPath: "/unused")).get()
        async let first = lines.next()
        // Whether the reader is already waiting or not (mostly it is, after these), it gets the line.
        for _ in 0..<10 { await Task.yield() }
        try channel.writeInbound(Self.line("first"))
        #expect(try await first.map { String(buffer: $0) } == "first")
        try channel.writeInbound(Self.line("last"))
        _ = try channel.finish()  // the channel goes inactive
        #expect(try await lines.next().map { String(buffer: $0) } == "last")
        #expect(try await lines.next() == nil)
        #expect(try await lines.next() == nil)
    }

    @Test("an error in the pipeline ends the queue after the lines before it: the reader gets those, then the error")
    func error() async throws {
        struct Broken: Error {}
        let lines = InboundLines()
        let channel = EmbeddedChannel(handler: lines)
        try channel.writeInbound(Self.line("before"))
        channel.pipeline.fireErrorCaught(Broken())
        #expect(try await lines.next().map { String(buffer: $0) } == "before")
        await #expect(throws: Broken.self) { try await lines.next() }
        #expect(throws: Broken.self) { try channel.throwIfErrorCaught() }
    }
}
