import Foundation

/// `/users/{uid}`: how a user is named (what sign-up writes; the server adds `searchKey`).
public struct UserProfile: Codable, Sendable, Hashable {
    /// The name others see and search by: first and last name, 1–100 characters.
    public var displayName: String
    /// The first name, up to 100 characters (empty when not given).
    public var firstName: String
    /// The last name, up to 100 characters (empty when not given).
    public var lastName: String

    enum CodingKeys: String, CodingKey { case displayName, firstName, lastName }

    /// A profile from its parts.
    public init(displayName: String, firstName: String, lastName: String) {
        self.displayName = displayName
        self.firstName = firstName
        self.lastName = lastName
    }

    /// The profile of someone called `firstName lastName` (trimmed, joined by one space).
    public init(firstName: String, lastName: String) {
        let first = firstName.trimmingCharacters(in: .whitespacesAndNewlines)
        let last = lastName.trimmingCharacters(in: .whitespacesAndNewlines)
        self.init(displayName: [first, last].filter { !$0.isEmpty }.joined(separator: " "), firstName: first, lastName: last)
    }

    /// Decodes a stored profile; missing first and last names are empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        displayName = try c.decode(String.self, forKey: .displayName)
        firstName = try c.decodeIfPresent(String.self, forKey: .firstName) ?? ""
        lastName = try c.decodeIfPresent(String.self, forKey: .lastName) ?? ""
    }

    /// The longest name the rules accept (each of the three).
    public static let maxNameLength = 100
}

/// Someone a people search found: their uid and profile.
public struct Person: Sendable, Hashable, Identifiable {
    /// Their uid (the key of `/users/{uid}` and `/wishes/{uid}`).
    public var id: String
    /// Their names.
    public var profile: UserProfile

    /// A person from their uid and profile.
    public init(id: String, profile: UserProfile) {
        self.id = id
        self.profile = profile
    }

    /// The name to show.
    public var displayName: String { profile.displayName }
}

/// `/wishes/{uid}/{wishId}`: one gift on a wishlist.
public struct Wish: Codable, Sendable, Hashable, Identifiable {
    /// The wish's key (not stored in the value).
    public var id: String = ""
    /// What the gift is, 1–200 characters.
    public var name: String
    /// More words about it, up to 2,000 characters.
    public var description: String?
    /// Where to buy it: an http(s) URL of up to 2,000 characters.
    public var link: String?
    /// About what it costs (never negative).
    public var price: Double?
    /// When it was wished for (the server's clock).
    public var createdAt: Date
    /// Whether the owner confirmed they received it.
    public var received: Bool
    /// Whether someone reserved it (the server keeps this flag; never who).
    public var reserved: Bool

    enum CodingKeys: String, CodingKey { case name, description, link, price, createdAt, received, reserved }

    /// A wish, for previews and tests; apps get them from a ``WishRepository``.
    public init(
        id: String, name: String, description: String? = nil, link: String? = nil, price: Double? = nil, createdAt: Date,
        received: Bool = false, reserved: Bool = false
    ) {
        self.id = id
        self.name = name
        self.description = description
        self.link = link
        self.price = price
        self.createdAt = createdAt
        self.received = received
        self.reserved = reserved
    }

    /// Decodes a stored wish; `received` and `reserved` are false when absent (before the trigger set the flag).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        description = try c.decodeIfPresent(String.self, forKey: .description)
        link = try c.decodeIfPresent(String.self, forKey: .link)
        price = try c.decodeIfPresent(Double.self, forKey: .price)
        createdAt = try c.decode(Date.self, forKey: .createdAt)
        received = try c.decodeIfPresent(Bool.self, forKey: .received) ?? false
        reserved = try c.decodeIfPresent(Bool.self, forKey: .reserved) ?? false
    }

    /// Newest first: later `createdAt`, then the greater key.
    public static func newestFirst(_ a: Wish, _ b: Wish) -> Bool { (a.createdAt, a.id) > (b.createdAt, b.id) }
}

/// `/reservations/{ownerUid}/{wishId}`: who reserved a wish. Only the reserver can read it, never the owner.
public struct Reservation: Codable, Sendable, Hashable {
    /// The reserver's uid.
    public var reserverId: String
    /// When it was reserved (the server's clock).
    public var at: Date

    /// A reservation from its parts.
    public init(reserverId: String, at: Date) {
        self.reserverId = reserverId
        self.at = at
    }
}

/// `/userReservations/{reserverUid}/{ownerUid}_{wishId}`: one line of the Reservations tab, kept by the server.
public struct ReservationEntry: Codable, Sendable, Hashable, Identifiable {
    /// The wish's owner.
    public var ownerId: String
    /// The wish's key in the owner's list.
    public var wishId: String
    /// The wish's name (renames follow).
    public var wishName: String
    /// The owner's display name.
    public var ownerName: String
    /// When it was reserved.
    public var at: Date

    /// An entry from its parts.
    public init(ownerId: String, wishId: String, wishName: String, ownerName: String, at: Date) {
        self.ownerId = ownerId
        self.wishId = wishId
        self.wishName = wishName
        self.ownerName = ownerName
        self.at = at
    }

    /// The entry's key: `{ownerId}_{wishId}`.
    public var id: String { Self.key(ownerID: ownerId, wishID: wishId) }

    /// The key of the entry for `ownerID`'s wish `wishID`.
    public static func key(ownerID: String, wishID: String) -> String { "\(ownerID)_\(wishID)" }

    /// Newest first: later `at`, then the greater key.
    public static func newestFirst(_ a: ReservationEntry, _ b: ReservationEntry) -> Bool { (a.at, a.id) > (b.at, b.id) }
}

/// `/topGifts/{key}`: how many wishes name a gift (names are compared normalized: case and accents ignored).
public struct TopGift: Codable, Sendable, Hashable, Identifiable {
    /// The normalized name (the entry's key).
    public var key: String = ""
    /// The name as last written.
    public var name: String
    /// How many wishes hold it.
    public var count: Int

    enum CodingKeys: String, CodingKey { case name, count }

    /// An entry from its parts.
    public init(key: String, name: String, count: Int) {
        self.key = key
        self.name = name
        self.count = count
    }

    /// The key.
    public var id: String { key }

    /// Most wished first, then by key.
    public static func mostWishedFirst(_ a: TopGift, _ b: TopGift) -> Bool { a.count != b.count ? a.count > b.count : a.key < b.key }
}

/// What a friend's wish means to the user looking at it.
public enum WishStatus: Sendable, Hashable {
    /// Nobody reserved it: the user may.
    case available
    /// The user reserved it (their `/userReservations` lists it): they may cancel.
    case reservedByMe
    /// Someone else reserved it.
    case reservedByOther
    /// The friend received it already.
    case received
}

/// A friend's wish as their wishlist screen shows it.
public struct FriendWish: Sendable, Hashable, Identifiable {
    /// The wish.
    public var wish: Wish
    /// Whether the user may reserve it, holds it, or neither.
    public var status: WishStatus

    /// A wish and its status.
    public init(wish: Wish, status: WishStatus) {
        self.wish = wish
        self.status = status
    }

    /// The wish's key.
    public var id: String { wish.id }

    /// The status of `wish` for a user whose reservations of this owner's wishes are `mine` (wish ids).
    public static func status(of wish: Wish, mine: Set<String>) -> WishStatus {
        if wish.received { return .received }
        if mine.contains(wish.id) { return .reservedByMe }
        return wish.reserved ? .reservedByOther : .available
    }
}
