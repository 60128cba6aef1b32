public import AsyncHTTPClient
public import HearthCore
import NIOCore
import NIOHTTP1

/// An outside service's answer, read in full.
public struct FetchedResponse: Sendable {
    /// The status code (200, 404, …).
    public var status: Int
    /// The headers, in the order received.
    public var headers: [(name: String, value: String)]
    /// The body's bytes.
    public var body: [UInt8]

    /// The body parsed as JSON.
    public func json() throws -> JSONValue { try JSONValue.parse(body) }
}

extension FunctionContext {
    /// Sends `request` with the shared ``httpClient`` and reads the whole answer, at most `maxBytes`
    /// of body (a longer one throws), so a function calls an outside service without NIO's types.
    ///
    /// ```swift
    /// let weather = try await context.fetch(HTTPClientRequest(url: "https://api.example.com/now?city=Berlin"))
    /// guard weather.status == 200 else { throw FunctionsError("weather service answered \(weather.status)") }
    /// let temperature = try weather.json()["temperature"]?.doubleValue
    /// ```
    public func fetch(_ request: HTTPClientRequest, timeout: Duration = .seconds(30), maxBytes: Int = 1 << 20) async throws -> FetchedResponse {
        let (seconds, attoseconds) = timeout.components
        let deadline = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        let response = try await httpClient.execute(request, timeout: deadline)
        let body = try await response.body.collect(upTo: maxBytes)
        return FetchedResponse(
            status: Int(response.status.code), headers: response.headers.map { (name: $0.name, value: $0.value) },
            body: Array(body.readableBytesView))
    }
}
