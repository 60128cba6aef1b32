import HearthMessaging
import Testing

/// What each APNs and FCM answer means for the notification and the device's registration.
@Suite struct ProviderAnswerTests {
    func apns(_ status: Int, _ reason: String?, headers: [(String, String)] = []) -> PushOutcome {
        PushOutcome.apns(status: status, body: Array((reason.map { #"{"reason":"\#($0)"}"# } ?? "").utf8), headers: headers)
    }

    @Test func apnsAnswers() {
        #expect(apns(200, nil, headers: [("apns-id", "EC1BF194-B3B2-424A-89A9-5A918A6E6B5C")]) == .delivered(id: "EC1BF194-B3B2-424A-89A9-5A918A6E6B5C"))
        #expect(apns(400, "BadDeviceToken") == .tokenInvalid(reason: "BadDeviceToken"))
        #expect(apns(400, "DeviceTokenNotForTopic") == .tokenInvalid(reason: "DeviceTokenNotForTopic"))
        #expect(apns(410, "Unregistered") == .tokenInvalid(reason: "Unregistered"))
        #expect(apns(410, "ExpiredToken") == .tokenInvalid(reason: "ExpiredToken"))
        #expect(apns(403, "ExpiredProviderToken") == .credentialRefused(reason: "ExpiredProviderToken"))
        #expect(apns(403, "InvalidProviderToken") == .credentialRefused(reason: "InvalidProviderToken"))
        #expect(apns(429, "TooManyRequests", headers: [("Retry-After", "30")]) == .retry(reason: "TooManyRequests", after: 30))
        #expect(apns(503, "ServiceUnavailable") == .retry(reason: "ServiceUnavailable", after: nil))
        #expect(apns(500, nil) == .retry(reason: "HTTP 500", after: nil))
        #expect(apns(400, "IdleTimeout") == .retry(reason: "IdleTimeout", after: nil))
        for reason in ["BadTopic", "TopicDisallowed", "BadCollapseId", "PayloadEmpty", "BadPriority"] {
            #expect(apns(400, reason) == .rejected(reason: reason))
        }
        #expect(apns(403, "BadCertificateEnvironment") == .rejected(reason: "BadCertificateEnvironment"))
        #expect(apns(413, "PayloadTooLarge") == .rejected(reason: "PayloadTooLarge"))
    }

    func fcm(_ status: Int, _ body: String, toToken: Bool = true, headers: [(String, String)] = []) -> PushOutcome {
        PushOutcome.fcm(status: status, body: Array(body.utf8), headers: headers, toToken: toToken)
    }

    /// FCM's documented error shape: a status, a message and typed details.
    func error(_ code: Int, _ status: String, _ message: String, fcmCode: String? = nil, field: String? = nil) -> String {
        var details: [String] = []
        if let fcmCode { details.append(#"{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#(fcmCode)"}"#) }
        if let field {
            details.append(#"{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"\#(field)","description":"bad"}]}"#)
        }
        return #"{"error":{"code":\#(code),"message":"\#(message)","status":"\#(status)","details":[\#(details.joined(separator: ","))]}}"#
    }

    @Test func fcmAnswers() {
        #expect(fcm(200, #"{"name":"projects/p/messages/0:1500415314455276%31bd1c9631bd1c96"}"#) == .delivered(id: "projects/p/messages/0:1500415314455276%31bd1c9631bd1c96"))
        // The two INVALID_ARGUMENT answers FCM documents: a bad token, and a bad field of the message.
        let badToken = fcm(400, error(400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token", fcmCode: "INVALID_ARGUMENT"))
        #expect(badToken == .tokenInvalid(reason: "INVALID_ARGUMENT: The registration token is not a valid FCM registration token"))
        let badField = fcm(400, error(400, "INVALID_ARGUMENT", "Invalid value at 'message.data[0].value'", field: "message.data[0].value"))
        #expect(badField == .rejected(reason: "INVALID_ARGUMENT: Invalid value at 'message.data[0].value'"))
        #expect(fcm(404, error(404, "NOT_FOUND", "Requested entity was not found.", fcmCode: "UNREGISTERED")) == .tokenInvalid(reason: "UNREGISTERED: Requested entity was not found."))
        #expect(fcm(403, error(403, "PERMISSION_DENIED", "SenderId mismatch", fcmCode: "SENDER_ID_MISMATCH")) == .tokenInvalid(reason: "SENDER_ID_MISMATCH: SenderId mismatch"))
        // To a topic nothing is a bad token.
        #expect(fcm(404, error(404, "NOT_FOUND", "x", fcmCode: "UNREGISTERED"), toToken: false) == .rejected(reason: "UNREGISTERED: x"))
        #expect(fcm(429, error(429, "RESOURCE_EXHAUSTED", "quota", fcmCode: "QUOTA_EXCEEDED"), headers: [("retry-after", "12")]) == .retry(reason: "QUOTA_EXCEEDED: quota", after: 12))
        #expect(fcm(503, error(503, "UNAVAILABLE", "later", fcmCode: "UNAVAILABLE")) == .retry(reason: "UNAVAILABLE: later", after: nil))
        #expect(fcm(502, "<html>bad gateway</html>") == .retry(reason: "HTTP 502", after: nil))
        #expect(fcm(401, error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")) == .credentialRefused(reason: "UNAUTHENTICATED: Request had invalid authentication credentials."))
        #expect(fcm(401, error(401, "UNAUTHENTICATED", "APNs auth", fcmCode: "THIRD_PARTY_AUTH_ERROR")) == .rejected(reason: "THIRD_PARTY_AUTH_ERROR: APNs auth"))
    }
}
