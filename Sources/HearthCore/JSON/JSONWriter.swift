/// Appends compact (or indented) JSON text to a byte buffer.
public struct JSONWriter {
    /// The bytes written so far.
    public var bytes: [UInt8]
    /// Two-space indentation with `"key" : value` spacing, as Firebase's `print=pretty`.
    public var pretty: Bool
    var depth = 0

    /// An empty writer; `capacity` is the number of bytes reserved up front.
    public init(pretty: Bool = false, reservingCapacity capacity: Int = 64) {
        self.bytes = []
        self.bytes.reserveCapacity(capacity)
        self.pretty = pretty
    }

    /// Writes `null`.
    public mutating func writeNull() { bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C]) }

    /// Writes `true` or `false`.
    public mutating func write(_ b: Bool) {
        if b { bytes.append(contentsOf: [0x74, 0x72, 0x75, 0x65]) } else { bytes.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65]) }
    }

    /// Writes an integer in decimal.
    public mutating func write(_ i: Int64) { bytes.append(contentsOf: String(i).utf8) }

    /// Integral doubles of safe magnitude print without a fraction; others in shortest round-trip form.
    public mutating func write(_ d: Double) {
        if d == d.rounded(), abs(d) < 9.007_199_254_740_992e15 {
            write(Int64(d))
        } else {
            bytes.append(contentsOf: d.description.utf8)
        }
    }

    /// Writes a quoted string, escaping `"`, `\`, control characters and DEL; other UTF-8 is copied as is.
    public mutating func write(_ s: String) {
        bytes.append(0x22)
        var utf8 = s.utf8
        let done: Void? = utf8.withContiguousStorageIfAvailable { buffer in appendEscaped(buffer) }
        if done == nil {
            utf8 = s.utf8
            Array(utf8).withUnsafeBufferPointer { appendEscaped($0) }
        }
        bytes.append(0x22)
    }

    /// Copies runs of bytes that need no escape in one append each: ID tokens and URLs are long and escape-free,
    /// and a per-byte append was most of this writer's time when answering a token refresh.
    private mutating func appendEscaped(_ buffer: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for index in buffer.indices {
            let c = buffer[index]
            guard c < 0x20 || c == 0x22 || c == 0x5C || c == 0x7F else { continue }
            if runStart < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<index])) }
            runStart = index + 1
            switch c {
            case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
            case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: bytes.append(contentsOf: [0x5C, 0x72])
            case 0x09: bytes.append(contentsOf: [0x5C, 0x74])
            case 0x08: bytes.append(contentsOf: [0x5C, 0x62])
            case 0x0C: bytes.append(contentsOf: [0x5C, 0x66])
            default: bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, Self.hexDigit(c >> 4), Self.hexDigit(c & 0xF)])
            }
        }
        if runStart < buffer.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart...])) }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x61 + nibble - 10 }

    /// Writes `{`; members follow as ``separator(first:)``, ``key(_:)``, value, and ``endObject(empty:)`` closes it.
    public mutating func beginObject() { bytes.append(0x7B); depth += 1 }
    /// Writes `[`; elements follow as ``separator(first:)`` and value, and ``endArray(empty:)`` closes it.
    public mutating func beginArray() { bytes.append(0x5B); depth += 1 }

    /// Ends an object; `empty` tells whether any member was written (for pretty layout).
    public mutating func endObject(empty: Bool = false) {
        depth -= 1
        if pretty, !empty { newline() }
        bytes.append(0x7D)
    }

    /// Ends an array; `empty` tells whether any element was written (for pretty layout).
    public mutating func endArray(empty: Bool = false) {
        depth -= 1
        if pretty, !empty { newline() }
        bytes.append(0x5D)
    }

    /// Writes the separator before a member or element (`first` = no comma).
    public mutating func separator(first: Bool) {
        if !first { bytes.append(0x2C) }
        if pretty { newline() }
    }

    /// Writes a member name and its colon (`"k":`, or `"k" : ` when pretty); call ``separator(first:)`` before it.
    public mutating func key(_ k: String) {
        write(k)
        if pretty { bytes.append(contentsOf: [0x20, 0x3A, 0x20]) } else { bytes.append(0x3A) }
    }

    private mutating func newline() {
        bytes.append(0x0A)
        for _ in 0..<depth { bytes.append(contentsOf: [0x20, 0x20]) }
    }

    /// Writes a whole JSON value, members and elements in their stored order.
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: writeNull()
        case .bool(let b): write(b)
        case .int(let i): write(i)
        case .double(let d): write(d)
        case .string(let s): write(s)
        case .array(let elements):
            beginArray()
            for (i, e) in elements.enumerated() {
                separator(first: i == 0)
                write(e)
            }
            endArray(empty: elements.isEmpty)
        case .object(let members):
            beginObject()
            for (i, m) in members.enumerated() {
                separator(first: i == 0)
                key(m.key)
                write(m.value)
            }
            endObject(empty: members.isEmpty)
        }
    }
}

extension JSONValue {
    /// Compact JSON bytes.
    public var jsonBytes: [UInt8] {
        var w = JSONWriter()
        w.write(self)
        return w.bytes
    }

    /// Compact JSON text.
    public var jsonString: String { String(decoding: jsonBytes, as: UTF8.self) }
}
