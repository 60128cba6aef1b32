import Crypto

extension Node {
    /// Firebase's node hash: base64 SHA-1 over the canonical hash text, `""` for an empty node.
    ///
    /// Used for ETags and WebSocket transactions; children contribute in priority order.
    public var hash: String {
        guard !isEmpty else { return "" }
        var text = ""
        if let p = priority { text += "priority:" + Node.hashText(of: p) + ":" }
        switch content {
        case .empty: return ""
        case .leaf(let l):
            text += Node.hashText(of: l)
        case .children(let c):
            let ordered = zip(c.keys, c.nodes).sorted { a, b in
                let cmp = Node.comparePriority(a.1.priority, b.1.priority)
                return cmp != 0 ? cmp < 0 : Key.compare(a.0, b.0) < 0
            }
            for (k, n) in ordered {
                let h = n.hash
                if !h.isEmpty { text += ":" + k.string + ":" + h }
            }
        }
        let digest = Insecure.SHA1.hash(data: Array(text.utf8))
        return base64(Array(digest))
    }

    /// Priority order: none < numbers < strings.
    public static func comparePriority(_ a: Leaf?, _ b: Leaf?) -> Int {
        switch (a, b) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case let (x?, y?): return Leaf.compare(x, y)
        }
    }

    static func hashText(of leaf: Leaf) -> String {
        switch leaf {
        case .bool(let b): return "boolean:" + (b ? "true" : "false")
        case .string(let s): return "string:" + s
        case .int, .double:
            let bits = leaf.doubleValue!.bitPattern
            let hex = String(bits, radix: 16)
            return "number:" + String(repeating: "0", count: 16 - hex.count) + hex
        }
    }
}

/// Standard base64 with `=` padding.
public func base64(_ bytes: [UInt8]) -> String {
    let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var out: [UInt8] = []
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var i = 0
    while i + 2 < bytes.count {
        let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
        out += [table[Int(n >> 18)], table[Int(n >> 12 & 63)], table[Int(n >> 6 & 63)], table[Int(n & 63)]]
        i += 3
    }
    let rest = bytes.count - i
    if rest == 1 {
        let n = UInt32(bytes[i]) << 16
        out += [table[Int(n >> 18)], table[Int(n >> 12 & 63)], 61, 61]
    } else if rest == 2 {
        let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
        out += [table[Int(n >> 18)], table[Int(n >> 12 & 63)], table[Int(n >> 6 & 63)], 61]
    }
    return String(decoding: out, as: UTF8.self)
}
