/// Why a blob store operation failed. Messages never contain object names or file contents.
public struct BlobStoreError: Error, Sendable, CustomStringConvertible {
    /// A stable category to branch on; new codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String {
            case notFound, invalidRange, offsetGap, uploadBusy, writerClosed, io
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The blob or upload session does not exist.
        public static let notFound = Code(.notFound)
        /// The requested byte range is not inside the blob.
        public static let invalidRange = Code(.invalidRange)
        /// An append would start past the bytes received so far, leaving a gap.
        public static let offsetGap = Code(.offsetGap)
        /// Another request is appending to or finalizing the same upload session.
        public static let uploadBusy = Code(.uploadBusy)
        /// The writer was already committed or aborted.
        public static let writerClosed = Code(.writerClosed)
        /// The operating system refused a file operation (disk full, permissions...); see `cause`.
        public static let io = Code(.io)

        /// The code's stable name (`notFound`, `io`, …), for logs and tests.
        public var description: String { value.rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// A short, safe explanation.
    public var message: String
    /// The underlying error, if any (for `.io`, the failed system call and errno).
    public var cause: (any Error)?

    /// True when the file system had no room left (or the quota was used up): the bytes were not saved, and the
    /// same request can succeed once space is freed.
    public var isDiskFull: Bool { code == .io && Posix.isDiskFull(self) }

    /// An error of kind `code`; `message` must not contain user data.
    public init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// `code: message`, with the cause in parentheses when there is one; safe to log.
    public var description: String {
        if let cause { return "\(code): \(message) (\(cause))" }
        return "\(code): \(message)"
    }
}
