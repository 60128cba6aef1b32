public import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An incremental parser for `multipart/related` and `multipart/form-data` bodies (RFC 2046
/// §5.1, RFC 7578): feed bytes as they arrive, pull events out.
///
/// Part bodies are binary-safe and come out as slices of the input (no copy), so a large media
/// part streams through in flat memory; only a possible boundary prefix at the end of a chunk
/// (at most the boundary's length) is held back. Header blocks, the preamble and the number of
/// parts are bounded by ``MultipartLimits``.
///
/// ```swift
/// var parser = try MultipartParser(boundary: MultipartParser.boundary(contentType: header))
/// for try await chunk in body {
///     parser.append(chunk)
///     while let event = try parser.next() {
///         switch event {
///         case .part(let headers): ...    // a part begins
///         case .body(let bytes): ...      // more of the current part
///         case .end: ...                  // the closing boundary
///         }
///     }
/// }
/// try parser.finish()   // throws .truncated if the closing boundary never came
/// ```
///
/// ``MultipartReader`` wraps this around an `AsyncSequence` of buffers.
public struct MultipartParser: Sendable {
    /// What the parser found next.
    public enum Event: Sendable, Hashable {
        /// A part begins with these headers; its body follows as `.body` events.
        case part(MultipartPartHeaders)
        /// The next bytes of the current part's body.
        case body(ByteBuffer)
        /// The closing boundary: there are no more parts (anything after it is ignored).
        case end
    }

    enum State {
        /// Before the first boundary; bytes are ignored.
        case preamble
        /// Just after a boundary: `--` ends the body, else optional padding and CRLF.
        case delimiter
        /// Reading a part's header lines.
        case headers(MultipartPartHeaders)
        case body
        /// After the closing boundary; bytes are ignored.
        case epilogue
    }

    /// CRLF, two hyphens and the boundary: what separates parts.
    let delimiter: [UInt8]
    let limits: MultipartLimits
    /// Input not yet consumed. Starts with a CRLF of our own so a boundary on the very first
    /// line is found like any other.
    var buffer = ByteBuffer(string: "\r\n")
    var state = State.preamble
    /// Bytes consumed so far, for error offsets (the leading CRLF of our own counts as -2).
    var consumed = -2
    /// Bytes of the current header block (or the preamble) so far.
    var runLength = 0
    var partCount = 0

    /// A parser for parts separated by `boundary` (the parameter of the `Content-Type`, already
    /// unquoted; see ``boundary(contentType:)``).
    public init(boundary: String, limits: MultipartLimits = MultipartLimits()) throws(MultipartError) {
        try MultipartParser.validate(boundary: boundary)
        delimiter = Array("\r\n--\(boundary)".utf8)
        self.limits = limits
    }

    /// True once the closing boundary has been seen.
    public var isFinished: Bool {
        if case .epilogue = state { return true }
        return false
    }

    /// Adds the next bytes of the body.
    public mutating func append(_ bytes: ByteBuffer) {
        if case .epilogue = state { return }
        if buffer.readableBytes == 0 {
            buffer = bytes
        } else {
            buffer.writeImmutableBuffer(bytes)
        }
    }

    /// Declares the end of the body; throws ``MultipartError/Code-swift.struct/truncated`` unless
    /// the closing boundary was seen. Call after `next()` has returned nil.
    public func finish() throws(MultipartError) {
        guard isFinished else {
            throw error(.truncated, "the body ended before the closing boundary")
        }
    }

    /// The next event, or nil when more input is needed (or after `.end`).
    public mutating func next() throws(MultipartError) -> Event? {
        while true {
            switch state {
            case .preamble:
                guard try skipPreamble() else { return nil }
            case .delimiter:
                guard let event = try readDelimiterEnd() else {
                    if case .delimiter = state { return nil }
                    continue
                }
                return event
            case .headers(let headers):
                guard let line = try readHeaderLine() else { return nil }
                let updated = line.isEmpty ? headers : try adding(line, to: headers)
                consume(line.count + 2)
                if line.isEmpty {
                    state = .body
                    return .part(headers)
                }
                state = .headers(updated)
            case .body:
                if let event = readBody() { return event }
                guard case .delimiter = state else { return nil }
            case .epilogue:
                consume(buffer.readableBytes)
                return nil
            }
        }
    }

    mutating func consume(_ count: Int) {
        buffer.moveReaderIndex(forwardBy: count)
        consumed += count
    }

    func error(_ code: MultipartError.Code, _ message: String) -> MultipartError {
        MultipartError(code, message, offset: max(consumed, 0))
    }

    /// Discards bytes up to the first boundary; true once it is consumed.
    private mutating func skipPreamble() throws(MultipartError) -> Bool {
        let found = scan()
        let skipped: Int
        switch found {
        case .match(let at): skipped = at
        case .partial(let at): skipped = at
        case .none: skipped = buffer.readableBytes
        }
        consume(skipped)
        runLength += skipped
        guard runLength <= limits.maxPreambleBytes + 2 else {
            throw error(.preambleTooLarge, "no boundary found in the first \(limits.maxPreambleBytes) bytes")
        }
        guard case .match = found else { return false }
        consume(delimiter.count)
        state = .delimiter
        runLength = 0
        return true
    }

    /// After a boundary: `--` (the end), or transport padding then CRLF (a part follows).
    /// Returns `.end`, or nil either to wait for input or after moving on to the headers.
    private mutating func readDelimiterEnd() throws(MultipartError) -> Event? {
        while let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) {
            switch first {
            case .space, .tab:
                consume(1)
                runLength += 1
                guard runLength <= limits.maxHeaderBytes else {
                    throw error(.headerTooLarge, "too much padding after a boundary")
                }
            case .hyphen, .cr:
                guard let second = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt8.self) else { return nil }
                if first == .hyphen && second == .hyphen {
                    consume(2)
                    state = .epilogue
                    return .end
                }
                guard first == .cr && second == .lf else {
                    throw error(.malformedDelimiter, "a boundary must be followed by CRLF or \"--\"")
                }
                consume(2)
                partCount += 1
                guard partCount <= limits.maxParts else {
                    throw error(.tooManyParts, "more than \(limits.maxParts) parts")
                }
                state = .headers(MultipartPartHeaders())
                runLength = 0
                return nil
            default:
                throw error(.malformedDelimiter, "a boundary must be followed by CRLF or \"--\"")
            }
        }
        return nil
    }

    /// The body bytes available before the next (possible) boundary.
    private mutating func readBody() -> Event? {
        switch scan() {
        case .match(0):
            consume(delimiter.count)
            state = .delimiter
            runLength = 0
            return nil
        case .match(let at), .partial(let at):
            guard at > 0 else { return nil }
            consumed += at
            return .body(buffer.readSlice(length: at)!)
        case .none:
            let count = buffer.readableBytes
            guard count > 0 else { return nil }
            consumed += count
            return .body(buffer.readSlice(length: count)!)
        }
    }
}
