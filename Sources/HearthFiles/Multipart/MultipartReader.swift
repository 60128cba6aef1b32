public import NIOCore

/// Reads a multipart body part by part from an `AsyncSequence` of buffers (such as a
/// Hummingbird request body), streaming each part's bytes.
///
/// ```swift
/// // GCS / Firebase multipart upload: JSON metadata, then the media.
/// var reader = try MultipartReader(contentType: contentType, body: request.body)
/// guard try await reader.nextPart() != nil else { throw ... }
/// let metadata = try await reader.collectBody(upTo: 1 << 20)     // small: buffer it
/// guard let media = try await reader.nextPart() else { throw ... }
/// let writer = try await store.makeWriter()
/// while let chunk = try await reader.nextBodyChunk() {            // large: stream it
///     try await writer.write(chunk)
/// }
/// ```
///
/// Errors are ``MultipartError`` for a malformed body, or whatever the base sequence throws.
public struct MultipartReader<Base: AsyncSequence> where Base.Element == ByteBuffer {
    private var parser: MultipartParser
    private var source: Base.AsyncIterator
    /// An event read while looking for the end of a part body, handed out next.
    private var pending: MultipartParser.Event?
    private var inPart = false

    /// A reader for parts separated by `boundary` (already unquoted).
    public init(boundary: String, body: Base, limits: MultipartLimits = MultipartLimits()) throws(MultipartError) {
        parser = try MultipartParser(boundary: boundary, limits: limits)
        source = body.makeAsyncIterator()
    }

    /// A reader for a body with this `Content-Type` header (`multipart/...; boundary=...`).
    public init(contentType: String, body: Base, limits: MultipartLimits = MultipartLimits()) throws(MultipartError) {
        try self.init(boundary: MultipartParser.boundary(contentType: contentType), body: body, limits: limits)
    }

    /// Moves to the next part, skipping what is left of the current one; nil after the last.
    public mutating func nextPart() async throws -> MultipartPartHeaders? {
        while true {
            switch try await nextEvent() {
            case .part(let headers):
                inPart = true
                return headers
            case .body:
                continue
            case .end:
                inPart = false
                return nil
            }
        }
    }

    /// The next bytes of the current part, or nil at its end (or before the first part).
    public mutating func nextBodyChunk() async throws -> ByteBuffer? {
        guard inPart else { return nil }
        let event = try await nextEvent()
        if case .body(let bytes) = event { return bytes }
        pending = event
        inPart = false
        return nil
    }

    /// The rest of the current part in one buffer, for small parts such as JSON metadata.
    /// Throws ``MultipartError/Code-swift.struct/partTooLarge`` past `limit` bytes.
    public mutating func collectBody(upTo limit: Int) async throws -> ByteBuffer {
        var all = ByteBuffer()
        while var chunk = try await nextBodyChunk() {
            guard all.readableBytes + chunk.readableBytes <= limit else {
                throw MultipartError(.partTooLarge, "a part is larger than \(limit) bytes")
            }
            all.writeBuffer(&chunk)
        }
        return all
    }

    private mutating func nextEvent() async throws -> MultipartParser.Event {
        if let event = pending {
            pending = nil
            return event
        }
        while true {
            if let event = try parser.next() { return event }
            if parser.isFinished { return .end }
            guard let chunk = try await source.next() else {
                try parser.finish()
                return .end
            }
            parser.append(chunk)
        }
    }
}
