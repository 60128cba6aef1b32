/// How a node is turned into JSON for a reader.
public enum RenderFormat: Sendable, Hashable {
    /// Plain values; objects with dense integer keys become arrays; priorities omitted.
    case plain
    /// `format=export`: priorities included as `.priority` / `.value`, no arrays.
    case export
}

extension JSONWriter {
    /// Writes a primitive; doubles print as `write(_: Double)` does (integral ones without a fraction).
    public mutating func write(_ leaf: Leaf) {
        switch leaf {
        case .bool(let b): write(b)
        case .int(let i): write(i)
        case .double(let d): write(d)
        case .string(let s): write(s)
        }
    }

    /// Writes a node; an empty node is `null`.
    public mutating func write(_ node: Node, format: RenderFormat) {
        switch node.content {
        case .empty:
            writeNull()
        case .leaf(let l):
            if format == .export, let p = node.priority {
                beginObject()
                separator(first: true); key(".priority"); write(p)
                separator(first: false); key(".value"); write(l)
                endObject()
            } else {
                write(l)
            }
        case .children(let c):
            if format == .plain, let length = c.arrayLength {
                beginArray()
                var next = 0
                for (k, n) in c {
                    let index = Int(k.intValue!)
                    while next < index {
                        separator(first: next == 0); writeNull(); next += 1
                    }
                    separator(first: next == 0)
                    write(n, format: format)
                    next += 1
                }
                precondition(next == length)
                endArray()
                return
            }
            beginObject()
            var first = true
            if format == .export, let p = node.priority {
                separator(first: true); key(".priority"); write(p)
                first = false
            }
            for (k, n) in c {
                separator(first: first)
                first = false
                key(k.string)
                write(n, format: format)
            }
            endObject(empty: first)
        }
    }
}

extension Children {
    /// The array length when every key is a canonical non-negative integer and max < 2·count.
    var arrayLength: Int? {
        guard let lastKey = keys.last, let maxValue = lastKey.intValue, maxValue >= 0 else { return nil }
        for k in keys {
            guard let v = k.intValue, v >= 0, String(v) == k.string else { return nil }
        }
        guard Int(maxValue) < 2 * keys.count else { return nil }
        return Int(maxValue) + 1
    }
}

extension Node {
    /// Compact JSON bytes of this node.
    public func jsonBytes(format: RenderFormat = .plain, pretty: Bool = false) -> [UInt8] {
        var w = JSONWriter(pretty: pretty)
        w.write(self, format: format)
        return w.bytes
    }

    /// Compact JSON text of this node (see ``jsonBytes(format:pretty:)``).
    public func jsonString(format: RenderFormat = .plain) -> String {
        String(decoding: jsonBytes(format: format), as: UTF8.self)
    }

    /// `shallow=true`: a leaf is itself; an object maps every child key to `true`.
    public var shallow: Node {
        guard case .children(let c) = content else { return Node(content) }
        var out = Children()
        for k in c.keys { out.appendSorted(k, .leaf(.bool(true))) }
        return Node(.children(out))
    }
}
