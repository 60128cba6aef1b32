import Foundation
import HearthStore
public import HearthWire
public import HearthCore

/// A linked sign-in provider of a user (`providerUserInfo`), as the wire carries it.
public typealias ProviderInfo = IdentityToolkit.ProviderUserInfo

extension ProviderInfo {
    /// A `providerUserInfo` entry as admin requests send it; nil without `providerId` and `rawId`.
    init?(request info: IdentityToolkit.ProviderUserInfoInput) {
        guard let provider = info.providerId, !provider.isEmpty, let rawId = info.rawId, !rawId.isEmpty else { return nil }
        self.init(
            providerId: provider, rawId: rawId, federatedId: info.federatedId ?? rawId, email: info.email, displayName: info.displayName,
            photoUrl: info.photoUrl, phoneNumber: info.phoneNumber)
    }

    /// `password` and `phone` entries are derived from the user's own fields, never stored.
    var isDerived: Bool { providerId == "password" || providerId == "phone" }
    var identity: AccountIdentity { AccountIdentity(providerId: providerId, rawId: rawId) }
}

/// Everything Hearth keeps about a user. Passwords are stored only as scrypt hashes.
public struct UserRecord: Codable, Sendable, Hashable {
    /// The user's uid; never changes.
    public var localId: String
    /// The account's email, stored lowercased; unique among accounts.
    public var email: String?
    /// The email before the account's first email change (Firebase's `initialEmail`).
    public var initialEmail: String?
    /// Whether the owner has proved the email (a verification link, an email link, a provider's verified email).
    public var emailVerified = false
    /// The profile's name.
    public var displayName: String?
    /// The profile's picture URL.
    public var photoUrl: String?
    /// E.164 number, unique among accounts.
    public var phoneNumber: String?
    /// Base64 scrypt hash and salt.
    public var passwordHash: String?
    /// The salt of ``passwordHash``.
    public var salt: String?
    /// The scrypt N of `passwordHash` (absent: `PasswordHasher.legacyCost`, every hash made before it was stored).
    public var passwordCost: Int?
    /// Milliseconds since 1970 when the password was last set; kept when only its hash format changes.
    public var passwordUpdatedAt: Double?
    /// Set for users imported with Firebase scrypt hashes; replaced by Hearth's own hash at the
    /// first successful sign-in.
    public var firebaseScrypt: FirebaseScryptParameters?
    /// Set for users imported with another system's hash (bcrypt, standard scrypt, PBKDF2);
    /// replaced by Hearth's own hash at the first successful sign-in.
    public var importedHash: ImportedHash?
    /// Seconds since 1970; tokens issued before are revoked.
    public var validSince: Int64
    /// A disabled account cannot sign in or refresh its tokens (`USER_DISABLED`).
    public var disabled = false
    /// Milliseconds since 1970.
    public var createdAt: Int64
    /// Milliseconds since 1970 of the last sign-in.
    public var lastLoginAt: Int64?
    /// Milliseconds since 1970 of the last token issue.
    public var lastRefreshAt: Int64?
    /// Custom claims as a JSON object text (`"{}"` or absent = none).
    public var customAttributes: String?
    /// Has signed in with a custom token at least once (so the account is not anonymous).
    public var customAuth: Bool?
    /// Signed in with an email link at least once.
    public var emailLinkSignin: Bool?
    /// Non-derived providers (custom IdPs); `password` and `phone` are derived from the fields.
    public var linkedProviders: [ProviderInfo] = []

    /// The linked providers' accounts, which no other user may have.
    var identities: [AccountIdentity] { linkedProviders.map(\.identity) }

    /// A new account with only its uid, its creation time (ms) and ``validSince`` (seconds).
    public init(localId: String, createdAt: Int64, validSince: Int64) {
        self.localId = localId
        self.createdAt = createdAt
        self.validSince = validSince
    }

    /// Stores a new password hash (Hearth's scheme).
    public mutating func setPassword(_ credentials: PasswordCredentials, at now: Int64) {
        (passwordHash, salt, passwordCost, passwordUpdatedAt) = (credentials.hash, credentials.salt, credentials.cost, Double(now))
        (firebaseScrypt, importedHash) = (nil, nil)
    }

    /// Replaces the stored hash of the same password (an imported format or an older cost):
    /// `passwordUpdatedAt` stays, since the password did not change.
    public mutating func rehashPassword(_ credentials: PasswordCredentials) {
        let updated = passwordUpdatedAt
        setPassword(credentials, at: 0)
        passwordUpdatedAt = updated
    }

    /// Drops the password and any imported hash: the account can no longer sign in with a password.
    public mutating func removePassword() {
        (passwordHash, salt, passwordCost, passwordUpdatedAt, firebaseScrypt, importedHash) = (nil, nil, nil, nil, nil, nil)
    }

    /// The owner of this account's email has just proved it (an email link, a provider's verified email) while
    /// the account says nobody had: whoever set that email or password never proved the address. As Firebase does
    /// when a verified provider claims an unverified account, the password goes and every earlier session ends
    /// (`validSince`), so someone who signed up with another's email keeps no way in; the email is verified.
    mutating func claimUnverifiedEmail(nowMillis now: Int64) {
        guard !emailVerified else { return }
        removePassword()
        validSince = now / 1000
        emailVerified = true
    }

    /// What lookups show in place of a password hash and salt (base64 of `REDACTED`), as
    /// production does without export permission.
    public static let redactedHash = "UkVEQUNURUQ="

    /// No way to sign in again but its refresh token: no email, phone, password, linked provider or custom token.
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

    /// The account as lookup, batchGet and query describe it.
    public var userInfo: IdentityToolkit.UserInfo {
        var info = IdentityToolkit.UserInfo(localId: localId)
        (info.email, info.emailVerified, info.displayName, info.photoUrl, info.phoneNumber) = (email, emailVerified, displayName, photoUrl, phoneNumber)
        if passwordHash != nil {
            // Never the hash or salt themselves: the redacted marker production sends without export permission.
            // firebase-admin's list_users gives password_hash and password_salt from these (non-None for password users).
            (info.passwordHash, info.salt, info.passwordUpdatedAt) = (Self.redactedHash, Self.redactedHash, passwordUpdatedAt)
        }
        (info.validSince, info.disabled, info.createdAt) = (String(validSince), disabled, String(createdAt))
        info.lastLoginAt = lastLoginAt.map { String($0) }
        info.lastRefreshAt = lastRefreshAt.map { rfc3339(milliseconds: $0) }
        if let customAttributes, customAttributes != "{}" { info.customAttributes = customAttributes }
        if customAuth == true { info.customAuth = true }
        if emailLinkSignin == true { info.emailLinkSignin = true }
        info.initialEmail = initialEmail
        info.providerUserInfo = providers
        return info
    }

    /// ``userInfo`` as JSON, for the admin answers that are still built as `JSONValue`.
    var userInfoJSON: JSONValue {
        // Encoding cannot fail: the fields are strings, booleans and finite numbers.
        (try? JSONValueEncoder().encode(userInfo)) ?? .object([])
    }
}

// MARK: Reading stored records without JSONDecoder

extension UserRecord {
    /// A record from the JSON its `Codable` conformance wrote (which never writes `null`), or nil for anything else
    /// (then `JSONDecoder` decides, and reports the error). Every refresh and sign-in loads one record; Foundation's decoder
    /// was ~10 % of a refresh's CPU apart from the signature.
    init?(stored: JSONValue) {
        guard case .object(let members) = stored else { return nil }
        var localId: String?
        var createdAt: Int64?
        var validSince: Int64?
        var emailVerified: Bool?
        var disabled: Bool?
        var linkedProviders: [ProviderInfo]?
        var record = UserRecord(localId: "", createdAt: 0, validSince: 0)
        for member in members {
            let value = member.value
            switch member.key {
            case "localId": guard let v = value.stringValue else { return nil }; localId = v
            case "createdAt": guard case .int(let v) = value else { return nil }; createdAt = v
            case "validSince": guard case .int(let v) = value else { return nil }; validSince = v
            case "emailVerified": guard case .bool(let v) = value else { return nil }; emailVerified = v
            case "disabled": guard case .bool(let v) = value else { return nil }; disabled = v
            case "linkedProviders":
                guard case .array(let items) = value else { return nil }
                var providers: [ProviderInfo] = []
                providers.reserveCapacity(items.count)
                for item in items {
                    guard let provider = ProviderInfo(stored: item) else { return nil }
                    providers.append(provider)
                }
                linkedProviders = providers
            case "email": guard let v = value.stringValue else { return nil }; record.email = v
            case "initialEmail": guard let v = value.stringValue else { return nil }; record.initialEmail = v
            case "displayName": guard let v = value.stringValue else { return nil }; record.displayName = v
            case "photoUrl": guard let v = value.stringValue else { return nil }; record.photoUrl = v
            case "phoneNumber": guard let v = value.stringValue else { return nil }; record.phoneNumber = v
            case "passwordHash": guard let v = value.stringValue else { return nil }; record.passwordHash = v
            case "salt": guard let v = value.stringValue else { return nil }; record.salt = v
            case "passwordCost": guard case .int(let v) = value, let n = Int(exactly: v) else { return nil }; record.passwordCost = n
            case "customAttributes": guard let v = value.stringValue else { return nil }; record.customAttributes = v
            case "passwordUpdatedAt": guard let v = value.doubleValue else { return nil }; record.passwordUpdatedAt = v
            case "lastLoginAt": guard case .int(let v) = value else { return nil }; record.lastLoginAt = v
            case "lastRefreshAt": guard case .int(let v) = value else { return nil }; record.lastRefreshAt = v
            case "customAuth": guard case .bool(let v) = value else { return nil }; record.customAuth = v
            case "emailLinkSignin": guard case .bool(let v) = value else { return nil }; record.emailLinkSignin = v
            case "firebaseScrypt":
                guard let v = FirebaseScryptParameters(stored: value) else { return nil }
                record.firebaseScrypt = v
            case "importedHash":
                guard let v = ImportedHash(stored: value) else { return nil }
                record.importedHash = v
            default: continue  // JSONDecoder ignores unknown keys too
            }
        }
        guard let localId, let createdAt, let validSince, let emailVerified, let disabled, let linkedProviders else { return nil }
        (record.localId, record.createdAt, record.validSince) = (localId, createdAt, validSince)
        (record.emailVerified, record.disabled, record.linkedProviders) = (emailVerified, disabled, linkedProviders)
        self = record
    }
}

extension ProviderInfo {
    /// See `UserRecord.init?(stored:)`.
    init?(stored: JSONValue) {
        guard case .object(let members) = stored else { return nil }
        var providerId: String?
        var rawId: String?
        var optional: [String: String] = [:]
        for member in members {
            switch member.key {
            case "providerId": guard let v = member.value.stringValue else { return nil }; providerId = v
            case "rawId": guard let v = member.value.stringValue else { return nil }; rawId = v
            case "federatedId", "email", "displayName", "photoUrl", "phoneNumber":
                guard let v = member.value.stringValue else { return nil }
                optional[member.key] = v
            default: continue
            }
        }
        guard let providerId, let rawId else { return nil }
        self.init(
            providerId: providerId, rawId: rawId, federatedId: optional["federatedId"], email: optional["email"],
            displayName: optional["displayName"], photoUrl: optional["photoUrl"], phoneNumber: optional["phoneNumber"])
    }
}

extension FirebaseScryptParameters {
    /// See `UserRecord.init?(stored:)`.
    init?(stored: JSONValue) {
        guard case .object(let members) = stored else { return nil }
        var signerKey: String?
        var saltSeparator: String?
        var rounds: Int?
        var memoryCost: Int?
        for member in members {
            switch member.key {
            case "signerKey": guard let v = member.value.stringValue else { return nil }; signerKey = v
            case "saltSeparator": guard let v = member.value.stringValue else { return nil }; saltSeparator = v
            case "rounds": guard case .int(let v) = member.value, let i = Int(exactly: v) else { return nil }; rounds = i
            case "memoryCost": guard case .int(let v) = member.value, let i = Int(exactly: v) else { return nil }; memoryCost = i
            default: continue
            }
        }
        guard let signerKey, let saltSeparator, let rounds, let memoryCost else { return nil }
        self.init(signerKey: signerKey, saltSeparator: saltSeparator, rounds: rounds, memoryCost: memoryCost)
    }
}

extension ImportedHash {
    /// See `UserRecord.init?(stored:)`.
    init?(stored: JSONValue) {
        guard case .object(let members) = stored else { return nil }
        var algorithm: Algorithm?
        var numbers: [String: Int] = [:]
        for member in members {
            switch member.key {
            case "algorithm": guard let v = member.value.stringValue.flatMap(Algorithm.init(rawValue:)) else { return nil }; algorithm = v
            case "rounds", "memoryCost", "blockSize", "parallelization", "derivedKeyLength":
                guard case .int(let v) = member.value, let i = Int(exactly: v) else { return nil }
                numbers[member.key] = i
            default: continue
            }
        }
        guard let algorithm else { return nil }
        self.init(
            algorithm: algorithm, rounds: numbers["rounds"], memoryCost: numbers["memoryCost"], blockSize: numbers["blockSize"],
            parallelization: numbers["parallelization"], derivedKeyLength: numbers["derivedKeyLength"])
    }
}
