import Foundation
import HearthCore

/// The in-memory world's database: what the server stores, and what its triggers do to it. A value, so the
/// world's actor changes it in one step.
struct GiftsDatabase: Sendable {
    var users: [String: UserProfile] = [:]
    /// Uid → its `searchKey` (what the server's trigger writes).
    var searchKeys: [String: String] = [:]
    /// Owner → wish id → wish.
    var wishes: [String: [String: Wish]] = [:]
    /// Owner → wish id → reservation.
    var reservations: [String: [String: Reservation]] = [:]
    /// Reserver → `{owner}_{wish}` → entry.
    var userReservations: [String: [String: ReservationEntry]] = [:]
    /// Normalized name → entry.
    var topGifts: [String: TopGift] = [:]

    // MARK: Normal forms

    /// The normalized form of a name: lowercase, accents removed, whitespace collapsed (the server's `searchKey`).
    static func searchKey(_ text: String) -> String { SearchKey.normalize(text) }

    /// The `/topGifts` key of a wish name: its normalized form without the characters a key cannot hold; nil when
    /// nothing is left.
    static func giftKey(_ name: String) -> String? {
        let forbidden = CharacterSet(charactersIn: ".#$[]/").union(.controlCharacters)
        let key = String(String.UnicodeScalarView(searchKey(name).unicodeScalars.filter { !forbidden.contains($0) }))
        return key.isEmpty ? nil : key
    }

    // MARK: Reads

    /// `uid`'s wishes, newest first.
    func wishList(of uid: String) -> [Wish] { (wishes[uid] ?? [:]).values.sorted(by: Wish.newestFirst) }

    /// `uid`'s reservation entries, newest first.
    func entryList(of uid: String) -> [ReservationEntry] { (userReservations[uid] ?? [:]).values.sorted(by: ReservationEntry.newestFirst) }

    /// The `limit` most wished gifts.
    func topList(limit: Int) -> [TopGift] {
        Array(topGifts.values.filter { $0.count > 0 }.sorted(by: TopGift.mostWishedFirst).prefix(max(0, limit)))
    }

    // MARK: Triggers

    /// The profile trigger: stores the profile and its `searchKey`.
    mutating func setProfile(_ profile: UserProfile, of uid: String) {
        users[uid] = profile
        searchKeys[uid] = Self.searchKey(profile.displayName)
    }

    /// The top gifts trigger: `delta` more (or fewer) wishes named `name`; a name at zero disappears.
    mutating func count(_ name: String, by delta: Int) {
        guard let key = Self.giftKey(name) else { return }
        var gift = topGifts[key] ?? TopGift(key: key, name: name, count: 0)
        gift.count += delta
        if delta > 0 { gift.name = name }
        topGifts[key] = gift.count > 0 ? gift : nil
    }

    /// A new reservation and what its trigger writes: the wish's flag and the reserver's entry.
    mutating func addReservation(_ reservation: Reservation, owner: String, wishID: String) {
        guard let wish = wishes[owner]?[wishID] else { return }
        reservations[owner, default: [:]][wishID] = reservation
        wishes[owner]?[wishID]?.reserved = true
        let entry = ReservationEntry(
            ownerId: owner, wishId: wishID, wishName: wish.name, ownerName: users[owner]?.displayName ?? "", at: reservation.at)
        userReservations[reservation.reserverId, default: [:]][entry.id] = entry
    }

    /// Removes a wish's reservation and what its trigger wrote; returns the reserver, if there was one.
    @discardableResult
    mutating func dropReservation(owner: String, wishID: String) -> String? {
        guard let reservation = reservations[owner]?[wishID] else { return nil }
        reservations[owner]?[wishID] = nil
        if reservations[owner]?.isEmpty == true { reservations[owner] = nil }
        wishes[owner]?[wishID]?.reserved = false
        userReservations[reservation.reserverId]?[ReservationEntry.key(ownerID: owner, wishID: wishID)] = nil
        return reservation.reserverId
    }

    /// The wish trigger, after `before` became `after` (nil: absent): counts the names, renames the reserver's entry,
    /// drops the reservation of a received or deleted wish. Returns the reserver whose list changed, if any.
    mutating func wishWritten(owner: String, wishID: String, before: Wish?, after: Wish?) -> String? {
        if before?.name != after?.name {
            if let before { count(before.name, by: -1) }
            if let after { count(after.name, by: 1) }
        }
        guard let reservation = reservations[owner]?[wishID] else { return nil }
        guard let after, !after.received else { return dropReservation(owner: owner, wishID: wishID) }
        guard before?.name != after.name else { return nil }
        userReservations[reservation.reserverId]?[ReservationEntry.key(ownerID: owner, wishID: wishID)]?.wishName = after.name
        return reservation.reserverId
    }
}
