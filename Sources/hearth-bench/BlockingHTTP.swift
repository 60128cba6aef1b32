import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct HTTPResult {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }

    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])
    }
}

/// A minimal blocking HTTP/1.1 keep-alive client for 127.0.0.1, used where precise, low-overhead, sequential
/// requests matter (readiness polling, seeding, sequential query latency, the SSE writer).
/// Requests carry the dev admin credential (`Authorization: Bearer owner`) unless told otherwise.
final class HTTPConnection {
    let port: Int
    private var fd: Int32
    private var buffer: [UInt8] = []
    private var closedByPeer = false

    init(port: Int, timeout: Double = 60) throws {
        self.port = port
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket() failed: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var tv = timeval(tv_sec: Int(timeout), tv_usec: .init((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port)).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if rc != 0 {
            let e = errno
            close(fd)
            fd = -1
            throw BenchError("connect to 127.0.0.1:\(port) failed: \(String(cString: strerror(e)))")
        }
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// Sends one request and reads the whole response (no `Authorization` header when `authorization` is nil).
    func request(
        _ method: String, _ target: String, body: [UInt8]? = nil, headers: [(String, String)] = [],
        authorization: String? = "Bearer owner", contentType: String = "application/json"
    ) throws -> HTTPResult {
        guard fd >= 0, !closedByPeer else { throw BenchError("connection closed") }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        if let authorization { head += "Authorization: \(authorization)\r\n" }
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        if let body {
            head += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        var out = Array(head.utf8)
        if let body { out.append(contentsOf: body) }
        try sendAll(out)
        return try readResponse(method: method)
    }

    func get(_ target: String, authorization: String? = "Bearer owner") throws -> HTTPResult {
        try request("GET", target, authorization: authorization)
    }

    /// Sends one request and throws unless it answers `status`; `what` names the step in the error.
    @discardableResult
    func expect(
        _ status: Int, _ method: String, _ target: String, body: String? = nil, authorization: String? = "Bearer owner",
        contentType: String = "application/json", _ what: String
    ) throws -> HTTPResult {
        let r = try request(
            method, target, body: body.map { Array($0.utf8) }, authorization: authorization, contentType: contentType)
        guard r.status == status else {
            throw BenchError("\(what): \(method) \(target) answered HTTP \(r.status) (expected \(status)) \(r.text.prefix(300))")
        }
        return r
    }

    private func sendAll(_ bytes: [UInt8]) throws {
        var sent = 0
        try bytes.withUnsafeBytes { raw in
            while sent < raw.count {
                let n = send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw BenchError("send failed: \(String(cString: strerror(errno)))")
                }
                sent += n
            }
        }
    }

    /// Reads more bytes into the buffer; false at EOF.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                buffer.append(contentsOf: chunk[0..<n])
                return true
            }
            if n == 0 {
                closedByPeer = true
                return false
            }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { throw BenchError("timed out waiting for the server") }
            throw BenchError("recv failed: \(String(cString: strerror(errno)))")
        }
    }

    private func find(_ needle: [UInt8], from start: Int) -> Int? {
        guard buffer.count >= needle.count else { return nil }
        var i = start
        while i <= buffer.count - needle.count {
            if buffer[i] == needle[0] {
                var ok = true
                for j in 1..<needle.count where buffer[i + j] != needle[j] {
                    ok = false
                    break
                }
                if ok { return i }
            }
            i += 1
        }
        return nil
    }

    private static let crlf: [UInt8] = [13, 10]
    private static let crlfcrlf: [UInt8] = [13, 10, 13, 10]

    private func readResponse(method: String) throws -> HTTPResult {
        var headerEnd: Int?
        var searched = 0
        while true {
            if let e = find(Self.crlfcrlf, from: max(0, searched - 3)) {
                headerEnd = e
                break
            }
            searched = buffer.count
            guard try fill() else { throw BenchError("connection closed before a response arrived") }
        }
        let headText = String(decoding: buffer[0..<headerEnd!], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else { throw BenchError("bad status line: \(statusLine)") }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var pos = headerEnd! + 4
        var body: [UInt8] = []
        let noBody = method == "HEAD" || status == 204 || status == 304 || (100..<200).contains(status)
        if noBody {
            // nothing
        } else if let te = headers["transfer-encoding"], te.lowercased().contains("chunked") {
            while true {
                var lineEnd = find(Self.crlf, from: pos)
                while lineEnd == nil {
                    guard try fill() else { throw BenchError("connection closed inside a chunked body") }
                    lineEnd = find(Self.crlf, from: pos)
                }
                let sizeText = String(decoding: buffer[pos..<lineEnd!], as: UTF8.self).split(separator: ";").first ?? ""
                guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                    throw BenchError("bad chunk size \(sizeText)")
                }
                pos = lineEnd! + 2
                if size == 0 {
                    // Trailers (none expected) end with an empty line.
                    var end = find(Self.crlf, from: pos)
                    while end == nil {
                        guard try fill() else { throw BenchError("connection closed inside a chunked body") }
                        end = find(Self.crlf, from: pos)
                    }
                    pos = end! + 2
                    break
                }
                while buffer.count < pos + size + 2 {
                    guard try fill() else { throw BenchError("connection closed inside a chunked body") }
                }
                body.append(contentsOf: buffer[pos..<(pos + size)])
                pos += size + 2
            }
        } else if let cl = headers["content-length"], let length = Int(cl) {
            while buffer.count < pos + length {
                guard try fill() else { throw BenchError("connection closed inside a body") }
            }
            body = Array(buffer[pos..<(pos + length)])
            pos += length
        } else {
            while try fill() {}
            body = Array(buffer[pos...])
            pos = buffer.count
        }
        buffer.removeFirst(pos)
        if headers["connection"]?.lowercased() == "close" { closedByPeer = true }
        return HTTPResult(status: status, headers: headers, body: body)
    }
}
