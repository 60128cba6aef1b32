import Foundation
import HearthCore
import HearthStore
import HearthWire

extension AuthService {
    // MARK: accounts:batchDelete

    /// `accounts:batchDelete` (admin): deletes up to 1000 `localIds`. Without `force`, an account that is not
    /// disabled is kept and listed in `errors` (`NOT_DISABLED`); unknown uids are skipped silently.
    public func batchDelete(_ request: IdentityToolkit.BatchDeleteAccountsRequest) async throws -> IdentityToolkit.BatchDeleteAccountsResponse {
        let uids = request.localIds ?? []
        guard !uids.isEmpty, uids.count <= 1000 else { throw AuthError("LOCAL_ID_LIST_EXCEEDS_LIMIT") }
        let force = request.force ?? false
        let errors: [IdentityToolkit.BatchError] = try await store.transaction { tx in
            var errors: [IdentityToolkit.BatchError] = []
            for (i, uid) in uids.enumerated() {
                guard let user = try self.load(tx.account(uid: uid)) else { continue }
                if !force && !user.disabled {
                    errors.append(IdentityToolkit.BatchError(
                        index: i, localId: uid, message: "NOT_DISABLED : Disable the account before batch deletion."))
                    continue
                }
                _ = try self.deleteAccount(uid: uid, in: tx)
            }
            return errors
        }
        return IdentityToolkit.BatchDeleteAccountsResponse(errors: errors)
    }

    // MARK: accounts:batchCreate (import)

    /// Imports users. Passwords come as `rawPassword` (hashed here) or as hashes Hearth can check:
    /// Firebase's SCRYPT, BCRYPT, STANDARD_SCRYPT, PBKDF2_SHA256 and PBKDF_SHA1 (replaced by
    /// Hearth's own hash at each user's first sign-in). Other algorithms are refused rather than
    /// stored in a form nobody could sign in with.
    public func batchCreate(_ request: IdentityToolkit.UploadAccountRequest) async throws -> IdentityToolkit.UploadAccountResponse {
        guard let users = request.users, !users.isEmpty else { throw AuthError("MISSING_USER_ACCOUNT") }
        // Two entries for one uid would silently keep only the last: refuse the request.
        var seen = Set<String>()
        for u in users {
            guard let uid = u.localId else { continue }
            if !seen.insert(uid).inserted { throw AuthError("DUPLICATE_LOCAL_ID", uid) }
        }
        let now = clock()
        let (scrypt, imported) = try Self.importHashParameters(request)
        var prepared: [(Int, UserRecord?, String?)] = []
        for (i, u) in users.enumerated() {
            do {
                prepared.append((i, try await importedUser(u, now: now, scrypt: scrypt, imported: imported), nil))
            } catch let refusal as ImportRefusal {
                prepared.append((i, nil, refusal.message))
            }
        }
        let ready = prepared
        let errors: [IdentityToolkit.BatchError] = try await store.transaction { tx in
            var errors: [IdentityToolkit.BatchError] = []
            // A provider identity (google.com + its id) belongs to one user, as linking enforces.
            var owners = try self.providerOwners(of: ready.compactMap(\.1), in: tx)
            for (i, user, problem) in ready {
                var message = problem
                if let user, message == nil {
                    let identities = user.identities
                    if identities.contains(where: { owners[$0].map { $0 != user.localId } ?? false }) {
                        message = "raw id exists in other account in database"
                    } else {
                        do {
                            try self.save(user, in: tx)
                            for identity in identities { owners[identity] = user.localId }
                        } catch let e as AuthError { message = e.message }
                    }
                }
                if let message {
                    errors.append(IdentityToolkit.BatchError(index: i, message: message))
                }
            }
            return errors
        }
        return IdentityToolkit.UploadAccountResponse(errors: errors)
    }

    /// Why one user of an import was not imported (reported by index; the others still are).
    private struct ImportRefusal: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    /// The hash parameters of an import: Firebase's modified scrypt (`SCRYPT` with a signer key) or
    /// another algorithm's (`BCRYPT`, `PBKDF2_SHA256`, …); neither when the users bring raw passwords.
    private static func importHashParameters(_ request: IdentityToolkit.UploadAccountRequest) throws -> (FirebaseScryptParameters?, ImportedHash?) {
        var scrypt: FirebaseScryptParameters?
        var imported: ImportedHash?
        if let algorithm = request.hashAlgorithm, let other = ImportedHash.Algorithm(rawValue: algorithm.uppercased()) {
            imported = try ImportedHash.validated(
                // admin SDKs send standard scrypt's N as `cpuMemCost`.
                other, rounds: request.rounds, memoryCost: request.cpuMemCost ?? request.memoryCost, blockSize: request.blockSize,
                parallelization: request.parallelization, derivedKeyLength: request.dkLen ?? request.derivedKeyLength)
        } else if let algorithm = request.hashAlgorithm {
            let supported = (["SCRYPT"] + ImportedHash.Algorithm.allCases.map(\.rawValue)).joined(separator: ", ")
            guard algorithm.uppercased() == "SCRYPT" else { throw AuthError("INVALID_HASH_ALGORITHM", "\(algorithm) cannot be imported; supported: \(supported)") }
            guard let signer = request.signerKey.flatMap(Self.standardBase64), let rounds = request.rounds,
                let memory = request.memoryCost
            else { throw AuthError("INVALID_HASH_ALGORITHM", "SCRYPT (Firebase's) needs signerKey, rounds and memoryCost") }
            // Firebase's own ranges (`auth:import --rounds 1-8 --mem-cost 1-14`); a hash made
            // with anything else could never be checked, and its users could never sign in.
            guard (1...8).contains(rounds) else { throw AuthError("INVALID_HASH_ROUNDS", "SCRYPT rounds must be 1-8") }
            guard (1...14).contains(memory) else { throw AuthError("INVALID_HASH_MEMORY_COST", "SCRYPT memoryCost must be 1-14") }
            guard let separator = Self.standardBase64(request.saltSeparator ?? "") else {
                throw AuthError("INVALID_HASH_SALT_SEPARATOR", "saltSeparator must be base64")
            }
            scrypt = FirebaseScryptParameters(signerKey: signer, saltSeparator: separator, rounds: Int(rounds), memoryCost: Int(memory))
        }
        return (scrypt, imported)
    }

    /// One user of an import as it will be stored, or an ``ImportRefusal`` saying what is wrong with it.
    private func importedUser(
        _ u: IdentityToolkit.UserImport, now: Int64, scrypt: FirebaseScryptParameters?, imported: ImportedHash?
    ) async throws -> UserRecord {
        if let wrong = u.invalidField { throw ImportRefusal(wrong.message) }
        guard let uid = u.localId, !uid.isEmpty, uid.utf8.count <= 128 else {
            throw ImportRefusal("localId is missing or invalid")
        }
        if let phone = u.phoneNumber, !Self.isValidPhone(phone) {
            throw ImportRefusal("phone number format is invalid")
        }
        var user = UserRecord(localId: uid, createdAt: u.createdAt ?? now, validSince: now / 1000)
        if let email = u.email {
            guard Self.isValidEmail(email) else {
                throw ImportRefusal("email is invalid")
            }
            user.email = email.lowercased()
        }
        user.emailVerified = u.emailVerified ?? false
        user.displayName = u.displayName
        user.photoUrl = u.photoUrl
        user.phoneNumber = u.phoneNumber
        user.disabled = u.disabled ?? false
        user.lastLoginAt = u.lastLoginAt
        if let attributes = u.customAttributes {
            do { try Self.checkCustomAttributes(attributes) } catch {
                throw ImportRefusal("\(error)")
            }
            user.customAttributes = attributes
        }
        // Linked identity providers (Google, Apple, …) travel with the user, so tokens keep
        // listing them in `firebase.identities`. `password` and `phone` are derived from the
        // email/password and phone fields, never stored as entries.
        for case let linked? in (u.providerUserInfo ?? []).map(ProviderInfo.init(request:)) where !linked.isDerived {
            user.linkedProviders.removeAll { $0.providerId == linked.providerId }
            user.linkedProviders.append(linked)
        }
        if let raw = u.rawPassword {
            let credentials = try await hasher.hash(raw)
            user.setPassword(credentials, at: now)
        } else if let hash = u.passwordHash {
            guard hash != UserRecord.redactedHash else {
                throw ImportRefusal("passwordHash is the redacted placeholder lookups show, not a hash")
            }
            guard scrypt != nil || imported != nil, let h = Self.standardBase64(hash), let salt = Self.standardBase64(u.salt ?? "")
            else {
                throw ImportRefusal("passwordHash needs a hashAlgorithm with its parameters (or import rawPassword)")
            }
            if let imported, !imported.accepts(hash: h) {
                throw ImportRefusal("passwordHash is not a \(imported.algorithm.rawValue) hash")
            }
            (user.passwordHash, user.salt, user.passwordCost, user.firebaseScrypt, user.importedHash) = (h, salt, nil, scrypt, imported)
        }
        return user
    }

    /// Who holds each provider identity the `users` link.
    func providerOwners(of users: [UserRecord], in tx: any AccountTransaction) throws -> [AccountIdentity: String] {
        var owners: [AccountIdentity: String] = [:]
        for identity in Set(users.flatMap(\.identities)) {
            if let owner = try self.user(linking: identity, in: tx) { owners[identity] = owner.localId }
        }
        return owners
    }

    /// Base64 or base64url text as standard base64; nil if it is neither.
    static func standardBase64(_ text: String) -> String? {
        Base64URL.decode(text).map { Data($0).base64EncodedString() }
    }

    // MARK: accounts:query

    /// `accounts:query` (admin): `recordsCount` and, unless `returnUserInfo` is false, one page (`limit` 1-500,
    /// `offset`) of accounts in uid order. The request's `expression` is type-checked but not applied as a filter.
    public func query(_ request: IdentityToolkit.QueryUserInfoRequest) async throws -> IdentityToolkit.QueryUserInfoResponse {
        // proto3: 0 is the same as unset.
        let limit = request.limit.flatMap { $0 == 0 ? nil : $0 } ?? 500
        let offset = request.offset ?? 0
        guard (1...500).contains(limit) else { throw AuthError("INVALID_ARGUMENT", "limit must be between 1 and 500") }
        guard (0...Int64(Int32.max)).contains(offset) else { throw AuthError("INVALID_ARGUMENT", "offset must be between 0 and \(Int32.max)") }
        let (start, pageSize) = (Int(offset), Int(limit))
        let returnUserInfo = request.returnUserInfo ?? true
        // Each expression names one account by `email`, `userId` or `phoneNumber`; several match any of them.
        var lookups: [(field: String, value: String)] = []
        for expression in request.expression ?? [] {
            let fields = [("email", expression.email), ("userId", expression.userId), ("phoneNumber", expression.phoneNumber)]
            let named = fields.compactMap { key, value in value.map { (key, $0) } }
            guard named.count == 1 else {
                throw AuthError("INVALID_ARGUMENT", "each expression names exactly one of email, userId or phoneNumber")
            }
            lookups.append(named[0])
        }
        let (count, rows): (Int, [AccountRow])
        if lookups.isEmpty {
            (count, rows) = try await store.transaction { tx in
                (try tx.accountCount(), returnUserInfo ? try tx.accounts(after: nil, limit: start + pageSize) : [])
            }
        } else {
            let lookups = lookups
            let matched = try await store.transaction { tx in
                var found: [String: AccountRow] = [:]
                for (field, value) in lookups {
                    let row = switch field {
                    case "email": try tx.account(email: value.lowercased())
                    case "userId": try tx.account(uid: value)
                    default: try tx.account(phoneNumber: value)
                    }
                    if let row { found[row.uid] = row }
                }
                return found.values.sorted { $0.uid < $1.uid }
            }
            (count, rows) = (matched.count, Array(matched.prefix(start + pageSize)))
        }
        return IdentityToolkit.QueryUserInfoResponse(
            count: count, userInfo: returnUserInfo ? try rows.dropFirst(start).compactMap { try load($0)?.userInfo } : nil)
    }

    // MARK: :createSessionCookie

    /// `:createSessionCookie` (admin): a session cookie for a valid `idToken`, lasting `validDuration` seconds
    /// (300 to 14 days, default 14 days): the token's claims re-signed with issuer
    /// `https://session.firebase.google.com/<project>`. Throws `INVALID_DURATION`, `MISSING_ID_TOKEN`, and the ID
    /// token's own errors.
    public func createSessionCookie(
        _ request: IdentityToolkit.CreateSessionCookieRequest
    ) async throws -> IdentityToolkit.CreateSessionCookieResponse {
        let now = clock()
        let duration = request.validDuration ?? 14 * 24 * 3600
        guard (300...1_209_600).contains(duration) else { throw AuthError("INVALID_DURATION") }
        guard let idToken = request.idToken, !idToken.isEmpty else { throw AuthError("MISSING_ID_TOKEN") }
        _ = try await store.transaction { tx in try self.user(forIDToken: idToken, in: tx, now: now) }
        guard case .object(var claims)? = keys.verifiedPayload(idToken) else { throw AuthError.invalidIDToken }
        claims.removeAll { ["iss", "iat", "exp"].contains($0.key) }
        claims.append(JSONMember("iss", .string("https://session.firebase.google.com/\(projectID)")))
        claims.append(JSONMember("iat", .int(now / 1000)))
        claims.append(JSONMember("exp", .int(now / 1000 + duration)))
        return IdentityToolkit.CreateSessionCookieResponse(sessionCookie: try key.sign(.object(claims)))
    }
}
