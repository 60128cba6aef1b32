import HTTPTypes
import HearthCore
import Hummingbird
import NIOCore

/// How a request found over a rate limit travels from ``RateLimitHandler`` to the responder: as a header field the
/// handler adds to the request head (and removes from any request that comes with it), so the refusal is answered
/// in request order by whichever path answers the request, inline or through Hummingbird.
extension RequestLimiter.Refusal {
    /// The internal header field that marks a refused request: `ip;3` or `user;12`.
    static let field = HTTPField.Name("X-Hearth-Rate-Limited")!

    /// The refusal a request head carries, if any.
    init?(marked fields: HTTPFields) {
        guard let value = fields[Self.field] else { return nil }
        let parts = value.split(separator: ";", maxSplits: 1)
        guard parts.count == 2, let scope = Scope(rawValue: String(parts[0])), let seconds = Int(parts[1]) else { return nil }
        self.init(scope: scope, retryAfter: max(1, seconds))
    }

    /// The header field's value.
    var marker: String { "\(scope.rawValue);\(retryAfter)" }

    /// The message every shape carries.
    var message: String {
        "Too many requests from this \(scope == .ip ? "address" : "user"); retry after \(retryAfter) s."
    }

    /// The `429` for a request to `target`, in the error shape of the API it was meant for: Identity Toolkit's
    /// envelope with `TOO_MANY_ATTEMPTS_TRY_LATER` (as the sign-in limiter answers), storage's JSON errors (the Firebase
    /// API's and Cloud Storage's), and `{"error": "…"}` for the database and everything else.
    func reply(target: String?) -> InlineReply {
        let path = target.map { t in t.firstIndex(of: "?").map { String(t[..<$0]) } ?? t } ?? "/"
        var reply: InlineReply
        if AuthController.handles(path) {
            reply = AuthController.errorReply(status: 429, message: "TOO_MANY_ATTEMPTS_TRY_LATER", reason: "rateLimitExceeded", rpcStatus: "RESOURCE_EXHAUSTED")
        } else if StorageController.handles(path) {
            var error = [JSONMember("code", .int(429)), JSONMember("message", .string(message))]
            if !path.hasPrefix("/v0/") {
                error.append(JSONMember("errors", .array([.object([
                    JSONMember("message", .string(message)), JSONMember("domain", .string("usageLimits")),
                    JSONMember("reason", .string("rateLimitExceeded")),
                ])])))
            }
            reply = Responses.jsonReply(JSONValue.object([JSONMember("error", .object(error))]).jsonBytes, status: .tooManyRequests)
        } else {
            reply = Responses.jsonReply(JSONValue.object([JSONMember("error", .string(message))]).jsonBytes, status: .tooManyRequests)
        }
        reply.headers[.retryAfter] = String(retryAfter)
        reply.headers[.accessControlAllowOrigin] = "*"
        reply.headers[.accessControlExposeHeaders] = "Retry-After"
        return reply
    }

    /// ``reply(target:)`` as a Hummingbird response.
    func response(target: String?) -> Response { reply(target: target).response }
}
