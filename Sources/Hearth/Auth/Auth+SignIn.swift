import Foundation
import HearthWire

extension Auth {
    // MARK: Sign-in

    /// Creates an email + password account and signs in as it.
    ///
    /// Throws ``AuthError`` `.emailAlreadyInUse`, `.invalidEmail`, `.weakPassword` (under 6 characters), …
    @discardableResult
    public func signUp(email: String, password: String) async throws -> User {
        let answer: IdentityToolkit.SignUpResponse = try await client.call(
            "signUp", IdentityToolkit.SignUpRequest(email: email, password: password, returnSecureToken: true))
        return try await start(answer)
    }

    /// Signs in with an email and password.
    ///
    /// Throws ``AuthError`` `.userNotFound`, `.wrongPassword` (or `.invalidCredential` on servers
    /// with email privacy), `.userDisabled`, `.tooManyRequests`, …
    @discardableResult
    public func signIn(email: String, password: String) async throws -> User {
        let answer: IdentityToolkit.SignInWithPasswordResponse = try await client.call(
            "signInWithPassword", IdentityToolkit.SignInWithPasswordRequest(email: email, password: password, returnSecureToken: true))
        return try await start(answer)
    }

    /// Signs in as a new anonymous user. Link a credential later with ``link(email:password:)``
    /// or ``link(verificationID:code:)`` to keep its uid and data.
    @discardableResult
    public func signInAnonymously() async throws -> User {
        let answer: IdentityToolkit.SignUpResponse = try await client.call("signUp", IdentityToolkit.SignUpRequest(returnSecureToken: true))
        return try await start(answer)
    }

    /// Sends an SMS code to `phoneNumber` (E.164, `+15555550100`); returns the verification id
    /// to pass to ``signIn(verificationID:code:)`` or ``link(verificationID:code:)`` with the code.
    public func sendPhoneVerificationCode(phoneNumber: String) async throws -> String {
        let answer: IdentityToolkit.SendVerificationCodeResponse = try await client.call(
            "sendVerificationCode", IdentityToolkit.SendVerificationCodeRequest(phoneNumber: phoneNumber))
        return answer.sessionInfo
    }

    /// Signs in (creating the account if new) with the SMS code sent for `verificationID`.
    ///
    /// Throws ``AuthError`` `.invalidVerificationCode`, `.invalidVerificationID`, `.sessionExpired`.
    @discardableResult
    public func signIn(verificationID: String, code: String) async throws -> User {
        let answer: IdentityToolkit.SignInWithPhoneNumberResponse = try await client.call(
            "signInWithPhoneNumber", IdentityToolkit.SignInWithPhoneNumberRequest(sessionInfo: verificationID, code: code))
        return try await start(answer)
    }

    /// Signs in as the account that has the phone number a failed ``link(verificationID:code:)``
    /// verified (its error's ``AuthError/phoneProof``), without sending a new code. The current
    /// user (for example an anonymous trial user) is replaced.
    ///
    /// Throws ``AuthError`` `.invalidVerificationID` when the proof was used or has expired.
    @discardableResult
    public func signIn(phoneProof: PhoneProof) async throws -> User {
        let answer: IdentityToolkit.SignInWithPhoneNumberResponse = try await client.call(
            "signInWithPhoneNumber",
            IdentityToolkit.SignInWithPhoneNumberRequest(phoneNumber: phoneProof.phoneNumber, temporaryProof: phoneProof.temporaryProof))
        return try await start(answer)
    }

    /// Signs in with a custom token minted by your backend with an admin SDK.
    @discardableResult
    public func signIn(customToken: String) async throws -> User {
        let answer: IdentityToolkit.SignInWithCustomTokenResponse = try await client.call(
            "signInWithCustomToken", IdentityToolkit.SignInWithCustomTokenRequest(token: customToken, returnSecureToken: true))
        return try await start(answer)
    }

    // MARK: Linking

    /// Adds an email + password to the current (for example anonymous) user. The uid stays.
    ///
    /// Throws ``AuthError`` `.notSignedIn`, `.emailAlreadyInUse`, `.weakPassword`, and
    /// `.requiresRecentLogin` when a user who is not anonymous signed in too long ago (a server
    /// outside `--dev`; ``reauthenticate(verificationID:code:)`` and retry), …
    @discardableResult
    public func link(email: String, password: String) async throws -> User {
        let (answer, epoch) = try await withToken { token -> IdentityToolkit.SignUpResponse in
            try await client.call(
                "signUp", IdentityToolkit.SignUpRequest(email: email, password: password, idToken: token, returnSecureToken: true))
        }
        return try await refreshUser(epoch: epoch, tokens: answer)
    }

    /// Adds the phone number verified by `code` to the current user. The uid stays.
    ///
    /// Throws ``AuthError`` `.credentialAlreadyInUse` when the number belongs to another account;
    /// the error's ``AuthError/phoneProof`` signs in as that account with ``signIn(phoneProof:)``.
    /// `.requiresRecentLogin` when a user who is not anonymous signed in too long ago (a server
    /// outside `--dev`; reauthenticate and retry).
    @discardableResult
    public func link(verificationID: String, code: String) async throws -> User {
        let (answer, epoch) = try await withToken { token -> IdentityToolkit.SignInWithPhoneNumberResponse in
            try await client.call(
                "signInWithPhoneNumber", IdentityToolkit.SignInWithPhoneNumberRequest(sessionInfo: verificationID, code: code, idToken: token))
        }
        if let proof = answer.temporaryProof, answer.idToken == nil {
            var error = AuthError(code: .credentialAlreadyInUse, message: "The phone number is already used by another account.", status: 200)
            if let phoneNumber = answer.phoneNumber { error.phoneProof = PhoneProof(phoneNumber: phoneNumber, temporaryProof: proof) }
            throw error
        }
        return try await refreshUser(epoch: epoch, tokens: answer)
    }

    // MARK: Internals

    /// Starts the session a sign-in answered with: reads the full user, then tells observers.
    func start(_ answer: some IdentityToolkit.SessionAnswer) async throws -> User {
        guard let idToken = answer.idToken, let refreshToken = answer.refreshToken else { throw AuthError.invalidResponse(status: 200) }
        let expiresAt = clock().addingTimeInterval(answer.expiresIn.flatMap(TimeInterval.init) ?? 3600)
        let user = try await lookup(idToken)
        begin(AuthSession(user: user, idToken: idToken, refreshToken: refreshToken, expiresAt: expiresAt))
        return user
    }

    /// `accounts:lookup` for the user of `idToken`.
    func lookup(_ idToken: String) async throws -> User {
        let answer: IdentityToolkit.GetAccountInfoResponse = try await client.call("lookup", IdentityToolkit.GetAccountInfoRequest(idToken: idToken))
        guard let info = answer.users?.first else { throw AuthError(serverMessage: "USER_NOT_FOUND", status: 400) }
        return info.user
    }

    /// Re-reads the user of the session started in `epoch`, adopting `tokens` if the server
    /// sent new ones (after linking, or an email or password change that revoked the old ones).
    func refreshUser(epoch: UInt64, tokens: (any IdentityToolkit.SessionAnswer)? = nil) async throws -> User {
        let received = clock()
        let fresh: (idToken: String, refreshToken: String)? =
            if let idToken = tokens?.idToken, let refreshToken = tokens?.refreshToken { (idToken, refreshToken) } else { nil }
        let user: User
        if let fresh {
            // The new tokens first: a refresh with the old refresh token that fails meanwhile (the change revoked it)
            // must find them, or it would end the session.
            try amend(epoch: epoch) { session in
                session.idToken = fresh.idToken
                session.refreshToken = fresh.refreshToken
                session.expiresAt = received.addingTimeInterval(tokens?.expiresIn.flatMap(TimeInterval.init) ?? 3600)
            }
            user = try await lookup(fresh.idToken)
        } else {
            user = try await withToken { token in try await lookup(token) }.result
        }
        try amend(epoch: epoch) { session in session.user = user }
        return user
    }
}
