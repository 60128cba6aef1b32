import NIOCore

/// Unmasked, final WebSocket text frames (what a server sends, RFC 6455 §5.2), written as plain
/// bytes.
///
/// A realtime connection's outbox frames its messages itself, one after another into a single
/// buffer, so a drain hands the socket one buffer however many messages it holds, and a push that
/// goes to thousands of connections does not pass each copy through NIO's frame encoder.
enum WebSocketTextFrame {
    /// The header length for a payload of `count` bytes: 2, 4 or 10.
    static func headerLength(payload count: Int) -> Int {
        count < 126 ? 2 : count <= 0xFFFF ? 4 : 10
    }

    /// Appends one frame carrying `payload` (the readable bytes) to `buffer`.
    static func append(_ payload: ByteBuffer, to buffer: inout ByteBuffer) {
        let count = payload.readableBytes
        buffer.reserveCapacity(minimumWritableBytes: headerLength(payload: count) + count)
        buffer.writeInteger(UInt8(0x81))  // FIN + text
        if count < 126 {
            buffer.writeInteger(UInt8(count))
        } else if count <= 0xFFFF {
            buffer.writeInteger(UInt8(126))
            buffer.writeInteger(UInt16(count))
        } else {
            buffer.writeInteger(UInt8(127))
            buffer.writeInteger(UInt64(count))
        }
        buffer.writeImmutableBuffer(payload)
    }
}
