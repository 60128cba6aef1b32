/// The realtime protocol's framing: a message longer than 16,384 characters travels as a frame
/// holding only the decimal count of chunks, followed by the chunks.
public enum RealtimeFraming {
    /// The longest frame either side sends.
    public static let maxFrameCharacters = 16384

    /// The frames that carry `message`. Short messages travel as themselves; longer ones are split
    /// on Unicode scalar boundaries (every frame stays valid UTF-8) behind a count frame.
    public static func frames(for message: String, maxFrameCharacters: Int = maxFrameCharacters) -> [String] {
        let scalars = message.unicodeScalars
        guard scalars.count > maxFrameCharacters else { return [message] }
        var chunks: [String] = []
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let end = scalars.index(index, offsetBy: maxFrameCharacters, limitedBy: scalars.endIndex) ?? scalars.endIndex
            chunks.append(String(scalars[index..<end]))
            index = end
        }
        return [String(chunks.count)] + chunks
    }
}

/// A framing error: the peer broke the protocol and the connection should close.
public struct RealtimeFramingError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}

/// Puts split messages back together.
///
/// ```swift
/// var assembler = RealtimeFrameAssembler()
/// for frame in frames { if let message = try assembler.receive(frame) { handle(message) } }
/// ```
public struct RealtimeFrameAssembler: Sendable {
    /// The longest message accepted after reassembly, in UTF-8 bytes.
    public let maxMessageBytes: Int
    private var remaining = 0
    private var buffer = ""

    public init(maxMessageBytes: Int = 16 << 20) {
        self.maxMessageBytes = maxMessageBytes
    }

    /// Feeds one frame; returns a complete message, or nil when the frame was a count, a chunk
    /// of an unfinished message, or the keep-alive `0`.
    public mutating func receive(_ frame: String) throws(RealtimeFramingError) -> String? {
        if remaining > 0 {
            buffer += frame
            guard buffer.utf8.count <= maxMessageBytes else {
                throw RealtimeFramingError("message over \(maxMessageBytes) bytes")
            }
            remaining -= 1
            if remaining > 0 { return nil }
            defer { buffer = "" }
            return buffer
        }
        // A frame of at most 6 characters that is a number is always a chunk count.
        if frame.utf8.count <= 6, let count = Int(frame) {
            guard count >= 0 else { throw RealtimeFramingError("negative frame count") }
            guard count <= maxMessageBytes / 1024 + 1 else { throw RealtimeFramingError("too many frames: \(count)") }
            remaining = count
            return nil
        }
        guard frame.utf8.count <= maxMessageBytes else { throw RealtimeFramingError("message over \(maxMessageBytes) bytes") }
        return frame
    }

    /// True between a count frame and the last chunk.
    public var isAssembling: Bool { remaining > 0 }
}
