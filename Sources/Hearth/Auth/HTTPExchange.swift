import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP answer: status, headers (names lower-cased) and the whole body.
struct HTTPExchange: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data

    func header(_ name: String) -> String? { headers[name.lowercased()] }

    var isSuccess: Bool { (200..<300).contains(status) }
}

extension URLSession {
    /// Sends `request` and collects the answer. Throws what URLSession throws (`URLError`,
    /// `CancellationError`); an HTTP error status is an answer, not a throw.
    func exchange(_ request: URLRequest) async throws -> HTTPExchange {
        let (data, response) = try await data(for: request)
        return try HTTPExchange(data, response)
    }

    /// Sends `request` with `body`, calling `sent` with the body's bytes sent so far as they go.
    func exchange(_ request: URLRequest, uploading body: Data, sent: @escaping @Sendable (Int64) -> Void) async throws -> HTTPExchange {
        var request = request
        request.httpBody = nil
        let (data, response) = try await upload(for: request, from: body, delegate: BodySentDelegate(sent: sent))
        return try HTTPExchange(data, response)
    }
}

/// Passes a task's sent-bytes reports on.
private final class BodySentDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    let sent: @Sendable (Int64) -> Void

    init(sent: @escaping @Sendable (Int64) -> Void) {
        self.sent = sent
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        sent(totalBytesSent)
    }
}

extension HTTPExchange {
    init(_ data: Data, _ response: URLResponse) throws {
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            guard let name = key as? String, let text = value as? String else { continue }
            headers[name.lowercased()] = text
        }
        self.init(status: http.statusCode, headers: headers, body: data)
    }
}

extension URLRequest {
    /// A request with a method, headers and an optional body.
    init(url: URL, method: String, headers: [String: String] = [:], body: Data? = nil) {
        self.init(url: url)
        httpMethod = method
        for (name, value) in headers { setValue(value, forHTTPHeaderField: name) }
        httpBody = body
    }
}

/// Percent-encoding for URL parts built by hand.
enum URLEncoding {
    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    /// Everything but RFC 3986's unreserved characters encoded: safe as one path segment
    /// (`/` → `%2F`) and as a query value (`&`, `=`, `+`, `#`, `?`, `%` encoded).
    static func component(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for byte in s.utf8 {
            if unreserved.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                out += hex.count == 1 ? "%0" + hex : "%" + hex
            }
        }
        return out
    }

    /// `url` without a trailing `/`, as text to append paths to.
    static func base(_ url: URL) -> String {
        var text = url.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
