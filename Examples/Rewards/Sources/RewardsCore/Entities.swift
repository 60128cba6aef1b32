import Foundation

/// Where the user shakes: each context has its own campaigns, pages of cards and proof (see Examples/Rewards/README.md).
public enum Context: String, Codable, Sendable, Hashable, CaseIterable {
    /// A TV ad; proof: a watermark heard in its audio.
    case tv
    /// An article with a quiz; proof: the answers.
    case read
    /// A video; proof: its id and how long it was watched.
    case video
    /// A product's barcode; proof: the EAN-13 read by the camera.
    case scan
    /// A shopping receipt; proof: its id, the merchant and the products on it.
    case receipt
    /// A stadium event; proof: a watermark played in the stadium.
    case stadium
}

/// How far an account has come; campaigns name the lowest tier they pay (`minTier`).
///
/// `trial` < `signed` < `pro`:
/// - `trial`: anonymous, no credential;
/// - `signed`: a verified phone number (or email) and a profile gender;
/// - `pro`: a linked Google or Apple account, or signed plus first name, last name and birth date.
public enum Tier: String, Codable, Sendable, Hashable, CaseIterable, Comparable {
    /// Anonymous: no credential yet.
    case trial
    /// A verified phone number (or email) and a gender.
    case signed
    /// Google or Apple linked, or a full profile.
    case pro

    private var rank: Int {
        switch self {
        case .trial: 0
        case .signed: 1
        case .pro: 2
        }
    }

    /// Orders tiers `trial` < `signed` < `pro`.
    public static func < (a: Tier, b: Tier) -> Bool { a.rank < b.rank }
}

/// `/campaigns/{campaignId}`: coins paid for a shake in one context, within limits. What proves a shake
/// (`/campaignProofs`) stays on the server.
public struct Campaign: Codable, Sendable, Hashable, Identifiable {
    /// The campaign's key (not stored in the value).
    public var id: String = ""
    /// Where it pays.
    public var context: Context
    /// What the screens show.
    public var title: String
    /// Coins paid per accepted shake.
    public var coins: Int
    /// Seconds a user waits between two paid shakes of this campaign.
    public var cooldownSeconds: Int
    /// Paid shakes per user per (UTC) day.
    public var dailyLimitPerUser: Int
    /// Coins the campaign pays in all; no shake is paid past it.
    public var budget: Int
    /// When it starts paying (inclusive).
    public var startsAt: Date
    /// When it stops paying (exclusive).
    public var endsAt: Date
    /// The lowest tier it pays.
    public var minTier: Tier

    enum CodingKeys: String, CodingKey {
        case context, title, coins, cooldownSeconds, dailyLimitPerUser, budget, startsAt, endsAt, minTier
    }

    /// A campaign value, for previews and tests; apps read them from a ``CampaignRepository``.
    public init(
        id: String, context: Context, title: String, coins: Int, cooldownSeconds: Int, dailyLimitPerUser: Int, budget: Int,
        startsAt: Date, endsAt: Date, minTier: Tier
    ) {
        self.id = id
        self.context = context
        self.title = title
        self.coins = coins
        self.cooldownSeconds = cooldownSeconds
        self.dailyLimitPerUser = dailyLimitPerUser
        self.budget = budget
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.minTier = minTier
    }

    /// Whether `date` is inside the campaign's window (`startsAt` ≤ date < `endsAt`). The server's clock
    /// decides; this is for showing, not for refusing.
    public func isRunning(at date: Date) -> Bool { startsAt <= date && date < endsAt }
}

/// `/campaignStats/{campaignId}`: what a campaign has paid so far.
public struct CampaignStats: Codable, Sendable, Hashable {
    /// Coins paid in all (never more than the campaign's budget).
    public var spent: Int
    /// Shakes paid.
    public var awards: Int

    /// Stats for previews and tests.
    public init(spent: Int = 0, awards: Int = 0) {
        self.spent = spent
        self.awards = awards
    }
}

/// `/wallets/{uid}`: the user's coins. Only server functions write it.
public struct Wallet: Codable, Sendable, Hashable {
    /// The balance; never negative, and always the sum of the user's ledger.
    public var coins: Int

    /// A wallet holding `coins`.
    public init(coins: Int) { self.coins = coins }
}

/// `/ledger/{uid}/{entryId}`: one movement of the user's coins.
public struct LedgerEntry: Codable, Sendable, Hashable, Identifiable {
    /// Why coins moved.
    public enum Kind: String, Codable, Sendable, Hashable, CaseIterable {
        /// Paid for a shake; `ref` is the campaign id.
        case shake
        /// An invite reward (either side); `ref` is the other side's uid.
        case invite
        /// Spent on a catalogue item; `ref` is the item id (the entry's key is the redemption's).
        case redeem
        /// Changed by an administrator; `ref` is the reason.
        case adjust
    }

    /// The entry's key (not stored in the value).
    public var id: String = ""
    /// Coins added (positive) or spent (negative).
    public var amount: Int
    /// Why.
    public var kind: Kind
    /// What it refers to (see ``Kind``).
    public var ref: String?
    /// When.
    public var at: Date

    enum CodingKeys: String, CodingKey { case amount, kind, ref, at }

    /// An entry, for previews and tests.
    public init(id: String, amount: Int, kind: Kind, ref: String?, at: Date) {
        self.id = id
        self.amount = amount
        self.kind = kind
        self.ref = ref
        self.at = at
    }

    /// Newest first: later `at`, then the greater key.
    static func newestFirst(_ a: LedgerEntry, _ b: LedgerEntry) -> Bool { (a.at, a.id) > (b.at, b.id) }
}

/// `/catalog/{itemId}`: something coins buy.
public struct CatalogItem: Codable, Sendable, Hashable, Identifiable {
    /// The item's key (not stored in the value).
    public var id: String = ""
    /// What the catalogue shows.
    public var title: String
    /// Its price in coins.
    public var price: Int
    /// How many are left.
    public var stock: Int
    /// More words, optional.
    public var description: String?
    /// A picture, optional.
    public var imageURL: String?

    enum CodingKeys: String, CodingKey { case title, price, stock, description, imageURL }

    /// An item, for previews and tests.
    public init(id: String, title: String, price: Int, stock: Int, description: String? = nil, imageURL: String? = nil) {
        self.id = id
        self.title = title
        self.price = price
        self.stock = stock
        self.description = description
        self.imageURL = imageURL
    }
}

/// `/redemptions/{uid}/{redemptionId}`: an item the user bought.
public struct Redemption: Codable, Sendable, Hashable, Identifiable {
    /// The redemption's key (not stored in the value).
    public var id: String = ""
    /// The item bought.
    public var itemId: String
    /// Its title when bought.
    public var title: String
    /// What it cost.
    public var price: Int
    /// When.
    public var at: Date

    enum CodingKeys: String, CodingKey { case itemId, title, price, at }

    /// A redemption, for previews and tests.
    public init(id: String, itemId: String, title: String, price: Int, at: Date) {
        self.id = id
        self.itemId = itemId
        self.title = title
        self.price = price
        self.at = at
    }
}

/// What a paid shake brought: the coins and the new balance (the `shake` callable's answer).
public struct ShakeOutcome: Codable, Sendable, Hashable {
    /// Coins paid for this shake.
    public var awarded: Int
    /// The wallet's balance after it.
    public var balance: Int

    /// An outcome, for previews and tests.
    public init(awarded: Int, balance: Int) {
        self.awarded = awarded
        self.balance = balance
    }
}

/// What a redemption left: its id and the new balance (the `redeem` callable's answer).
public struct RedeemOutcome: Codable, Sendable, Hashable {
    /// The key of the new `/redemptions/{uid}/{redemptionId}`.
    public var redemptionId: String
    /// The wallet's balance after paying.
    public var balance: Int

    /// An outcome, for previews and tests.
    public init(redemptionId: String, balance: Int) {
        self.redemptionId = redemptionId
        self.balance = balance
    }
}

/// What opening an invite brought the invitee (the `redeemInvite` callable's answer); the inviter got the same.
public struct InviteOutcome: Codable, Sendable, Hashable {
    /// Coins paid to each side.
    public var awarded: Int
    /// The invitee's balance after it.
    public var balance: Int

    /// An outcome, for previews and tests.
    public init(awarded: Int, balance: Int) {
        self.awarded = awarded
        self.balance = balance
    }
}

/// A balance and its newest movements, as the wallet screen shows them.
public struct WalletStatement: Sendable, Hashable {
    /// The wallet.
    public var wallet: Wallet
    /// The newest ledger entries, newest first.
    public var ledger: [LedgerEntry]

    /// A statement, for previews and tests.
    public init(wallet: Wallet, ledger: [LedgerEntry]) {
        self.wallet = wallet
        self.ledger = ledger
    }
}
