import Foundation
public import HearthCore
import HearthStore

extension AuthService {
    // MARK: accounts:batchDelete

    public func batchDelete(_ body: JSONValue) async throws -> JSONValue {
        let uids = body.strings("localIds")
        guard !uids.isEmpty, uids.count <= 1000 else { throw AuthError("LOCAL_ID_LIST_EXCEEDS_LIMIT") }
        let force = body.bool("force") ?? false
        let errors: [JSONValue] = try await store.transaction { tx in
            var errors: [JSONValue] = []
            for (i, uid) in uids.enumerated() {
                guard let user = try self.load(tx.account(uid: uid)) else { continue }
                if !force && !user.disabled {
                    errors.append(.object([
                        JSONMember("index", .int(Int64(i))), JSONMember("localId", .string(uid)),
                        JSONMember("message", .string("NOT_DISABLED : Disable the account before batch deletion.")),
                    ]))
                    continue
                }
                _ = try self.deleteAccount(uid: uid, in: tx)
            }
            return errors
        }
        return errors.isEmpty ? .object([]) : .object([JSONMember("errors", .array(errors))])
    }

    // MARK: accounts:batchCreate (import)

    /// Imports users. Passwords come as `rawPassword` (hashed here); other hash algorithms are
    /// reported per user as unsupported rather than stored in a form Hearth cannot check.
    public func batchCreate(_ body: JSONValue) async throws -> JSONValue {
        guard case .array(let users)? = body["users"] else { throw AuthError("MISSING_USER_ACCOUNT") }
        let now = clock()
        var scrypt: FirebaseScryptParameters?
        if let algorithm = body.string("hashAlgorithm") {
            guard algorithm.uppercased() == "SCRYPT", let signer = body.string("signerKey").flatMap(Self.standardBase64),
                let rounds = body.int64("rounds"), let memory = body.int64("memoryCost")
            else { throw AuthError("INVALID_HASH_ALGORITHM", "only SCRYPT (Firebase's, with signerKey, rounds, memoryCost) can be imported") }
            let separator = body.string("saltSeparator").flatMap(Self.standardBase64) ?? ""
            scrypt = FirebaseScryptParameters(signerKey: signer, saltSeparator: separator, rounds: Int(rounds), memoryCost: Int(memory))
        }
        var prepared: [(Int, UserRecord?, String?)] = []
        for (i, u) in users.enumerated() {
            guard let uid = u.string("localId"), !uid.isEmpty, uid.utf8.count <= 128 else {
                prepared.append((i, nil, "localId is missing or invalid"))
                continue
            }
            var user = UserRecord(localId: uid, createdAt: u.int64("createdAt") ?? now, validSince: now / 1000)
            if let email = u.string("email") {
                guard Self.isValidEmail(email) else {
                    prepared.append((i, nil, "email is invalid"))
                    continue
                }
                user.email = email.lowercased()
            }
            user.emailVerified = u.bool("emailVerified") ?? false
            user.displayName = u.string("displayName")
            user.photoUrl = u.string("photoUrl")
            user.phoneNumber = u.string("phoneNumber")
            user.disabled = u.bool("disabled") ?? false
            user.lastLoginAt = u.int64("lastLoginAt")
            if let attributes = u.string("customAttributes") {
                do { try Self.checkCustomAttributes(attributes) } catch {
                    prepared.append((i, nil, "\(error)"))
                    continue
                }
                user.customAttributes = attributes
            }
            // Linked identity providers (Google, Apple, …) travel with the user, so tokens keep
            // listing them in `firebase.identities`. `password` and `phone` are derived from the
            // email/password and phone fields, never stored as entries.
            if case .array(let infos)? = u["providerUserInfo"] {
                for case let linked? in infos.map(ProviderInfo.init(request:)) where !linked.isDerived {
                    user.linkedProviders.removeAll { $0.providerId == linked.providerId }
                    user.linkedProviders.append(linked)
                }
            }
            if let raw = u.string("rawPassword") {
                let credentials = try await hasher.hash(raw)
                user.setPassword(credentials, at: now)
            } else if let hash = u.string("passwordHash") {
                guard let scrypt, let h = Self.standardBase64(hash), let salt = Self.standardBase64(u.string("salt") ?? "") else {
                    prepared.append((i, nil, "passwordHash needs hashAlgorithm SCRYPT with its parameters (or import rawPassword)"))
                    continue
                }
                (user.passwordHash, user.salt, user.firebaseScrypt) = (h, salt, scrypt)
            }
            prepared.append((i, user, nil))
        }
        let ready = prepared
        let errors: [JSONValue] = try await store.transaction { tx in
            var errors: [JSONValue] = []
            for (i, user, problem) in ready {
                var message = problem
                if let user {
                    do { try self.save(user, in: tx) } catch let e as AuthError { message = e.message }
                }
                if let message {
                    errors.append(.object([JSONMember("index", .int(Int64(i))), JSONMember("message", .string(message))]))
                }
            }
            return errors
        }
        var m = [JSONMember("kind", .string("identitytoolkit#UploadAccountResponse"))]
        if !errors.isEmpty { m.append(JSONMember("error", .array(errors))) }
        return .object(m)
    }

    /// Base64 or base64url text as standard base64; nil if it is neither.
    static func standardBase64(_ text: String) -> String? {
        Base64URL.decode(text).map { Data($0).base64EncodedString() }
    }

    // MARK: accounts:query

    public func query(_ body: JSONValue) async throws -> JSONValue {
        let limit = Int(body.int64("limit") ?? 500)
        let offset = Int(body.int64("offset") ?? 0)
        let returnUserInfo = body.bool("returnUserInfo") ?? true
        let (count, rows) = try await store.transaction { tx in
            (try tx.accountCount(), returnUserInfo ? try tx.accounts(after: nil, limit: offset + limit) : [])
        }
        var m = [JSONMember("recordsCount", .string(String(count)))]
        if returnUserInfo {
            m.append(JSONMember("userInfo", .array(try rows.dropFirst(offset).compactMap { try load($0)?.userInfo })))
        }
        return .object(m)
    }

    // MARK: :createSessionCookie

    public func createSessionCookie(_ body: JSONValue) async throws -> JSONValue {
        let now = clock()
        let duration = body.int64("validDuration") ?? 14 * 24 * 3600
        guard (300...1_209_600).contains(duration) else { throw AuthError("INVALID_DURATION") }
        guard let idToken = body.string("idToken"), !idToken.isEmpty else { throw AuthError("MISSING_ID_TOKEN") }
        _ = try await store.transaction { tx in try self.user(forIDToken: idToken, in: tx, now: now) }
        guard case .object(var claims)? = keys.verifiedPayload(idToken) else { throw AuthError.invalidIDToken }
        claims.removeAll { ["iss", "iat", "exp"].contains($0.key) }
        claims.append(JSONMember("iss", .string("https://session.firebase.google.com/\(projectID)")))
        claims.append(JSONMember("iat", .int(now / 1000)))
        claims.append(JSONMember("exp", .int(now / 1000 + duration)))
        return .object([JSONMember("sessionCookie", .string(try key.sign(.object(claims))))])
    }
}
