/// The realtime protocol's framing: a message longer than 16,384 characters travels as a frame
/// holding only the decimal count of chunks, followed by the chunks.
///
/// "Characters" are JavaScript's: UTF-16 code units, what the JS SDK's `length` counts. An emoji is
/// two of them (one Unicode scalar, four UTF-8 bytes).
public enum RealtimeFraming {
    /// The longest frame either side sends, in UTF-16 code units.
    public static let maxFrameCharacters = 16384

    /// The frames that carry `message`. Short messages travel as themselves; longer ones are split
    /// on Unicode scalar boundaries (every frame stays valid UTF-8, no surrogate pair is cut) into
    /// chunks of at most `maxFrameCharacters` UTF-16 code units, behind a count frame.
    public static func frames(for message: String, maxFrameCharacters: Int = maxFrameCharacters) -> [String] {
        let units = message.utf16
        guard units.count > maxFrameCharacters else { return [message] }
        let scalars = message.unicodeScalars
        var chunks: [String] = []
        var start = units.startIndex
        while start < units.endIndex {
            var end = units.index(start, offsetBy: maxFrameCharacters, limitedBy: units.endIndex) ?? units.endIndex
            // Inside a surrogate pair: end the chunk before it.
            if end < units.endIndex, end.samePosition(in: scalars) == nil { end = units.index(before: end) }
            // A chunk holds at least one scalar, so a limit of one unit cannot stall on a surrogate pair (found by
            // FuzzTests; the protocol's own limit is 16,384).
            if end == start { end = units.index(start, offsetBy: 2) }
            chunks.append(String(scalars[start..<end]))
            start = end
        }
        return [String(chunks.count)] + chunks
    }
}

/// A framing error: the peer broke the protocol and the connection should close.
public struct RealtimeFramingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong with the frame or message; safe to log (never the message itself).
    public var description: String

    /// An error described by `description`.
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

    /// An assembler that refuses messages over `maxMessageBytes` UTF-8 bytes (16 MiB by default) and count frames of more chunks than that allows.
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

    /// UTF-8 bytes of the unfinished message held so far (0 when none is being assembled).
    public var bufferedBytes: Int { buffer.utf8.count }
}
