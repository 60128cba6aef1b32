import Foundation
import HearthCore
import HearthStore
public import HearthWire

// MARK: Phone: sendVerificationCode, signInWithPhoneNumber (sign-in, linking, temporary proofs)

extension AuthService {
    /// `accounts:sendVerificationCode`: texts a 6-digit code to the E.164 `phoneNumber` through ``sender`` and answers
    /// the `sessionInfo` that ``signInWithPhoneNumber(_:)`` takes with it. Throws `INVALID_PHONE_NUMBER`,
    /// `QUOTA_EXCEEDED` past ``Options/messagesPerRecipientPerHour`` for the number, and
    /// `TOO_MANY_ATTEMPTS_TRY_LATER` past ``Options/smsPerClientAddressPerHour`` for `clientAddress`.
    public func sendVerificationCode(_ request: IdentityToolkit.SendVerificationCodeRequest, clientAddress: String? = nil) async throws
        -> IdentityToolkit.SendVerificationCodeResponse
    {
        let now = clock()
        guard let phone = request.phoneNumber, Self.isValidPhone(phone) else {
            throw AuthError("INVALID_PHONE_NUMBER", "Invalid format.")
        }
        if let clientAddress, let smsAddressLimiter { try await smsAddressLimiter.reserve(clientAddress, now: now) }
        try await checkMessageQuota(phone, now: now, code: "QUOTA_EXCEEDED")
        var rng = SystemRandomNumberGenerator()
        let code = sixDigits(Int.random(in: 0..<1_000_000, using: &rng))
        let session = Self.randomCode(bytes: 48)
        try await codes.add(session, OneTimeCode(
            requestType: "PHONE", phoneNumber: phone, codeDigest: CodeBook.digest(code).base64EncodedString(), code: code, created: now))
        await deliver(OutgoingMessage(channel: .sms, to: phone, subject: "", body: "Your verification code is \(code)", purpose: "PHONE"))
        return IdentityToolkit.SendVerificationCodeResponse(sessionInfo: session)
    }

    static func isValidPhone(_ s: String) -> Bool {
        s.hasPrefix("+") && s.utf8.count >= 4 && s.utf8.count <= 20 && s.utf8.dropFirst().allSatisfy { (0x30...0x39).contains($0) }
    }

    /// The request type of the proofs a phone-link conflict answers with.
    static let temporaryProofType = "PHONE_PROOF"

    /// `accounts:signInWithPhoneNumber`: `sessionInfo` and `code` (or a `temporaryProof`) sign in to the account with
    /// that number, or a new one; with an `idToken` the number is linked to that user instead (a recent sign-in
    /// needed). When the number belongs to another account, linking answers a `temporaryProof` that signs in as
    /// that account. Wrong codes are counted and the session dropped after a few.
    public func signInWithPhoneNumber(
        _ request: IdentityToolkit.SignInWithPhoneNumberRequest
    ) async throws -> IdentityToolkit.SignInWithPhoneNumberResponse {
        let now = clock()
        // The session or proof is used up in the transaction that signs in, so a request that fails there (a bad
        // `idToken`, say) leaves it for a retry.
        let (phone, key, invalid): (String, String, String)
        if let proof = request.temporaryProof, !proof.isEmpty {
            let phoneNumber = try await redeemTemporaryProof(proof, phoneNumber: request.phoneNumber, now: now)
            (phone, key, invalid) = (phoneNumber, proof, "INVALID_TEMPORARY_PROOF")
        } else {
            (phone, key, invalid) = try await verifySMSCode(request, now: now)
        }
        return try await store.transaction { tx in
            guard try self.codes.take(key, now: now, in: tx) != nil else { throw AuthError(invalid) }
            var user: UserRecord
            var isNew = false
            var authTime: Int64?
            if let idToken = request.idToken {
                // A new way into an account that has one needs a recent sign-in: otherwise a stolen session could
                // link the thief's phone and sign in with it afresh.
                let signedInAt: Int64
                (user, signedInAt) = try self.session(forIDToken: idToken, in: tx, now: now, recentSignIn: true)
                let before = user
                if let other = try tx.account(phoneNumber: phone), other.uid != user.localId {
                    // The number belongs to someone else: Firebase answers with a temporary proof,
                    // which signs in as that owner (the client's credential-already-in-use path).
                    let proof = Self.randomCode(bytes: 32)
                    try self.codes.add(proof, OneTimeCode(requestType: Self.temporaryProofType, phoneNumber: phone, created: now), in: tx)
                    return IdentityToolkit.SignInWithPhoneNumberResponse(temporaryProof: proof, expiresIn: CodeBook.lifetime / 1000, phoneNumber: phone)
                }
                // Replacing the account's number (a phone user's only credential, say) is a credential change: it needs a
                // recent sign-in and ends the account's other sessions.
                if let previous = user.phoneNumber, previous != phone { user.validSince = now / 1000 }
                user.phoneNumber = phone
                authTime = Self.authTime(keeping: signedInAt, before: before, after: user)
            } else {
                let owner = try tx.account(phoneNumber: phone)
                // Re-authenticating (`operation: REAUTH`, what the SDKs send before a sensitive change) proves who the
                // user is; it never makes a new account.
                if owner == nil, request.operation == "REAUTH" { throw AuthError.userNotFound }
                (user, isNew) = try self.existingOrNewUser(owner, now: now)
                user.phoneNumber = phone
            }
            user.lastLoginAt = now
            let tokens = try self.issueTokens(for: &user, provider: "phone", in: tx, now: now, authTime: authTime)
            try self.save(user, in: tx, mustBeNew: isNew)
            return IdentityToolkit.SignInWithPhoneNumberResponse(isNewUser: isNew, phoneNumber: phone, localId: user.localId, tokens: tokens)
        }
    }

    /// A temporary proof stands for a verified SMS code for its number: once, within the hour
    /// `temporaryProofExpiresIn` announced. A proof for another number is refused and kept.
    /// Returns the number; the caller uses the proof up.
    private func redeemTemporaryProof(_ proof: String, phoneNumber: String?, now: Int64) async throws -> String {
        guard let phone = phoneNumber, !phone.isEmpty else { throw AuthError("MISSING_PHONE_NUMBER") }
        guard let record = try await codes.peek(proof, now: now), record.requestType == Self.temporaryProofType, record.phoneNumber == phone else {
            throw AuthError("INVALID_TEMPORARY_PROOF")
        }
        return phone
    }

    /// Checks `{sessionInfo, code}`; returns the session's number, the session (for the caller to use up) and the
    /// error for a session that is gone by then.
    private func verifySMSCode(_ request: IdentityToolkit.SignInWithPhoneNumberRequest, now: Int64) async throws -> (String, String, String) {
        guard let session = request.sessionInfo, !session.isEmpty else { throw AuthError("MISSING_SESSION_INFO") }
        guard let code = request.code, !code.isEmpty else { throw AuthError("MISSING_CODE") }
        guard let record = try await codes.peek(session, now: now), record.requestType == "PHONE", let phone = record.phoneNumber,
            let digest = record.codeDigest.flatMap({ Data(base64Encoded: $0) })
        else {
            throw AuthError("INVALID_SESSION_INFO")
        }
        guard constantTimeEqual(Array(CodeBook.digest(code)), Array(digest)) else {
            try await codes.recordWrongGuess(session)
            throw AuthError("INVALID_CODE")
        }
        return (phone, session, "INVALID_SESSION_INFO")
    }
}

/// `n` as six digits with leading zeros.
func sixDigits(_ n: Int) -> String {
    let digits = "\(n)"
    return String(repeating: "0", count: max(0, 6 - digits.count)) + digits
}
