/// A rules document that does not parse or type-check, located in the source text.
public struct RulesError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, worded for the rules' author.
    public var message: String
    /// 1-based line of the offending place.
    public var line: Int
    /// 1-based column of the offending place, counted in Unicode scalars from the start of the line (not bytes, not
    /// grapheme clusters).
    public var column: Int

    /// An error at `line` and `column`, both 1-based.
    public init(_ message: String, line: Int, column: Int) {
        self.message = message
        self.line = line
        self.column = column
    }

    /// `line L, column C: message`.
    public var description: String { "line \(line), column \(column): \(message)" }
}

/// Maps byte offsets of a source text to 1-based lines and columns.
struct SourceLocator {
    private let lineStarts: [Int]
    private let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var starts = [0]
        for (i, b) in bytes.enumerated() where b == 0x0A { starts.append(i + 1) }
        lineStarts = starts
    }

    func error(_ message: String, at offset: Int) -> RulesError {
        let offset = min(max(offset, 0), bytes.count)
        var lo = 0
        var hi = lineStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lineStarts[mid] <= offset { lo = mid } else { hi = mid - 1 }
        }
        let start = lineStarts[lo]
        // Columns count characters, not bytes: skip UTF-8 continuation bytes.
        let column = bytes[start..<offset].reduce(1) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 }
        return RulesError(message, line: lo + 1, column: column)
    }
}
