import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Testing

@testable import NotificationPushGateway

/// `AuthorityFiller`: a request stream's `:authority` from `host`, which `HTTP2FramePayloadToHTTP1ServerCodec` needs.
@Suite("APNs endpoint: :authority from host")
struct AuthorityFillerTests {
    @Test("a request with host and no :authority gets :authority after the other pseudo-headers")
    func authorityFromHost() throws {
        let channel = EmbeddedChannel(handler: AuthorityFiller())
        let request = HPACKHeaders([
            (":method", "POST"), (":scheme", "http"), (":path", "/3/device/ab"), ("host", "api.example:2197"),
            ("apns-topic", "com.example.app"),
        ])
        let read = try filled(request, by: channel)
        #expect(read.map(\.name) == [":method", ":scheme", ":path", ":authority", "host", "apns-topic"])
        #expect(read.first(name: ":authority") == "api.example:2197")
        #expect(try channel.finish().isClean)
    }

    @Test("a request with neither :authority nor host gets :authority localhost")
    func authorityWithoutHost() throws {
        let channel = EmbeddedChannel(handler: AuthorityFiller())
        let request = HPACKHeaders([(":method", "GET"), (":scheme", "http"), (":path", "/")])
        let read = try filled(request, by: channel)
        #expect(read.map(\.name) == [":method", ":scheme", ":path", ":authority"])
        #expect(read.first(name: ":authority") == "localhost")
        #expect(try channel.finish().isClean)
    }

    @Test("a request that has :authority, and a trailer block, pass through unchanged")
    func otherBlocksUnchanged() throws {
        let channel = EmbeddedChannel(handler: AuthorityFiller())
        let request = HPACKHeaders([
            (":method", "POST"), (":scheme", "http"), (":authority", "localhost"), (":path", "/3/device/ab"),
            ("host", "api.example"),
        ])
        let trailer = HPACKHeaders([("grpc-status", "0")])
        try channel.writeInbound(HTTP2Frame.FramePayload.headers(.init(headers: request)))
        try channel.writeInbound(HTTP2Frame.FramePayload.headers(.init(headers: trailer, endStream: true)))
        for expected in [request, trailer] {
            guard case .headers(let read)? = try channel.readInbound(as: HTTP2Frame.FramePayload.self) else {
                Issue.record("no header block read")
                return
            }
            #expect(read.headers == expected)
        }
        #expect(try channel.finish().isClean)
    }

    /// Writes `request` as a request's header block into `channel` and reads back the header block the filler passed
    /// on; throws when it passed on none.
    private func filled(_ request: HPACKHeaders, by channel: EmbeddedChannel) throws -> HPACKHeaders {
        try channel.writeInbound(HTTP2Frame.FramePayload.headers(.init(headers: request)))
        guard case .headers(let read)? = try channel.readInbound(as: HTTP2Frame.FramePayload.self) else {
            throw NoHeaderBlock()
        }
        return read.headers
    }

    private struct NoHeaderBlock: Error {}
}
