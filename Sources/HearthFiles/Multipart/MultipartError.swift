/// Why a multipart body (or its `Content-Type`) cannot be parsed. Messages never quote the body.
public struct MultipartError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable category to branch on; new codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String {
            case invalidContentType, malformedDelimiter, malformedHeader, headerTooLarge, tooManyHeaderFields
            case tooManyParts, preambleTooLarge, truncated, partTooLarge
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// Not `multipart/*`, or no usable `boundary` parameter.
        public static let invalidContentType = Code(.invalidContentType)
        /// A boundary line is followed by something other than `--` or a line end.
        public static let malformedDelimiter = Code(.malformedDelimiter)
        /// A part header line is not `name: value` with a CRLF ending.
        public static let malformedHeader = Code(.malformedHeader)
        /// A part's header block is longer than ``MultipartLimits/maxHeaderBytes``.
        public static let headerTooLarge = Code(.headerTooLarge)
        /// A part has more header fields than ``MultipartLimits/maxHeaderFields``.
        public static let tooManyHeaderFields = Code(.tooManyHeaderFields)
        /// The body has more parts than ``MultipartLimits/maxParts``.
        public static let tooManyParts = Code(.tooManyParts)
        /// No boundary within ``MultipartLimits/maxPreambleBytes`` of the start.
        public static let preambleTooLarge = Code(.preambleTooLarge)
        /// The body ended before the closing boundary (`--boundary--`).
        public static let truncated = Code(.truncated)
        /// A part collected into memory is larger than the caller allows.
        public static let partTooLarge = Code(.partTooLarge)

        /// The code's stable name (`truncated`, `partTooLarge`, …), for logs and tests.
        public var description: String { value.rawValue }
    }

    /// What kind of problem this is.
    public var code: Code
    /// A short, safe explanation.
    public var message: String
    /// Byte offset in the body where the problem was found, when known.
    public var offset: Int?

    /// An error of kind `code` found at byte `offset` of the body.
    public init(_ code: Code, _ message: String, offset: Int? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
    }

    /// `code at byte offset: message` (the offset when known); safe to log.
    public var description: String {
        if let offset { return "\(code) at byte \(offset): \(message)" }
        return "\(code): \(message)"
    }
}
