public import HTTPTypes
public import HearthCore

/// What a plain HTTP function gets besides the request.
public struct HTTPFunctionContext: Sendable {
    /// The route's `{name}` segments: `["station": "berlin"]` for `/hooks/weather/{station}`.
    public let params: [String: String]
    /// The caller, when the request carries a valid ID token (`Authorization: Bearer …`).
    public let auth: CallableAuth?
    /// Whether the request carries the admin credential.
    public let isAdmin: Bool
    /// The function's context: its logger and admin clients.
    public let function: FunctionContext

    package init(params: [String: String], auth: CallableAuth?, isAdmin: Bool, function: FunctionContext) {
        self.params = params
        self.auth = auth
        self.isAdmin = isAdmin
        self.function = function
    }
}

/// The request a plain HTTP function answers, its body read in full (up to the server's body limit).
public struct HTTPFunctionRequest: Sendable {
    /// The method the route matched.
    public var method: HTTPRequest.Method
    /// The path, without the query.
    public var path: String
    /// The query parameters, decoded (the last one wins when a name repeats).
    public var query: [String: String]
    /// The request's headers.
    public var headers: HTTPFields
    /// The body's bytes (empty when there was none).
    public var body: [UInt8]

    /// A request, as the server builds it (and as tests of a function can).
    public init(method: HTTPRequest.Method, path: String, query: [String: String] = [:], headers: HTTPFields = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// The body parsed as JSON.
    public func json() throws -> JSONValue { try JSONValue.parse(body) }
}

/// What a plain HTTP function answers with.
public struct HTTPFunctionResponse: Sendable {
    /// The status (200 unless said otherwise).
    public var status: HTTPResponse.Status
    /// The headers; set `Content-Type` for a body.
    public var headers: HTTPFields
    /// The body's bytes.
    public var body: [UInt8]

    /// A response with this status, headers and body.
    public init(status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A `text/plain` response.
    public static func text(_ text: String, status: HTTPResponse.Status = .ok) -> HTTPFunctionResponse {
        HTTPFunctionResponse(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// An `application/json` response.
    public static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> HTTPFunctionResponse {
        HTTPFunctionResponse(status: status, headers: [.contentType: "application/json"], body: value.jsonBytes)
    }
}

/// An error an HTTP function throws to answer with a status and a plain-text message (any other
/// error answers 500 without its text, which goes to the log).
public struct HTTPFunctionError: Error, Sendable {
    /// The status to answer with.
    public var status: HTTPResponse.Status
    /// The body (the status's reason phrase when nil).
    public var message: String?

    /// An error answering `status` with `message`.
    public init(_ status: HTTPResponse.Status, message: String? = nil) {
        self.status = status
        self.message = message
    }
}
