import Foundation
import NIOCore
import NIOPosix
import TestPrograms
import Testing

@testable import NotificationClient

/// The client's writer of frames to `unotifyd`: straight to the socket from the caller's thread, through the channel
/// when the socket's buffer is full, never interleaved.
@Suite("Socket writer", .timeLimit(.minutes(5)))
struct SocketWriterTests {
    /// A connected pair of sockets: one end read by a NIO channel whose frames a ``SocketWriter`` writes (the client's
    /// side, with the client's ``ReplyRouter``), the other a plain descriptor (the daemon's side).
    static func pair(sendBuffer: Int32? = nil) async throws -> (
        writer: SocketWriter, channel: any Channel, peer: CInt
    ) {
        var ends: [CInt] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0)
        if var size = sendBuffer {
            setsockopt(ends[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let writer = SocketWriter(descriptor: try UnixSocket.duplicate(ends[0]))
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .withConnectedSocket(ends[0]) { channel in
                channel.eventLoop.makeCompletedFuture {
                    writer.attach(channel)
                    try channel.pipeline.syncOperations.addHandler(ReplyRouter(ReplyTable(), writer: writer))
                    return channel
                }
            }
        return (writer, channel, ends[1])
    }

    /// Reads `descriptor` until `count` bytes came, it closed, or 10 s passed without a byte.
    static func read(_ descriptor: CInt, count: Int) async -> (bytes: [UInt8], closed: Bool) {
        await offPool {
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var data = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while data.count < count {
                let read = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if read == 0 { return (data, true) }
                if read < 0 { return (data, false) }
                data += buffer[0..<read]
            }
            return (data, false)
        }
    }

    @Test("frames from four writers at once arrive whole and in each writer's order while the socket's buffer fills")
    func fullBuffer() async throws {
        let (writer, channel, peer) = try await Self.pair(sendBuffer: 4_096)
        defer { close(peer) }
        let padding = String(repeating: "x", count: 300)
        let writers = 4, frames = 500
        // Nobody reads the daemon's end until every frame is written: most of them find the buffer full.
        await withTaskGroup(of: Void.self) { group in
            for number in 0..<writers {
                group.addTask {
                    for index in 0..<frames { writer.write(Data("w\(number) \(index) \(padding)\n".utf8)) }
                }
            }
        }
        #expect(writer.framesThroughChannel > 0)
        var expected = 0
        for number in 0..<writers {
            for index in 0..<frames { expected += "w\(number) \(index) \(padding)\n".utf8.count }
        }
        let (bytes, _) = await Self.read(peer, count: expected)
        #expect(bytes.count == expected)
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == writers * frames)
        var next = [Int](repeating: 0, count: writers)
        for line in lines {
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[2] == padding, let number = Int(fields[0].dropFirst()),
                let index = Int(fields[1]), next.indices.contains(number)
            else {
                Issue.record("a frame arrived torn: \(line.prefix(40))…")
                return
            }
            #expect(index == next[number], "writer \(number): frame \(index) after \(next[number] - 1)")
            next[number] = index + 1
        }
        #expect(next == [Int](repeating: frames, count: writers))
        try await channel.close()
    }

    @Test("the daemon's side sees the connection end when the channel closes, though the writer had its own descriptor")
    func closesWithTheChannel() async throws {
        let (writer, channel, peer) = try await Self.pair()
        defer { close(peer) }
        writer.write(Data("first\n".utf8))
        let first = await Self.read(peer, count: 6)
        #expect(String(decoding: first.bytes, as: UTF8.self) == "first\n")
        #expect(writer.framesThroughChannel == 0)
        try await channel.close()
        // The router closed the writer's descriptor: the socket is gone, and a later frame is dropped.
        writer.write(Data("late\n".utf8))
        let rest = await Self.read(peer, count: 1)
        #expect(rest.closed)
        #expect(rest.bytes.isEmpty)
    }
}
