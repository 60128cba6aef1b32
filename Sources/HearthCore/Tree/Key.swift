/// One segment of a database path, ordered the way Firebase orders child names.
///
/// Integer-like keys (`^-?0*\d{1,10}$` within Int32) sort first, numerically, shorter string first on
/// ties; all other keys follow in UTF-16 code-unit order.
public struct Key: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The key's text.
    public let string: String
    /// The key's value when it is integer-like.
    public let intValue: Int32?

    /// Wraps a key without validating it (use `Key.validated` for user input).
    public init(_ string: String) {
        self.string = string
        self.intValue = Key.integerValue(of: string)
    }

    /// The key's text.
    public var description: String { string }

    /// Firebase's "integer-like" test.
    static func integerValue(of s: String) -> Int32? {
        var utf8 = s.utf8[...]
        guard !utf8.isEmpty else { return nil }
        var negative = false
        if utf8.first == UInt8(ascii: "-") {
            negative = true
            utf8 = utf8.dropFirst()
        }
        while utf8.count > 1, utf8.first == UInt8(ascii: "0") { utf8 = utf8.dropFirst() }
        guard !utf8.isEmpty, utf8.count <= 10 else { return nil }
        var value: Int64 = 0
        for c in utf8 {
            guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(c - UInt8(ascii: "0"))
        }
        if negative { value = -value }
        guard value >= Int64(Int32.min), value <= Int64(Int32.max) else { return nil }
        return Int32(value)
    }

    /// Firebase key order (see ``compare(_:_:)``).
    public static func < (a: Key, b: Key) -> Bool { compare(a, b) < 0 }

    /// Keys are equal when their code units are (Swift's `String ==` would also equate canonically
    /// equivalent strings such as "é" and "e\u{301}", which Firebase keeps apart).
    public static func == (a: Key, b: Key) -> Bool {
        let (x, y) = (a.string.utf8, b.string.utf8)
        guard x.count == y.count else { return false }
        // Native strings compare their stored bytes; others go code unit by code unit.
        let fast = x.withContiguousStorageIfAvailable { p in y.withContiguousStorageIfAvailable { q in p.elementsEqual(q) } }
        return (fast ?? nil) ?? x.elementsEqual(y)
    }

    /// Hashes the UTF-8 bytes, consistent with `==` (code-unit equality).
    public func hash(into hasher: inout Hasher) {
        var text = string
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Three-way comparison: negative, zero or positive.
    public static func compare(_ a: Key, _ b: Key) -> Int {
        if a == b { return 0 }
        switch (a.intValue, b.intValue) {
        case let (x?, y?):
            if x != y { return x < y ? -1 : 1 }
            let (la, lb) = (a.string.utf8.count, b.string.utf8.count)
            if la != lb { return la < lb ? -1 : 1 }
            // Same value and length ("-0" vs "00"): fall back to the text so the order is total.
            return compareUTF16(a.string, b.string)
        case (.some, nil): return -1
        case (nil, .some): return 1
        case (nil, nil): return compareUTF16(a.string, b.string)
        }
    }

}

/// Compares two strings by UTF-16 code units, as JavaScript and Firebase do.
public func compareUTF16(_ a: String, _ b: String) -> Int {
    var i = a.utf16.makeIterator()
    var j = b.utf16.makeIterator()
    while true {
        switch (i.next(), j.next()) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case let (x?, y?): if x != y { return x < y ? -1 : 1 }
        }
    }
}
