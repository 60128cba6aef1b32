#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The reverse proxies whose `X-Forwarded-For` the server believes (`--trusted-proxies`): addresses and CIDR ranges,
/// IPv4 or IPv6.
///
/// Behind a proxy every request comes from the proxy's address, so per-address limits (password sign-ins) would put
/// every user in one bucket. A request from a listed peer is taken to come from the right-most `X-Forwarded-For`
/// hop that is not itself listed: each proxy appends the address it received the request from, so entries left of
/// the first untrusted one are whatever the client chose to send. A request from any other peer is its peer; its
/// `X-Forwarded-For` is ignored.
///
/// ```swift
/// let proxies = try TrustedProxies(["10.0.0.0/8", "::1"])
/// proxies.clientAddress(peer: "10.0.0.7", forwardedFor: ["6.6.6.6, 203.0.113.9"])  // "203.0.113.9"
/// proxies.clientAddress(peer: "198.51.100.1", forwardedFor: ["203.0.113.9"])        // "198.51.100.1"
/// ```
public struct TrustedProxies: Sendable, Hashable {
    /// An address range: the first `prefix` bits of `bytes` (4 bytes for IPv4, 16 for IPv6).
    struct Range: Sendable, Hashable {
        var bytes: [UInt8]
        var prefix: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var bits = prefix
            for i in 0..<bytes.count where bits > 0 {
                let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
                if address[i] & mask != bytes[i] & mask { return false }
                bits -= 8
            }
            return true
        }
    }

    /// An entry that is neither an address nor a CIDR range.
    public struct InvalidEntry: Error, CustomStringConvertible {
        /// The entry as given.
        public var entry: String
        /// What is wrong with the entry.
        public var description: String { "\"\(entry)\" is not an IP address or a CIDR range such as 10.0.0.0/8 or fd00::/8" }
    }

    let ranges: [Range]

    /// No trusted proxies: every request's client is its peer.
    public init() { ranges = [] }

    /// `entries` such as `127.0.0.1`, `10.0.0.0/8`, `::1`, `fd00::/8`.
    public init(_ entries: [String]) throws {
        ranges = try entries.map { entry in
            let parts = entry.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let bytes = Self.bytes(of: String(parts[0])) else { throw InvalidEntry(entry: entry) }
            var prefix = bytes.count * 8
            if parts.count == 2 {
                guard let n = Int(parts[1]), (0...prefix).contains(n), parts[1].allSatisfy(\.isNumber) else { throw InvalidEntry(entry: entry) }
                prefix = n
            }
            return Range(bytes: bytes, prefix: prefix)
        }
    }

    /// No proxy is trusted: the socket peer is always the client.
    public var isEmpty: Bool { ranges.isEmpty }

    /// Whether `address` (IPv4 or IPv6 text) is in one of the ranges.
    public func contains(_ address: String) -> Bool {
        guard !ranges.isEmpty, let bytes = Self.bytes(of: address) else { return false }
        return ranges.contains { $0.contains(bytes) }
    }

    /// The address a request comes from: `peer` unless it is a trusted proxy; then the right-most hop of
    /// `forwardedFor` (the header's lines, each a comma-separated list) that is not trusted, or the left-most hop
    /// when all are.
    public func clientAddress(peer: String?, forwardedFor: [String]) -> String? {
        guard let peer, contains(peer) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
        guard !hops.isEmpty else { return peer }
        return hops.last { !contains($0) } ?? hops.first
    }

    /// The 4 or 16 bytes of an address; an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, how a dual-stack socket
    /// reports IPv4 peers) gives its IPv4 bytes.
    static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return Array(bytes[12...]) }
        return bytes
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> String {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return String(s)
    }
}
