import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension MultipartParser {
    /// Where the next boundary is in the buffered input.
    enum ScanResult: Equatable {
        /// The whole delimiter starts at this offset.
        case match(Int)
        /// The input ends with a prefix of the delimiter starting at this offset.
        case partial(Int)
        /// No delimiter, not even the start of one.
        case none
    }

    /// Finds the delimiter by jumping between CR bytes with `memchr` (the delimiter starts with
    /// CR and contains no other), so body bytes are scanned at memory speed.
    func scan() -> ScanResult {
        buffer.withUnsafeReadableBytes { raw -> ScanResult in
            guard let base = raw.baseAddress else { return .none }
            let count = raw.count
            var from = 0
            while from < count, let hit = memchr(base + from, Int32(UInt8.cr), count - from) {
                let at = base.distance(to: UnsafeRawPointer(hit))
                let available = min(count - at, delimiter.count)
                let same = delimiter.withUnsafeBytes { memcmp(hit, $0.baseAddress!, available) == 0 }
                if same { return available == delimiter.count ? .match(at) : .partial(at) }
                from = at + 1
            }
            return .none
        }
    }

    /// The next header line without its CRLF (not consumed yet, so errors point at its start),
    /// or nil to wait for more input.
    mutating func readHeaderLine() throws(MultipartError) -> [UInt8]? {
        let newline: Int? = buffer.withUnsafeReadableBytes { raw in
            guard let base = raw.baseAddress, let hit = memchr(base, Int32(UInt8.lf), raw.count) else { return nil }
            return base.distance(to: UnsafeRawPointer(hit))
        }
        guard let newline else {
            guard runLength + buffer.readableBytes <= limits.maxHeaderBytes else {
                throw error(.headerTooLarge, "a part's headers exceed \(limits.maxHeaderBytes) bytes")
            }
            return nil
        }
        runLength += newline + 1
        guard runLength <= limits.maxHeaderBytes else {
            throw error(.headerTooLarge, "a part's headers exceed \(limits.maxHeaderBytes) bytes")
        }
        let start = buffer.readerIndex
        guard newline > 0, buffer.getInteger(at: start + newline - 1, as: UInt8.self) == .cr else {
            throw error(.malformedHeader, "header lines must end with CRLF")
        }
        let line = buffer.getBytes(at: start, length: newline - 1)!
        guard !line.contains(.cr) else {
            throw error(.malformedHeader, "a header line contains a bare CR")
        }
        return line
    }

    /// Adds one header line (or a folded continuation of the previous one).
    func adding(_ line: [UInt8], to headers: MultipartPartHeaders) throws(MultipartError) -> MultipartPartHeaders {
        var headers = headers
        if line[0] == .space || line[0] == .tab {
            guard let last = headers.fields.indices.last else {
                throw error(.malformedHeader, "a part's headers cannot start with a continuation line")
            }
            let more = Self.trimmed(line[...])
            if !more.isEmpty { headers.fields[last].value += " " + String(decoding: more, as: UTF8.self) }
            return headers
        }
        guard let colon = line.firstIndex(of: .colon), colon > 0 else {
            throw error(.malformedHeader, "a header line must look like \"name: value\"")
        }
        guard line[..<colon].allSatisfy(Self.isTokenByte) else {
            throw error(.malformedHeader, "a header name contains an invalid character")
        }
        guard headers.fields.count < limits.maxHeaderFields else {
            throw error(.tooManyHeaderFields, "a part has more than \(limits.maxHeaderFields) header fields")
        }
        headers.fields.append(MultipartPartHeaders.Field(
            name: String(decoding: line[..<colon], as: UTF8.self),
            value: String(decoding: Self.trimmed(line[(colon + 1)...]), as: UTF8.self)
        ))
        return headers
    }

    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var bytes = bytes
        while let first = bytes.first, first == .space || first == .tab { bytes.removeFirst() }
        while let last = bytes.last, last == .space || last == .tab { bytes.removeLast() }
        return bytes
    }

    /// RFC 9110 `tchar`: the bytes allowed in a header name.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
