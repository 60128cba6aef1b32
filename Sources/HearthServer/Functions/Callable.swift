public import HTTPTypes
public import HearthCore
public import HearthWire

/// Who called a callable function, and how.
public struct CallableRequest: Sendable {
    /// The caller's verified ID token, if one was sent (`Authorization: Bearer …`).
    public let auth: CallableAuth?
    /// The request's headers (for example `X-Firebase-AppCheck`).
    public let headers: HTTPFields
}

/// A verified caller.
public struct CallableAuth: Sendable {
    public let uid: String
    /// The ID token's claims (custom claims at the top level, `firebase.sign_in_provider`, …).
    public let token: JSONValue
}

/// An error a callable function throws to answer with a specific status, as Firebase's
/// `HttpsError` does. `details` reaches the client unchanged.
public struct CallableError: Error, Sendable {
    /// The callable protocol's status codes (with their HTTP statuses).
    public typealias Code = CallableStatus

    public var code: Code
    public var message: String
    public var details: JSONValue?

    public init(_ code: Code, _ message: String, details: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.details = details
    }

    /// `{"error":{"status":…,"message":…,"details":…}}`.
    var body: JSONValue {
        var error = [JSONMember("status", .string(code.rawValue)), JSONMember("message", .string(message))]
        if let details { error.append(JSONMember("details", details)) }
        return .object([JSONMember("error", .object(error))])
    }
}
