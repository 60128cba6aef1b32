/// Bounds that keep a hostile multipart body from growing memory or time without limit.
///
/// Part bodies are never limited here: they stream through. Cap a part you collect into memory
/// with ``MultipartReader/collectBody(upTo:)``.
public struct MultipartLimits: Sendable, Hashable {
    /// Bytes in one part's header block, line ends included. 16 KiB.
    public var maxHeaderBytes = 16 * 1024
    /// Header fields in one part. 32.
    public var maxHeaderFields = 32
    /// Parts in one body. 64.
    public var maxParts = 64
    /// Bytes ignored before the first boundary. 16 KiB.
    public var maxPreambleBytes = 16 * 1024

    /// The default limits, suited to upload endpoints.
    public init() {}
}
