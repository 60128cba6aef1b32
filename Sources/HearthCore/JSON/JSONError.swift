/// Why a byte sequence is not acceptable JSON.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Byte offset where the reader gave up.
    public var offset: Int
    /// A short, safe explanation (never contains the input).
    public var reason: String

    /// An error at byte `offset`; `reason` must not quote the input.
    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// `invalid JSON at byte <offset>: <reason>`, safe to log.
    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}
