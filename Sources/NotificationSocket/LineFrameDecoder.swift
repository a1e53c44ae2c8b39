import NIOCore
import NotificationWire

/// Splits a byte stream into lines (without the newline): the framing of the wire protocol. Lines longer than
/// ``NotificationWire/WireProtocol/maximumMessageSize`` fail the channel, which closes that connection only.
public struct LineFrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = ByteBuffer

    /// A line longer than the limit.
    public struct MessageTooLarge: Error {}

    private let maximumLength: Int

    public init(maximumLength: Int = WireProtocol.maximumMessageSize) {
        self.maximumLength = maximumLength
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: 0x0A) else {
            if buffer.readableBytes > maximumLength { throw MessageTooLarge() }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        guard length <= maximumLength else { throw MessageTooLarge() }
        let line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        context.fireChannelRead(Self.wrapInboundOut(line))
        return .continue
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        // A truncated last line (no newline before EOF) is dropped.
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }
}

extension Channel {
    /// Adds line framing and wraps the channel for async use: what both sides of the daemon socket do.
    ///
    /// - Parameters:
    ///   - maximumMessageSize: The longest line accepted: small for what clients send the daemon, large for the
    ///     daemon's replies (a listing of many requests).
    ///   - lineHandler: A handler that sees each line on the event loop before the async side does, and passes on
    ///     what it does not handle itself (the client's reply router).
    public func wrappedForWireProtocol(
        maximumMessageSize: Int = WireProtocol.maximumMessageSize, lineHandler: (any ChannelHandler)? = nil
    ) throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        try pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFrameDecoder(maximumLength: maximumMessageSize)))
        if let lineHandler { try pipeline.syncOperations.addHandler(lineHandler) }
        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
            wrappingChannelSynchronously: self,
            configuration: .init(
                backPressureStrategy: .init(lowWatermark: 2, highWatermark: 16), isOutboundHalfClosureEnabled: false))
    }
}
