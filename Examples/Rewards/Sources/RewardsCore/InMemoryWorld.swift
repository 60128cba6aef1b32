import Foundation
import HearthCore

/// A whole Rewards backend in memory — accounts, database and the callables — for unit tests and previews. It keeps
/// the server contract's rules (Examples/Rewards/README.md): cooldown, daily limit, budget and window of a campaign, its `minTier`, a
/// receipt paying once, stock and coins moving together, invites paid once per invitee and never to oneself; every
/// change of coins writes the wallet and a ledger entry together, and the balance never goes below zero. Each call is
/// one step of the actor, so concurrent calls behave as the server's atomic writes do.
///
/// It starts from a fixture in the database's layout (`campaigns`, `campaignProofs`, `campaignStats`, `catalog`,
/// `pages`; times in milliseconds since 1970) plus optional `settings` (`inviteReward`, default 50; `inviteMinTier`,
/// default `signed`, as on the server; `linkPrefix` of invite links). Several phones can use one world: each `device` has its own
/// session.
///
/// ```swift
/// let world = try InMemoryWorld(fixture: Data(contentsOf: url), clock: { clock.now })
/// let ann = UseCases(world.repositories(device: "ann"))
/// _ = try await ann.startTrial()
/// ```
public actor InMemoryWorld {
    struct Account {
        var createdAt: Date
        var phoneNumber: String?
        var email: String?
        /// Provider id (`google.com`) → the provider's account (here: the ID token given).
        var providers: [String: String] = [:]
    }

    struct ShakeState {
        var lastAt: Int64
        var day: Int64
        var count: Int
    }

    struct Settings: Decodable {
        var inviteReward: Int?
        var inviteMinTier: Tier?
        var linkPrefix: String?
    }

    /// `/campaignProofs/{campaignId}` as an admin writes it.
    struct ProofSpec: Decodable {
        var watermarks: [String]?
        var answers: [String: String]?
        var videoId: String?
        var minSeconds: Double?
        var products: [String]?
        var merchants: [String]?
    }

    struct Fixture: Decodable {
        var settings: Settings?
        var campaigns: [String: Campaign]?
        var campaignProofs: [String: ProofSpec]?
        var campaignStats: [String: CampaignStats]?
        var catalog: [String: CatalogItem]?
        var pages: [String: OrderedList<Page>]?
    }

    let clock: @Sendable () -> Date
    let inviteReward: Int
    let inviteMinTier: Tier
    let linkPrefix: String

    var accounts: [String: Account] = [:]
    /// Device → signed-in uid.
    var sessions: [String: String] = [:]
    /// Device → the `tier` claim of its current ID token.
    var tokenTiers: [String: Tier] = [:]
    /// Verification id → (phone number, code).
    var phoneCodes: [String: (phone: String, code: String)] = [:]
    /// Phone number → the last code texted to it.
    var texts: [String: String] = [:]
    /// Email code → email.
    var emailCodes: [String: String] = [:]
    /// Email → the last sign-in link sent to it.
    var mails: [String: URL] = [:]

    var campaigns: [String: Campaign] = [:]
    var proofs: [String: ProofSpec] = [:]
    var stats: [String: CampaignStats] = [:]
    var pages: [Context: [Page]] = [:]
    var catalog: [String: CatalogItem] = [:]
    var wallets: [String: Int] = [:]
    var ledger: [String: [LedgerEntry]] = [:]
    var redemptions: [String: [Redemption]] = [:]
    var profiles: [String: Profile] = [:]
    var tiers: [String: Tier] = [:]
    var shakes: [String: [String: ShakeState]] = [:]
    var receipts: [String: (uid: String, campaignId: String, at: Date)] = [:]
    var invites: [String: (inviter: String, at: Date)] = [:]
    var inviteLinks: [String: (shortLink: URL, createdAt: Date)] = [:]

    var nextID = 0
    var failure: AppError?
    private var walletWatchers: [String: [UUID: AsyncThrowingStream<Wallet, any Error>.Continuation]] = [:]

    /// A world holding `fixture` (JSON, see above); `clock` tells the time (inject one to test cooldowns and windows).
    ///
    /// Throws ``AppError/invalidInput(_:)`` when the fixture does not decode.
    public init(fixture: Data, clock: @escaping @Sendable () -> Date = { Date() }) throws(AppError) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        let data: Fixture
        do {
            data = try decoder.decode(Fixture.self, from: fixture)
        } catch {
            throw .invalidInput("The fixture does not decode: \(error)")
        }
        self.clock = clock
        inviteReward = data.settings?.inviteReward ?? 50
        inviteMinTier = data.settings?.inviteMinTier ?? .signed
        linkPrefix = data.settings?.linkPrefix ?? "https://links.rewards.example.com"
        for (id, campaign) in data.campaigns ?? [:] {
            var campaign = campaign
            campaign.id = id
            campaigns[id] = campaign
        }
        proofs = data.campaignProofs ?? [:]
        stats = data.campaignStats ?? [:]
        for (id, item) in data.catalog ?? [:] {
            var item = item
            item.id = id
            catalog[id] = item
        }
        for (name, list) in data.pages ?? [:] {
            if let context = Context(rawValue: name) { pages[context] = list.items }
        }
    }

    /// The repositories a phone named `device` uses; phones with different names have their own sessions.
    public nonisolated func repositories(device: String = "phone") -> Repositories {
        Repositories(
            session: InMemorySession(world: self, device: device), campaigns: InMemoryCampaigns(world: self, device: device),
            pages: InMemoryPages(world: self, device: device), wallets: InMemoryWallets(world: self, device: device),
            rewards: InMemoryRewards(world: self, device: device), catalog: InMemoryCatalog(world: self, device: device),
            profiles: InMemoryProfiles(world: self, device: device))
    }

    /// The next call of any repository fails with `error` (offline, denied, …).
    public func failNextWith(_ error: AppError) { failure = error }

    /// The last SMS code texted to `phoneNumber`, as the user would read it.
    public func sentCode(to phoneNumber: String) -> String? { texts[phoneNumber] }

    /// The last sign-in link emailed to `email`, as the user would open it.
    public func sentLink(to email: String) -> URL? { mails[email.lowercased()] }

    /// An administrator's correction (`adjust` in the ledger, `reason` as its ref); never below zero. Returns the
    /// new balance; throws ``AppError/insufficientCoins`` for a debit past zero.
    @discardableResult
    public func adjust(_ amount: Int, for uid: String, reason: String) throws(AppError) -> Int {
        try move(amount, of: uid, kind: .adjust, ref: reason, id: newID("a"))
    }

    /// The tier last published for `uid` (`/tiers/{uid}`), as the server reads it.
    public func storedTier(of uid: String) -> Tier { tiers[uid] ?? .trial }

    // MARK: Shared

    func checkFailure() throws(AppError) {
        if let failure {
            self.failure = nil
            throw failure
        }
    }

    func now() -> Date { clock() }

    func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    /// A new id: `prefix` and a counter, so ids sort in the order they were made.
    func newID(_ prefix: String) -> String {
        nextID += 1
        let digits = String(nextID)
        return prefix + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    func signedIn(_ device: String) throws(AppError) -> String {
        guard let uid = sessions[device] else { throw .notSignedIn }
        return uid
    }

    /// Reads allowed to signed-in users (campaigns, catalogue, pages): the rules deny everyone else.
    func readable(_ device: String) throws(AppError) {
        try checkFailure()
        guard sessions[device] != nil else { throw .permissionDenied }
    }

    /// Reads and writes allowed to the owner of `uid`'s data only.
    func owned(_ uid: String, _ device: String) throws(AppError) {
        try checkFailure()
        guard sessions[device] == uid else { throw .permissionDenied }
    }

    /// Moves `amount` coins (negative: spent) in the wallet and the ledger together; refuses a balance below zero.
    @discardableResult
    func move(_ amount: Int, of uid: String, kind: LedgerEntry.Kind, ref: String, id: String) throws(AppError) -> Int {
        let balance = wallets[uid] ?? 0
        guard balance + amount >= 0 else { throw .insufficientCoins }
        wallets[uid] = balance + amount
        ledger[uid, default: []].append(LedgerEntry(id: id, amount: amount, kind: kind, ref: ref, at: now()))
        for (_, continuation) in walletWatchers[uid] ?? [:] { continuation.yield(Wallet(coins: balance + amount)) }
        return balance + amount
    }

    func watchWallet(_ uid: String, device: String, _ continuation: AsyncThrowingStream<Wallet, any Error>.Continuation) {
        do {
            try owned(uid, device)
        } catch {
            continuation.finish(throwing: error)
            return
        }
        let id = UUID()
        walletWatchers[uid, default: [:]][id] = continuation
        continuation.yield(Wallet(coins: wallets[uid] ?? 0))
        continuation.onTermination = { _ in Task { await self.unwatchWallet(uid, id) } }
    }

    func unwatchWallet(_ uid: String, _ id: UUID) { walletWatchers[uid]?[id] = nil }

    /// The server's tier rule: pro with Google or Apple linked, or verified with gender, names and birth date;
    /// signed when verified with a gender; trial otherwise. Published at `/tiers/{uid}` (not yet in any token).
    @discardableResult
    func recomputeTier(_ uid: String) -> Tier {
        guard let account = accounts[uid] else { return .trial }
        let tier: Tier
        if !Set(account.providers.keys).isDisjoint(with: IdentityProvider.allCases.map(\.rawValue)) {
            tier = .pro
        } else if account.phoneNumber != nil || account.email != nil, let profile = profiles[uid] {
            tier = profile.isComplete(now: now()) ? .pro : .signed
        } else {
            tier = .trial
        }
        tiers[uid] = tier
        return tier
    }
}
