import Foundation
import HearthCore
import HearthServer

extension Settings {
    /// The SMS provider for phone verification codes (a Twilio-compatible Messages API); none configured = codes are
    /// not texted (outside `--dev`, where the emulator's outbox lists them).
    struct SMSSettings {
        var baseURL: String?
        var accountSID: String?
        var authToken: String?
        var authTokenFile: String?
        var from: String?

        mutating func apply(_ members: [JSONMember], file path: String) throws {
            for m in members {
                switch (m.key, m.value) {
                case ("baseUrl", .string(let v)): baseURL = v
                case ("accountSid", .string(let v)): accountSID = v
                case ("authToken", .string(let v)): authToken = v
                case ("authTokenFile", .string(let v)): authTokenFile = v
                case ("from", .string(let v)): from = v
                default: throw Failure(description: "config file \(path): unknown or mistyped setting \"sms.\(m.key)\"")
                }
            }
        }

        mutating func apply(environment env: [String: String]) {
            if let v = env["HEARTH_SMS_BASE_URL"] { baseURL = v }
            if let v = env["HEARTH_SMS_ACCOUNT_SID"] { accountSID = v }
            if let v = env["HEARTH_SMS_AUTH_TOKEN"] { authToken = v }
            if let v = env["HEARTH_SMS_AUTH_TOKEN_FILE"] { authTokenFile = v }
            if let v = env["HEARTH_SMS_FROM"] { from = v }
        }

        /// The provider's configuration, or nil when no account is set; throws when one is set but incomplete.
        func configuration() throws -> SMSConfiguration? {
            guard let accountSID, !accountSID.isEmpty else {
                if from != nil || authToken != nil || authTokenFile != nil {
                    throw Failure(description: "an SMS provider needs an account (--sms-account-sid, HEARTH_SMS_ACCOUNT_SID)")
                }
                return nil
            }
            var token = authToken
            if let authTokenFile {
                guard let data = FileManager.default.contents(atPath: authTokenFile) else {
                    throw Failure(description: "cannot read the SMS auth token file \(authTokenFile)")
                }
                token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            guard let token, !token.isEmpty else {
                throw Failure(description: "an SMS account needs its auth token (--sms-auth-token-file, HEARTH_SMS_AUTH_TOKEN_FILE or HEARTH_SMS_AUTH_TOKEN)")
            }
            guard let from, !from.isEmpty else {
                throw Failure(description: "an SMS account needs a sender: an E.164 number or a messaging service id (--sms-from, HEARTH_SMS_FROM)")
            }
            let base = baseURL ?? "https://api.twilio.com"
            guard let url = URL(string: base), url.scheme == "https" || url.scheme == "http", url.host != nil else {
                throw Failure(description: "the SMS base URL must be an http(s) URL, got \(base)")
            }
            return SMSConfiguration(baseURL: base, accountSID: accountSID, authToken: token, from: from)
        }
    }
}
