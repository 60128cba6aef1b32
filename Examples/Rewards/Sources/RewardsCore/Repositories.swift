import Foundation

/// Google or Apple, the providers that make an account `pro`.
public enum IdentityProvider: String, Codable, Sendable, Hashable, CaseIterable {
    /// Google Sign-In.
    case google = "google.com"
    /// Sign in with Apple.
    case apple = "apple.com"
}

/// What Google Sign-In or Sign in with Apple gave the app, to link to the current account.
public struct IdentityToken: Sendable, Hashable {
    /// Whose token.
    public var provider: IdentityProvider
    /// The provider's ID token (a JWT).
    public var idToken: String
    /// Sign in with Apple's raw nonce (its SHA-256 went into the request); nil for Google.
    public var rawNonce: String?

    /// A token of `provider`.
    public init(provider: IdentityProvider, idToken: String, rawNonce: String? = nil) {
        self.provider = provider
        self.idToken = idToken
        self.rawNonce = rawNonce
    }

    /// Google Sign-In's `GIDGoogleUser.idToken`.
    public static func google(idToken: String) -> IdentityToken { IdentityToken(provider: .google, idToken: idToken) }

    /// Sign in with Apple's `identityToken` (as UTF-8 text) and the raw nonce of the request.
    public static func apple(idToken: String, rawNonce: String?) -> IdentityToken {
        IdentityToken(provider: .apple, idToken: idToken, rawNonce: rawNonce)
    }
}

/// The account on this device: trial start, credentials linked to it (the uid never changes, so coins stay), and
/// the tier claim of its ID token.
///
/// ```swift
/// let uid = try await session.startTrial()
/// let verification = try await session.sendPhoneCode(to: "+15555550100")
/// try await session.linkPhone(verificationID: verification, code: "123456")   // same uid
/// ```
public protocol SessionRepository: Sendable {
    /// The signed-in user's id, if any.
    func currentUserID() async -> String?
    /// Signs in anonymously (a `trial` account); a user already signed in stays, and their uid is returned.
    func startTrial() async throws(AppError) -> String
    /// Texts a code to `phoneNumber` (E.164); returns the verification id ``linkPhone(verificationID:code:)`` needs.
    func sendPhoneCode(to phoneNumber: String) async throws(AppError) -> String
    /// Adds the phone number the code verifies to the current account; returns its (unchanged) uid. Throws
    /// ``AppError/wrongCode`` or ``AppError/credentialInUse``.
    func linkPhone(verificationID: String, code: String) async throws(AppError) -> String
    /// Emails `email` a sign-in link that leads to `continueURL`.
    func sendEmailLink(to email: String, continueURL: URL) async throws(AppError)
    /// Adds the email of an opened sign-in link to the current account (a verified email); returns its uid.
    func linkEmail(_ email: String, link: URL) async throws(AppError) -> String
    /// Links a Google or Apple account to the current account; returns its uid. An account that already has that
    /// provider linked keeps it and this succeeds: one link is all the tier needs.
    func link(_ token: IdentityToken) async throws(AppError) -> String
    /// Fetches a new ID token (call after `refreshTier`) and returns the tier claim it carries (`trial` without one).
    func refreshToken() async throws(AppError) -> Tier
    /// The tier claim of the current ID token, without asking for a new one; `trial` when there is none.
    func currentTier() async -> Tier
    /// Forgets the account on this device (an anonymous account cannot be signed back into).
    func signOut() async
}

/// Campaigns (`/campaigns`, `/campaignStats`).
public protocol CampaignRepository: Sendable {
    /// The campaigns of `context`, running or not, soonest ending first.
    func campaigns(in context: Context) async throws(AppError) -> [Campaign]
    /// One campaign; nil if there is none with that id.
    func campaign(_ id: String) async throws(AppError) -> Campaign?
    /// What a campaign has paid so far (zeros before its first award).
    func stats(of campaignID: String) async throws(AppError) -> CampaignStats
}

/// The home pages of each context (`/pages/{context}`).
public protocol PageRepository: Sendable {
    /// The pages of `context`, in order (empty when there are none).
    func pages(of context: Context) async throws(AppError) -> [Page]
}

/// The user's coins (`/wallets/{uid}`) and their movements (`/ledger/{uid}`).
public protocol WalletRepository: Sendable {
    /// The wallet now (zero coins before the first award).
    func wallet(of uid: String) async throws(AppError) -> Wallet
    /// The wallet, again after every change, until the consumer stops.
    func walletUpdates(of uid: String) -> AsyncThrowingStream<Wallet, any Error>
    /// The newest `limit` ledger entries, newest first.
    func ledger(of uid: String, limit: Int) async throws(AppError) -> [LedgerEntry]
}

/// The server functions (callables) that move coins and tiers; everything they refuse arrives as an ``AppError``.
///
/// ```swift
/// let outcome = try await rewards.shake(campaignID: "spring-tv", proof: .watermark("WM-1"))
/// // or AppError.shakeRefused(.cooldown(retryAfterSeconds: 42))
/// ```
public protocol RewardsService: Sendable {
    /// `shake`: pays the campaign's coins for a proof, within its limits; refusals are ``AppError/shakeRefused(_:)``.
    func shake(campaignID: String, proof: ShakeProof) async throws(AppError) -> ShakeOutcome
    /// `redeem`: buys a catalogue item (stock and coins move together); ``AppError/outOfStock``,
    /// ``AppError/insufficientCoins``, ``AppError/notFound``.
    func redeem(itemID: String) async throws(AppError) -> RedeemOutcome
    /// `refreshTier`: recomputes the caller's tier from their account and profile.
    func refreshTier() async throws(AppError) -> Tier
    /// `createInvite`: the caller's invite link (the same on every call).
    func createInvite() async throws(AppError) -> URL
    /// `redeemInvite`: pays both sides once per invitee; refusals are ``AppError/inviteRefused(_:)``.
    func redeemInvite(inviter: String) async throws(AppError) -> InviteOutcome
    /// The deep link behind a short link the app was opened with (the server's `reopenAttribution`); nil for a
    /// link the server does not know.
    func deepLink(behind shortLink: URL) async throws(AppError) -> URL?
}

/// The catalogue (`/catalog`) and the user's redemptions (`/redemptions/{uid}`).
public protocol CatalogRepository: Sendable {
    /// Every item, cheapest first.
    func items() async throws(AppError) -> [CatalogItem]
    /// One item; nil if there is none with that id.
    func item(_ id: String) async throws(AppError) -> CatalogItem?
    /// The user's redemptions, newest first.
    func redemptions(of uid: String) async throws(AppError) -> [Redemption]
}

/// Profiles (`/profiles/{uid}`), written by their owner.
public protocol ProfileRepository: Sendable {
    /// The user's profile, nil before they saved one.
    func profile(of uid: String) async throws(AppError) -> Profile?
    /// Replaces the user's profile.
    func save(_ profile: Profile, for uid: String) async throws(AppError)
}

/// Every repository the app uses, so screens take one value (Hearth-backed in the app, in memory in tests).
public struct Repositories: Sendable {
    /// The account on this device.
    public var session: any SessionRepository
    /// Campaigns and their stats.
    public var campaigns: any CampaignRepository
    /// Home pages.
    public var pages: any PageRepository
    /// Wallet and ledger.
    public var wallets: any WalletRepository
    /// The callables.
    public var rewards: any RewardsService
    /// Catalogue and redemptions.
    public var catalog: any CatalogRepository
    /// Profiles.
    public var profiles: any ProfileRepository

    /// Repositories from their parts.
    public init(
        session: any SessionRepository, campaigns: any CampaignRepository, pages: any PageRepository, wallets: any WalletRepository,
        rewards: any RewardsService, catalog: any CatalogRepository, profiles: any ProfileRepository
    ) {
        self.session = session
        self.campaigns = campaigns
        self.pages = pages
        self.wallets = wallets
        self.rewards = rewards
        self.catalog = catalog
        self.profiles = profiles
    }
}
