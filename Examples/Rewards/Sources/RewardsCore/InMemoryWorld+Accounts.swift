import Foundation

/// Accounts: what the auth server does for ``InMemorySession``.
extension InMemoryWorld {
    func startTrial(_ device: String) throws(AppError) -> String {
        try checkFailure()
        if let uid = sessions[device] { return uid }
        let uid = newID("u")
        accounts[uid] = Account(createdAt: now())
        sessions[device] = uid
        // What the server's user-created trigger does: an empty wallet and the trial tier.
        wallets[uid] = 0
        tiers[uid] = .trial
        tokenTiers[device] = .trial
        return uid
    }

    func sendPhoneCode(to phoneNumber: String) throws(AppError) -> String {
        try checkFailure()
        let digits = phoneNumber.dropFirst()
        guard phoneNumber.hasPrefix("+"), (8...15).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw .invalidInput("Enter the phone number with its country code, like +15555550100.")
        }
        let verificationID = newID("v")
        let code = String(100_000 + (nextID * 7919) % 900_000)  // six digits
        phoneCodes[verificationID] = (phoneNumber, code)
        texts[phoneNumber] = code
        return verificationID
    }

    func linkPhone(_ device: String, verificationID: String, code: String) throws(AppError) -> String {
        try checkFailure()
        let uid = try signedIn(device)
        guard let pending = phoneCodes[verificationID], pending.code == code else { throw .wrongCode }
        if accounts.contains(where: { $0.key != uid && $0.value.phoneNumber == pending.phone }) { throw .credentialInUse }
        phoneCodes[verificationID] = nil
        accounts[uid]?.phoneNumber = pending.phone
        return uid
    }

    func sendEmailLink(to email: String, continueURL: URL) throws(AppError) {
        try checkFailure()
        let address = email.lowercased()
        guard address.split(separator: "@").count == 2, !address.hasPrefix("@"), !address.hasSuffix("@") else {
            throw .invalidInput("Enter a valid email address.")
        }
        let code = newID("oob")
        emailCodes[code] = address
        var link = URLComponents(url: continueURL, resolvingAgainstBaseURL: false) ?? URLComponents()
        link.queryItems = (link.queryItems ?? []) + [URLQueryItem(name: "mode", value: "signIn"), URLQueryItem(name: "oobCode", value: code)]
        mails[address] = link.url
    }

    func linkEmail(_ device: String, email: String, link: URL) throws(AppError) -> String {
        try checkFailure()
        let uid = try signedIn(device)
        let address = email.lowercased()
        let items = URLComponents(url: link, resolvingAgainstBaseURL: false)?.queryItems ?? []
        guard items.last(where: { $0.name == "mode" })?.value == "signIn", let code = items.last(where: { $0.name == "oobCode" })?.value,
            emailCodes[code] == address
        else { throw .wrongCode }
        if accounts.contains(where: { $0.key != uid && $0.value.email == address }) { throw .credentialInUse }
        emailCodes[code] = nil
        accounts[uid]?.email = address
        return uid
    }

    func link(_ device: String, _ token: IdentityToken) throws(AppError) -> String {
        try checkFailure()
        let uid = try signedIn(device)
        guard !token.idToken.isEmpty else { throw .failed("The \(token.provider.rawValue) token was refused.") }
        let provider = token.provider.rawValue
        if accounts[uid]?.providers[provider] != nil { return uid }
        if accounts.contains(where: { $0.key != uid && $0.value.providers[provider] == token.idToken }) { throw .credentialInUse }
        accounts[uid]?.providers[provider] = token.idToken
        return uid
    }

    func refreshToken(_ device: String) throws(AppError) -> Tier {
        try checkFailure()
        let uid = try signedIn(device)
        let tier = tiers[uid] ?? .trial
        tokenTiers[device] = tier
        return tier
    }

    func currentTier(_ device: String) -> Tier { sessions[device] == nil ? .trial : tokenTiers[device] ?? .trial }

    func signOut(_ device: String) {
        sessions[device] = nil
        tokenTiers[device] = nil
    }

    func profile(_ uid: String, device: String) throws(AppError) -> Profile? {
        try owned(uid, device)
        return profiles[uid]
    }

    func saveProfile(_ profile: Profile, for uid: String, device: String) throws(AppError) {
        try owned(uid, device)
        profiles[uid] = profile
        // The server's profile trigger works the tier out again.
        recomputeTier(uid)
    }
}
