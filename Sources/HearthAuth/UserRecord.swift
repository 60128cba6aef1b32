import Foundation
import HearthWire
public import HearthCore

/// A linked sign-in provider of a user (`providerUserInfo`).
public struct ProviderInfo: Codable, Sendable, Hashable {
    public var providerId: String
    public var rawId: String
    public var federatedId: String?
    public var email: String?
    public var displayName: String?
    public var photoUrl: String?
    public var phoneNumber: String?
}

extension ProviderInfo {
    /// A `providerUserInfo` entry as admin requests send it; nil without `providerId` and `rawId`.
    init?(request info: JSONValue) {
        guard let provider = info["providerId"]?.stringValue, !provider.isEmpty,
            let rawId = info["rawId"]?.stringValue, !rawId.isEmpty
        else { return nil }
        self.init(
            providerId: provider, rawId: rawId, federatedId: info["federatedId"]?.stringValue ?? rawId,
            email: info["email"]?.stringValue, displayName: info["displayName"]?.stringValue,
            photoUrl: info["photoUrl"]?.stringValue, phoneNumber: info["phoneNumber"]?.stringValue)
    }

    /// `password` and `phone` entries are derived from the user's own fields, never stored.
    var isDerived: Bool { providerId == "password" || providerId == "phone" }
}

/// Everything Hearth keeps about a user. Passwords are stored only as scrypt hashes.
public struct UserRecord: Codable, Sendable, Hashable {
    public var localId: String
    public var email: String?
    /// The email before the account's first email change (Firebase's `initialEmail`).
    public var initialEmail: String?
    public var emailVerified = false
    public var displayName: String?
    public var photoUrl: String?
    public var phoneNumber: String?
    /// Base64 scrypt hash and salt.
    public var passwordHash: String?
    public var salt: String?
    public var passwordUpdatedAt: Double?
    /// Set for users imported with Firebase scrypt hashes; replaced by Hearth's own hash at the
    /// first successful sign-in.
    public var firebaseScrypt: FirebaseScryptParameters?
    /// Seconds since 1970; tokens issued before are revoked.
    public var validSince: Int64
    public var disabled = false
    /// Milliseconds since 1970.
    public var createdAt: Int64
    public var lastLoginAt: Int64?
    /// Milliseconds since 1970 of the last token issue.
    public var lastRefreshAt: Int64?
    /// Custom claims as a JSON object text (`"{}"` or absent = none).
    public var customAttributes: String?
    public var customAuth: Bool?
    /// Signed in with an email link at least once.
    public var emailLinkSignin: Bool?
    /// Non-derived providers (custom IdPs); `password` and `phone` are derived from the fields.
    public var linkedProviders: [ProviderInfo] = []

    public init(localId: String, createdAt: Int64, validSince: Int64) {
        self.localId = localId
        self.createdAt = createdAt
        self.validSince = validSince
    }

    /// Stores a new password hash (Hearth's scheme).
    public mutating func setPassword(_ credentials: (hash: String, salt: String), at now: Int64) {
        (passwordHash, salt, passwordUpdatedAt, firebaseScrypt) = (credentials.hash, credentials.salt, Double(now), nil)
    }

    public mutating func removePassword() {
        (passwordHash, salt, passwordUpdatedAt, firebaseScrypt) = (nil, nil, nil, nil)
    }

    public var isAnonymous: Bool { email == nil && phoneNumber == nil && passwordHash == nil && linkedProviders.isEmpty && customAuth != true }

    /// `providerUserInfo`, with the `password` and `phone` entries derived as Firebase does. An
    /// email-link user has no password but still signs in through the `password` provider (its
    /// tokens say so), so Firebase lists that provider for it too; admin SDKs read sign-in methods
    /// from this list.
    public var providers: [ProviderInfo] {
        var out: [ProviderInfo] = []
        if let email, passwordHash != nil || emailLinkSignin == true {
            out.append(ProviderInfo(
                providerId: "password", rawId: email, federatedId: email, email: email, displayName: displayName, photoUrl: photoUrl))
        }
        if let phoneNumber {
            out.append(ProviderInfo(providerId: "phone", rawId: phoneNumber, phoneNumber: phoneNumber))
        }
        return out + linkedProviders
    }

    /// The custom claims as an object (empty when none).
    public var customClaims: [JSONMember] {
        guard let text = customAttributes, case .object(let m)? = try? JSONValue.parse(text) else { return [] }
        return m
    }

    /// The `UserInfo` JSON of lookup, batchGet and query responses.
    public var userInfo: JSONValue {
        var m: [JSONMember] = [JSONMember("localId", .string(localId))]
        if let email { m.append(JSONMember("email", .string(email))) }
        m.append(JSONMember("emailVerified", .bool(emailVerified)))
        if let displayName { m.append(JSONMember("displayName", .string(displayName))) }
        if let photoUrl { m.append(JSONMember("photoUrl", .string(photoUrl))) }
        if let phoneNumber { m.append(JSONMember("phoneNumber", .string(phoneNumber))) }
        if passwordHash != nil {
            // Never the hash itself: the redacted marker production sends without export permission.
            m.append(JSONMember("passwordHash", .string("UkVEQUNURUQ=")))
            if let passwordUpdatedAt { m.append(JSONMember("passwordUpdatedAt", .double(passwordUpdatedAt))) }
        }
        m.append(JSONMember("validSince", .string(String(validSince))))
        m.append(JSONMember("disabled", .bool(disabled)))
        m.append(JSONMember("createdAt", .string(String(createdAt))))
        if let lastLoginAt { m.append(JSONMember("lastLoginAt", .string(String(lastLoginAt)))) }
        if let lastRefreshAt { m.append(JSONMember("lastRefreshAt", .string(rfc3339(milliseconds: lastRefreshAt)))) }
        if let customAttributes, customAttributes != "{}" { m.append(JSONMember("customAttributes", .string(customAttributes))) }
        if customAuth == true { m.append(JSONMember("customAuth", .bool(true))) }
        if emailLinkSignin == true { m.append(JSONMember("emailLinkSignin", .bool(true))) }
        if let initialEmail { m.append(JSONMember("initialEmail", .string(initialEmail))) }
        m.append(JSONMember("providerUserInfo", .array(providers.map(\.json))))
        return .object(m)
    }

}

extension ProviderInfo {
    var json: JSONValue {
        var m = [JSONMember("providerId", .string(providerId)), JSONMember("rawId", .string(rawId))]
        if let federatedId { m.append(JSONMember("federatedId", .string(federatedId))) }
        if let email { m.append(JSONMember("email", .string(email))) }
        if let displayName { m.append(JSONMember("displayName", .string(displayName))) }
        if let photoUrl { m.append(JSONMember("photoUrl", .string(photoUrl))) }
        if let phoneNumber { m.append(JSONMember("phoneNumber", .string(phoneNumber))) }
        return .object(m)
    }
}
