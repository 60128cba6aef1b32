import HearthCore

/// What became of one notification to one device, as the provider answered.
public enum PushOutcome: Sendable, Hashable {
    /// Accepted; the provider's id for it (APNs `apns-id`, FCM message name) when it gave one.
    case delivered(id: String?)
    /// The token is no longer valid (the app was removed, or the token belongs to another app or sender):
    /// its registration is removed and nothing is retried.
    case tokenInvalid(reason: String)
    /// The provider's credential (APNs provider token, FCM access token) was refused as expired or
    /// invalid: make a new one and send again.
    case credentialRefused(reason: String)
    /// A passing failure (rate limit, outage): send again later, not before `after` seconds when the
    /// provider said so.
    case retry(reason: String, after: Double?)
    /// The notification or the server's configuration is wrong (bad topic, payload too large, a
    /// certificate for the wrong environment): sending it again cannot succeed.
    case rejected(reason: String)

    /// APNs's answer: the HTTP status, the `reason` of the JSON body and the response headers
    /// (`apns-id`, `retry-after`).
    public static func apns(status: Int, body: [UInt8], headers: [(String, String)]) -> PushOutcome {
        let header = { (name: String) in headers.first { $0.0.lowercased() == name }?.1 }
        if status == 200 { return .delivered(id: header("apns-id")) }
        let reason = (try? JSONValue.parse(body))?["reason"]?.stringValue ?? "HTTP \(status)"
        switch (status, reason) {
        case (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"), (410, _):
            return .tokenInvalid(reason: reason)
        case (403, "ExpiredProviderToken"), (403, "InvalidProviderToken"), (403, "MissingProviderToken"):
            return .credentialRefused(reason: reason)
        case (400, "IdleTimeout"):
            return .retry(reason: reason, after: nil)
        case (429, _), (500...599, _):
            return .retry(reason: reason, after: header("retry-after").flatMap(Double.init))
        default:
            return .rejected(reason: reason)
        }
    }

    /// FCM HTTP v1's answer to a send to one token (`toToken`) or topic: the HTTP status, the JSON body
    /// (`name`, or `error` with `status` and `details`) and the `retry-after` header.
    ///
    /// A 400 `INVALID_ARGUMENT` means a bad token when its details carry only FCM's error code; a bad
    /// field of the message comes with a `google.rpc.BadRequest` detail naming the field.
    public static func fcm(status: Int, body: [UInt8], headers: [(String, String)], toToken: Bool) -> PushOutcome {
        let json = try? JSONValue.parse(body)
        if status == 200 { return .delivered(id: json?["name"]?.stringValue) }
        let error = json?["error"]
        var details: [JSONValue] = []
        if case .array(let list)? = error?["details"] { details = list }
        let code = details.lazy.compactMap { $0["errorCode"]?.stringValue }.first
        let state = code ?? error?["status"]?.stringValue ?? "HTTP \(status)"
        let reason = [state, error?["message"]?.stringValue].compactMap { $0 }.joined(separator: ": ")
        let fieldViolation = details.contains { $0["@type"]?.stringValue?.hasSuffix("google.rpc.BadRequest") == true }
        let retryAfter = headers.first { $0.0.lowercased() == "retry-after" }.flatMap { Double($0.1) }
        switch (status, state) {
        case (_, "UNREGISTERED"), (_, "SENDER_ID_MISMATCH"):
            return toToken ? .tokenInvalid(reason: reason) : .rejected(reason: reason)
        case (404, _) where toToken:
            return .tokenInvalid(reason: reason)
        case (400, "INVALID_ARGUMENT") where toToken && !fieldViolation && code != nil:
            return .tokenInvalid(reason: reason)
        case (401, "THIRD_PARTY_AUTH_ERROR"):
            return .rejected(reason: reason)
        case (401, _):
            return .credentialRefused(reason: reason)
        case (429, _), (500...599, _):
            return .retry(reason: reason, after: retryAfter)
        default:
            return .rejected(reason: reason)
        }
    }
}
