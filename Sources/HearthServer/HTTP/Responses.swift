import HTTPTypes
import HearthCore
import HearthWire
import Hummingbird
import NIOCore

extension HTTPField.Name {
    static let eTag = HTTPField.Name("ETag")!
    static let firebaseETag = HTTPField.Name("X-Firebase-ETag")!
    static let methodOverride = HTTPField.Name("X-HTTP-Method-Override")!
    static let ifMatchHeader = HTTPField.Name("if-match")!
    static let ifNoneMatchHeader = HTTPField.Name("if-none-match")!
    static let hearthRule = HTTPField.Name("X-Hearth-Rule")!
}

/// A whole response computed at once: what `InlineResponseHandler` writes on the event loop, and
/// a Hummingbird `Response` (``response``) when the request went the asynchronous way.
struct InlineReply: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: ByteBuffer

    init(status: HTTPResponse.Status, headers: HTTPFields, body: ByteBuffer = ByteBuffer()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    var response: Response { Response(status: status, headers: headers, body: .init(byteBuffer: body)) }
}

enum Responses {
    static let jsonType = "application/json; charset=utf-8"

    static func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        jsonReply(bytes, status: status, headers: headers).response
    }

    static func jsonReply(_ bytes: [UInt8], status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> InlineReply {
        var h = headers
        h[.contentType] = jsonType
        h[.accessControlAllowOrigin] = "*"
        return InlineReply(status: status, headers: h, body: ByteBuffer(bytes: bytes))
    }

    static func errorReply(_ e: RestError, pretty: Bool = false, diagnostics: Bool = false) -> InlineReply {
        var headers = HTTPFields()
        if diagnostics, let reason = e.ruleReason { headers[.hearthRule] = headerSafe(reason) }
        return jsonReply(ErrorBody.bytes(e.message, pretty: pretty), status: e.status, headers: headers)
    }

    /// Printable ASCII only, bounded, so any rule text fits in a header.
    static func headerSafe(_ s: String) -> String {
        var out = String.UnicodeScalarView()
        for c in s.unicodeScalars.prefix(2000) { out.append(c.value >= 0x20 && c.value < 0x7F ? c : "?") }
        return String(out)
    }

    static func noContent(headers: HTTPFields = [:]) -> Response {
        noContentReply(headers: headers).response
    }

    static func noContentReply(headers: HTTPFields = [:]) -> InlineReply {
        var h = headers
        h[.accessControlAllowOrigin] = "*"
        return InlineReply(status: .noContent, headers: h)
    }
}
