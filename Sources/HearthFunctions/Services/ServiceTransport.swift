import AsyncHTTPClient
import Foundation
import HearthCore
import NIOCore
import NIOHTTP1

/// One outside service's HTTP calls: the shared client, a deadline per call, retries with backoff for
/// connection errors and 5xx/429, a bound on answer size, and secrets kept out of every error.
struct ServiceTransport: Sendable {
    /// The service's name in errors.
    let service: String
    /// The base URL without a trailing slash.
    let baseURL: String
    let httpClient: HTTPClient
    let options: OutsideServiceOptions
    /// Tokens and keys that must never appear in an error.
    let secrets: [String]

    /// An answer read in full.
    struct Answer: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]

        var text: String { String(decoding: body, as: UTF8.self) }
    }

    private struct TimedOut: Error {}

    /// `baseURL` checked (http or https, a host, no query or fragment) and without its trailing slashes.
    static func checkedBaseURL(_ text: String, service: String) throws -> String {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil
        else {
            throw OutsideServiceError(service: service, message: "the base URL must be an http(s) URL without a query, got \"\(text)\"")
        }
        return trimmed
    }

    /// Sends a request to `baseURL + path` (the path starts with `/` and is already percent-encoded, its
    /// query included) and returns the answer that is not a retryable failure. Throws
    /// ``OutsideServiceError`` when the service cannot be reached, keeps failing or takes too long.
    func send(_ method: HTTPMethod, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil) async throws -> Answer {
        let clock = ContinuousClock()
        let deadline = clock.now + options.timeout
        var attempt = 0
        while true {
            var pause = backoff(attempt)
            let failure: OutsideServiceError
            do {
                let answer = try await Self.within(deadline) { try await once(method, path, headers: headers, body: body, deadline: deadline) }
                guard answer.status == 429 || (500...599).contains(answer.status) else { return answer }
                failure = statusError(answer, "answered HTTP \(answer.status)")
                if answer.status == 429, let retryAfter = answer.headers.first(name: "Retry-After").flatMap({ Int($0) }), (0...5).contains(retryAfter) {
                    pause = max(pause, .seconds(retryAfter))
                }
            } catch let error as OutsideServiceError {
                throw error
            } catch is TimedOut {
                throw timeoutError()
            } catch let error as HTTPClientError where error == .deadlineExceeded {
                throw timeoutError()
            } catch {
                if Task.isCancelled { throw CancellationError() }
                failure = OutsideServiceError(service: service, message: "could not reach \(host): \(redacted(String(describing: error)))")
            }
            guard attempt < options.retries else { throw failure }
            // No point pausing for a retry that the deadline would cut off.
            guard clock.now + pause < deadline else { throw failure }
            try await Task.sleep(for: pause)
            attempt += 1
        }
    }

    /// One attempt, its body read up to the size bound.
    private func once(_ method: HTTPMethod, _ path: String, headers: [(String, String)], body: [UInt8]?, deadline: ContinuousClock.Instant)
        async throws -> Answer
    {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        // AsyncHTTPClient's deadline is the call's: until then it keeps trying to connect, and at the deadline it
        // reports the last connection error, if there was one (``within(_:_:)`` is only a backstop).
        let remaining = ContinuousClock().now.duration(to: deadline)
        let nanoseconds = max(0, remaining.components.seconds * 1_000_000_000 + remaining.components.attoseconds / 1_000_000_000)
        let response = try await httpClient.execute(request, deadline: .now() + .nanoseconds(nanoseconds))
        let bytes: ByteBuffer
        do {
            bytes = try await response.body.collect(upTo: options.maxResponseBytes)
        } catch is NIOTooManyBytesError {
            throw OutsideServiceError(
                service: service, message: "answered with more than \(options.maxResponseBytes) bytes", status: Int(response.status.code))
        }
        return Answer(status: Int(response.status.code), headers: response.headers, body: Array(bytes.readableBytesView))
    }

    /// Runs `body`, throwing ``TimedOut`` (and cancelling it) half a second after `deadline`, should the HTTP
    /// client not have given up by then.
    private static func within<T: Sendable>(_ deadline: ContinuousClock.Instant, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(until: deadline + .milliseconds(500), clock: .continuous)
                throw TimedOut()
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw TimedOut() }
            return first
        }
    }

    /// The pause before retry number `attempt + 1`: the backoff doubled per retry, with up to 50 % jitter.
    private func backoff(_ attempt: Int) -> Duration {
        let base = options.backoff * (1 << min(attempt, 10))
        return base * Double.random(in: 0.5...1.0)
    }

    private var host: String { URL(string: baseURL)?.host ?? "the service" }

    func timeoutError() -> OutsideServiceError {
        OutsideServiceError(service: service, message: "did not answer within \(Self.seconds(options.timeout))")
    }

    /// An error for an answer with an unwanted status: `message`, then what the service said (a JSON
    /// `message`/`error` field or a short plain text), secrets removed.
    func statusError(_ answer: Answer, _ message: String) -> OutsideServiceError {
        var text = message
        if let said = Self.serviceMessage(answer.body) { text += ": " + redacted(said) }
        return OutsideServiceError(service: service, message: text, status: answer.status)
    }

    /// An error for an answer that could not be read.
    func unreadable(_ answer: Answer, _ what: String) -> OutsideServiceError {
        OutsideServiceError(service: service, message: "answered something unreadable (\(what))", status: answer.status)
    }

    /// `text` with every secret (and its percent-encoded form) replaced by `<redacted>`.
    func redacted(_ text: String) -> String {
        var result = text
        for secret in secrets where !secret.isEmpty {
            result = result.replacingOccurrences(of: secret, with: "<redacted>")
            if let encoded = secret.addingPercentEncoding(withAllowedCharacters: Self.queryValueAllowed), encoded != secret {
                result = result.replacingOccurrences(of: encoded, with: "<redacted>")
            }
        }
        return result
    }

    /// A JSON answer's `message` (or `error`, or `error.message`) field, else a short plain-text body.
    static func serviceMessage(_ body: [UInt8]) -> String? {
        guard !body.isEmpty else { return nil }
        var said: String?
        if let json = try? JSONValue.parse(body) {
            said = json["message"]?.stringValue ?? json["error"]?.stringValue ?? json["error"]?["message"]?.stringValue
        } else if body.count <= 200 {
            let text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty && !text.contains("<") { said = text }
        }
        guard let said, !said.isEmpty else { return nil }
        return said.count > 200 ? String(said.prefix(200)) + "…" : said
    }

    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) + Double(attoseconds) / 1e18
        return value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// `text` percent-encoded for a query parameter's value.
    static func queryEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: queryValueAllowed) ?? ""
    }

    /// RFC 3986's unreserved characters: everything else in a value is percent-encoded.
    static let queryValueAllowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
