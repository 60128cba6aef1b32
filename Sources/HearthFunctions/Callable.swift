public import HTTPTypes
public import HearthCore
public import HearthWire

/// Who called a callable function, and how.
public struct CallableRequest: Sendable {
    /// The caller's verified ID token, if one was sent (`Authorization: Bearer …`).
    public let auth: CallableAuth?
    /// The request's headers (for example `X-Firebase-AppCheck`).
    public let headers: HTTPFields

    package init(auth: CallableAuth?, headers: HTTPFields) {
        self.auth = auth
        self.headers = headers
    }
}

/// A verified caller.
public struct CallableAuth: Sendable {
    /// The caller's user id.
    public let uid: String
    /// The ID token's claims (custom claims at the top level, `firebase.sign_in_provider`, …).
    public let token: JSONValue

    package init(uid: String, token: JSONValue) {
        self.uid = uid
        self.token = token
    }
}

/// An error a callable function throws to answer with a specific status, as Firebase's
/// `HttpsError` does. `details` reaches the client unchanged.
public struct CallableError: Error, Sendable {
    /// The callable protocol's status codes (with their HTTP statuses).
    public typealias Code = CallableStatus

    /// The status the client sees.
    public var code: Code
    /// The message the client sees.
    public var message: String
    /// Extra data for the client, sent as it is.
    public var details: JSONValue?

    /// An error answering with `code`, `message` and optional `details`.
    public init(_ code: Code, _ message: String, details: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.details = details
    }

    /// `{"error":{"status":…,"message":…,"details":…}}`.
    package var body: JSONValue {
        var error = [JSONMember("status", .string(code.rawValue)), JSONMember("message", .string(message))]
        if let details { error.append(JSONMember("details", details)) }
        return .object([JSONMember("error", .object(error))])
    }
}
