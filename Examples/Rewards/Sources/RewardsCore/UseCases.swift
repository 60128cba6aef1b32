import Foundation

/// A phone number a code was texted to, and the id the code is checked with.
public struct PhoneVerification: Sendable, Hashable {
    /// The number, in E.164 (`+15555550100`).
    public var phoneNumber: String
    /// What ``SessionRepository/sendPhoneCode(to:)`` returned.
    public var verificationID: String

    /// A verification in progress.
    public init(phoneNumber: String, verificationID: String) {
        self.phoneNumber = phoneNumber
        self.verificationID = verificationID
    }
}

/// What the user types to become `pro` without Google or Apple, with its checks.
public struct ProfileForm: Sendable, Hashable {
    /// The form's fields, to show a problem next to its field.
    public enum Field: String, Sendable, Hashable, CaseIterable {
        /// ``ProfileForm/firstName``.
        case firstName
        /// ``ProfileForm/lastName``.
        case lastName
        /// ``ProfileForm/birthDate``.
        case birthDate
    }

    /// Given name.
    public var firstName: String
    /// Family name.
    public var lastName: String
    /// `YYYY-MM-DD`.
    public var birthDate: String

    /// A form, empty by default.
    public init(firstName: String = "", lastName: String = "", birthDate: String = "") {
        self.firstName = firstName
        self.lastName = lastName
        self.birthDate = birthDate
    }

    /// What is wrong, by field (empty when the form can be saved), judged at `now`.
    public func problems(now: Date = Date()) -> [Field: String] {
        var problems: [Field: String] = [:]
        if !Profile.isValidName(firstName) { problems[.firstName] = "Enter your first name (at most \(Profile.maxNameLength) characters)." }
        if !Profile.isValidName(lastName) { problems[.lastName] = "Enter your last name (at most \(Profile.maxNameLength) characters)." }
        if !Profile.isValidBirthDate(birthDate.trimmingCharacters(in: .whitespaces), now: now) {
            problems[.birthDate] = "Enter your birth date as YYYY-MM-DD, a real day in the past."
        }
        return problems
    }
}

/// The app's actions, over any `Repositories` (Hearth-backed or in memory).
///
/// ```swift
/// let useCases = UseCases(.hearth(app))
/// _ = try await useCases.startTrial()
/// let outcome = try await useCases.shake(campaign, proof: .barcode("4006381333931"))
/// ```
public struct UseCases: Sendable {
    /// Where the data comes from.
    public let repositories: Repositories
    /// The clock birth dates are judged by.
    public let now: @Sendable () -> Date
    /// Ledger entries the wallet screen shows.
    public static let ledgerLimit = 50

    /// Use cases over `repositories`; `now` is injectable for tests.
    public init(_ repositories: Repositories, now: @escaping @Sendable () -> Date = { Date() }) {
        self.repositories = repositories
        self.now = now
    }

    func signedIn() async throws(AppError) -> String {
        guard let uid = await repositories.session.currentUserID() else { throw .notSignedIn }
        return uid
    }

    // MARK: Trial and home

    /// Starts the anonymous trial (or keeps the account already on this device); returns the uid.
    public func startTrial() async throws(AppError) -> String { try await repositories.session.startTrial() }

    /// The pages of `context` with only the cards this version can show; pages left without cards are dropped.
    public func homePages(for context: Context) async throws(AppError) -> [Page] {
        try await repositories.pages.pages(of: context).map { Page(cards: $0.supportedCards) }.filter { !$0.cards.isEmpty }
    }

    /// The campaigns of `context`, soonest ending first.
    public func campaigns(in context: Context) async throws(AppError) -> [Campaign] { try await repositories.campaigns.campaigns(in: context) }

    // MARK: Coins

    /// Shakes for `campaign`: checks the proof here first (kind, EAN-13 check digits, …), then asks the server.
    /// A refusal is ``AppError/shakeRefused(_:)``.
    public func shake(_ campaign: Campaign, proof: ShakeProof) async throws(AppError) -> ShakeOutcome {
        do {
            try proof.validate(for: campaign.context)
        } catch {
            throw .shakeRefused(error)
        }
        _ = try await signedIn()
        return try await repositories.rewards.shake(campaignID: campaign.id, proof: proof)
    }

    /// The balance and the newest ``ledgerLimit`` movements, newest first.
    public func statement() async throws(AppError) -> WalletStatement {
        let uid = try await signedIn()
        let wallet = try await repositories.wallets.wallet(of: uid)
        return WalletStatement(wallet: wallet, ledger: try await repositories.wallets.ledger(of: uid, limit: Self.ledgerLimit))
    }

    /// Buys `item`; ``AppError/outOfStock``, ``AppError/insufficientCoins`` or ``AppError/notFound`` when it cannot be.
    public func redeem(_ item: CatalogItem) async throws(AppError) -> RedeemOutcome {
        _ = try await signedIn()
        return try await repositories.rewards.redeem(itemID: item.id)
    }

    // MARK: Tiers

    /// `phone` in E.164 (`+` and 8–15 digits; spaces, dashes, dots and parentheses dropped; `00` read as `+`).
    public static func normalizedPhoneNumber(_ phone: String) -> String? {
        var text = phone.filter { !" -.()\u{00A0}".contains($0) }
        if text.hasPrefix("00") { text = "+" + text.dropFirst(2) }
        let digits = text.dropFirst()
        guard text.hasPrefix("+"), (8...15).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }), digits.first != "0" else {
            return nil
        }
        return text
    }

    /// Signed, step 1: texts a code to `phone`.
    public func sendPhoneCode(to phone: String) async throws(AppError) -> PhoneVerification {
        guard let number = Self.normalizedPhoneNumber(phone) else {
            throw .invalidInput("Enter your phone number with its country code, like +1 555 555 0100.")
        }
        _ = try await signedIn()
        return PhoneVerification(phoneNumber: number, verificationID: try await repositories.session.sendPhoneCode(to: number))
    }

    /// Signed, step 2: links the verified number to the trial account (same uid, coins kept), saves the gender,
    /// has the server recompute the tier and fetches the token that carries it. Returns the new tier.
    public func completeSignedUpgrade(_ verification: PhoneVerification, code: String, gender: Profile.Gender) async throws(AppError) -> Tier {
        let code = code.trimmingCharacters(in: .whitespaces)
        guard !code.isEmpty, code.allSatisfy({ $0.isASCII && $0.isNumber }) else { throw .invalidInput("Enter the code from the text message.") }
        _ = try await signedIn()
        let uid = try await repositories.session.linkPhone(verificationID: verification.verificationID, code: code)
        return try await saveGenderAndRefresh(gender, uid: uid)
    }

    /// Signed by email, step 1: emails a sign-in link that opens `continueURL`.
    public func sendEmailLink(to email: String, continueURL: URL) async throws(AppError) {
        let address = email.trimmingCharacters(in: .whitespaces)
        guard address.split(separator: "@").count == 2 else { throw .invalidInput("Enter a valid email address.") }
        _ = try await signedIn()
        try await repositories.session.sendEmailLink(to: address, continueURL: continueURL)
    }

    /// Signed by email, step 2: links the email of the opened `link`, then as ``completeSignedUpgrade(_:code:gender:)``.
    public func completeSignedUpgrade(email: String, link: URL, gender: Profile.Gender) async throws(AppError) -> Tier {
        _ = try await signedIn()
        let uid = try await repositories.session.linkEmail(email.trimmingCharacters(in: .whitespaces), link: link)
        return try await saveGenderAndRefresh(gender, uid: uid)
    }

    private func saveGenderAndRefresh(_ gender: Profile.Gender, uid: String) async throws(AppError) -> Tier {
        var profile = try await repositories.profiles.profile(of: uid) ?? Profile(gender: gender)
        profile.gender = gender
        try await repositories.profiles.save(profile, for: uid)
        return try await refreshTier()
    }

    /// `refreshTier`, then a new ID token so the claim (and the rules) see it; returns the token's tier.
    func refreshTier() async throws(AppError) -> Tier {
        _ = try await repositories.rewards.refreshTier()
        return try await repositories.session.refreshToken()
    }

    /// Pro by profile: a `signed` account saves its names and birth date. Throws ``AppError/invalidInput(_:)`` for
    /// a form with problems and ``AppError/tierTooLow(required:)`` before the account is signed.
    public func upgradeToPro(_ form: ProfileForm) async throws(AppError) -> Tier {
        let problems = form.problems(now: now())
        if let first = ProfileForm.Field.allCases.compactMap({ problems[$0] }).first { throw .invalidInput(first) }
        let uid = try await signedIn()
        var tier = await repositories.session.currentTier()
        if tier < .signed { tier = try await repositories.rewards.refreshTier() }
        guard tier >= .signed, var profile = try await repositories.profiles.profile(of: uid) else { throw .tierTooLow(required: .signed) }
        profile.firstName = form.firstName.trimmingCharacters(in: .whitespacesAndNewlines)
        profile.lastName = form.lastName.trimmingCharacters(in: .whitespacesAndNewlines)
        profile.birthDate = form.birthDate.trimmingCharacters(in: .whitespaces)
        try await repositories.profiles.save(profile, for: uid)
        return try await refreshTier()
    }

    /// Pro by provider: links Google or Apple to the account (same uid), then refreshes the tier.
    public func upgradeToPro(linking token: IdentityToken) async throws(AppError) -> Tier {
        _ = try await signedIn()
        _ = try await repositories.session.link(token)
        return try await refreshTier()
    }

    // MARK: Invites

    /// The user's invite link to share (the same every time).
    public func inviteLink() async throws(AppError) -> URL {
        _ = try await signedIn()
        return try await repositories.rewards.createInvite()
    }

    /// The screen a URL the app was opened with leads to: a deep link directly, a short link (an invite someone
    /// shared) through the server, which knows its deep link; nil for anything else.
    public func route(opening url: URL, links: DeepLinks = DeepLinks()) async throws(AppError) -> Route? {
        if let route = links.route(for: url) { return route }
        guard url.scheme?.lowercased() == "https", let deep = try await repositories.rewards.deepLink(behind: url) else { return nil }
        return links.route(for: deep)
    }

    /// Redeems the invite of `inviter` (from an invite deep link), starting the trial first on a fresh install.
    /// Refusals are ``AppError/inviteRefused(_:)`` (one's own link is refused here, without asking the server).
    public func openInvite(inviter: String) async throws(AppError) -> InviteOutcome {
        guard isKey(inviter) else { throw .inviteRefused(.invalidInviter) }
        let uid = try await repositories.session.startTrial()
        guard inviter != uid else { throw .inviteRefused(.ownInvite) }
        return try await repositories.rewards.redeemInvite(inviter: inviter)
    }
}
