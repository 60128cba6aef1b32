@testable import HearthServer
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@Suite("WebSocket text frames written as bytes")
struct WebSocketTextFrameTests {
    /// Decodes `bytes` with NIO's own frame decoder; fails if bytes are left over.
    func decode(_ bytes: ByteBuffer) throws -> [WebSocketFrame] {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: 1 << 20)))
        try channel.writeInbound(bytes)
        var frames: [WebSocketFrame] = []
        while let frame = try channel.readInbound(as: WebSocketFrame.self) { frames.append(frame) }
        #expect(try channel.finish().isClean)
        return frames
    }

    @Test("every length encoding decodes as one final, unmasked text frame with the payload", arguments: [0, 1, 125, 126, 127, 65_535, 65_536, 70_000])
    func lengths(count: Int) throws {
        let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0 % 94 + 33) }
        var bytes = ByteBuffer()
        WebSocketTextFrame.append(ByteBuffer(bytes: payload), to: &bytes)
        #expect(bytes.readableBytes == count + WebSocketTextFrame.headerLength(payload: count))
        let frames = try decode(bytes)
        #expect(frames.count == 1)
        let frame = try #require(frames.first)
        #expect(frame.fin && frame.opcode == .text && frame.maskKey == nil)
        #expect(Array(frame.data.readableBytesView) == payload)
    }

    @Test("frames appended one after another decode in order, each with only its payload's readable bytes")
    func severalInOneBuffer() throws {
        var source = ByteBuffer(string: "skip{\"b\":2}")
        source.moveReaderIndex(forwardBy: 4)
        var bytes = ByteBuffer()
        WebSocketTextFrame.append(ByteBuffer(string: "{\"a\":1}"), to: &bytes)
        WebSocketTextFrame.append(source, to: &bytes)
        WebSocketTextFrame.append(ByteBuffer(string: String(repeating: "x", count: 300)), to: &bytes)
        let texts = try decode(bytes).map { String(buffer: $0.data) }
        #expect(texts == ["{\"a\":1}", "{\"b\":2}", String(repeating: "x", count: 300)])
    }
}
