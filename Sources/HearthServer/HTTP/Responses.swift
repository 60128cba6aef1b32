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

enum Responses {
    static let jsonType = "application/json; charset=utf-8"

    static func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var h = headers
        h[.contentType] = jsonType
        h[.accessControlAllowOrigin] = "*"
        return Response(status: status, headers: h, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func error(_ e: RestError, pretty: Bool = false, diagnostics: Bool = false) -> Response {
        var headers = HTTPFields()
        if diagnostics, let reason = e.ruleReason { headers[.hearthRule] = headerSafe(reason) }
        return json(ErrorBody.bytes(e.message, pretty: pretty), status: e.status, headers: headers)
    }

    /// Printable ASCII only, bounded, so any rule text fits in a header.
    static func headerSafe(_ s: String) -> String {
        var out = String.UnicodeScalarView()
        for c in s.unicodeScalars.prefix(2000) { out.append(c.value >= 0x20 && c.value < 0x7F ? c : "?") }
        return String(out)
    }

    static func noContent(headers: HTTPFields = [:]) -> Response {
        var h = headers
        h[.accessControlAllowOrigin] = "*"
        return Response(status: .noContent, headers: h)
    }
}
