import Foundation
import HearthCore

/// A whole Gifts backend in memory — accounts, the realtime database under its rules, and the server's triggers —
/// for unit tests and previews. It keeps the contract of Examples/Gifts/README.md and rules.json: anyone signed in
/// reads profiles, wishlists and the top gifts; only owners write their wishes, never the `reserved` flag; a wish is
/// reserved by one signed-in non-owner at a time, only while it exists and is not received, and only the reserver
/// reads or cancels the reservation (never the owner). The triggers run within the same step as the write that fires
/// them: the `reserved` flag and the reserver's `/userReservations` entry follow the reservation, a received or
/// deleted wish drops its reservation, a rename renames the entry, and `/topGifts` counts the wishes by normalized
/// name (a name at zero disappears). Each call is one step of the actor, so concurrent calls behave as the
/// server's atomic writes do: two friends racing for a wish cannot both win. What the rules refuse is
/// ``AppError/permissionDenied``, mapped as the Hearth repositories map it (``AppError/alreadyReserved`` when the
/// refused wish is reserved).
///
/// It starts from a fixture in the database's layout — `users` (`searchKey` is recomputed), `wishes`,
/// `reservations` (the flags, `/userReservations` and `/topGifts` are derived from them as the triggers would);
/// times in milliseconds since 1970 — plus `accounts` (`{uid: {email, password}}`). Several phones can use one
/// world: each `device` has its own session.
///
/// ```swift
/// let world = try InMemoryWorld(fixture: Data(json.utf8))
/// let ann = UseCases(world.repositories(device: "ann"))
/// _ = try await ann.signIn(email: "ann@example.com", password: "secret123")
/// ```
public actor InMemoryWorld {
    struct Account: Decodable {
        var email: String
        var password: String
    }

    struct Fixture: Decodable {
        var accounts: [String: Account]?
        var users: [String: UserProfile]?
        var wishes: [String: [String: Wish]]?
        var reservations: [String: [String: Reservation]]?
    }

    let clock: @Sendable () -> Date

    var accounts: [String: Account] = [:]
    /// Device → signed-in uid.
    var sessions: [String: String] = [:]
    /// What the server stores.
    var db = GiftsDatabase()

    var nextID = 0
    var failure: AppError?
    /// Listeners of `/wishes/{uid}`, by uid.
    var wishFeeds = Feeds<[Wish]>()
    /// Listeners of `/userReservations/{uid}`, by uid.
    var entryFeeds = Feeds<[ReservationEntry]>()
    /// Listeners of the top gifts, by limit.
    var topGiftFeeds = Feeds<[TopGift]>()

    /// A world holding `fixture` (JSON, see above); `clock` tells the time of new wishes and reservations.
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
        accounts = data.accounts ?? [:]
        var db = GiftsDatabase()
        for (uid, profile) in data.users ?? [:] { db.setProfile(profile, of: uid) }
        // Oldest first, so a gift's name is that of its latest wish, as if the trigger had seen them come in.
        let stored = (data.wishes ?? [:]).flatMap { owner, list in list.map { (owner, $0.key, $0.value) } }
            .sorted { ($0.2.createdAt, $0.0, $0.1) < ($1.2.createdAt, $1.0, $1.1) }
        for (owner, id, wish) in stored {
            var wish = wish
            wish.id = id
            wish.reserved = false
            db.wishes[owner, default: [:]][id] = wish
            db.count(wish.name, by: 1)
        }
        // What the triggers made of the reservations: the flags and the reservers' entries.
        for (owner, list) in data.reservations ?? [:] {
            for (wishID, reservation) in list {
                guard let wish = db.wishes[owner]?[wishID], !wish.received, owner != reservation.reserverId else { continue }
                db.addReservation(reservation, owner: owner, wishID: wishID)
            }
        }
        self.db = db
    }

    /// The repositories a phone named `device` uses; phones with different names have their own sessions.
    public nonisolated func repositories(device: String = "phone") -> Repositories {
        Repositories(
            session: InMemorySession(world: self, device: device), people: InMemoryPeople(world: self, device: device),
            wishes: InMemoryWishes(world: self, device: device), reservations: InMemoryReservations(world: self, device: device),
            topGifts: InMemoryTopGifts(world: self, device: device))
    }

    /// The next call of any repository fails with `error` (offline, denied, …).
    public func failNextWith(_ error: AppError) { failure = error }

    /// The reservation of a wish as stored, for checks that bypass the rules.
    public func storedReservation(ownerID: String, wishID: String) -> Reservation? { db.reservations[ownerID]?[wishID] }

    /// `/userReservations/{uid}` as stored, for checks that bypass the rules.
    public func storedReservationEntries(of uid: String) -> [ReservationEntry] { db.entryList(of: uid) }

    /// `/topGifts` as stored (by key), for checks that bypass the rules.
    public func storedTopGifts() -> [String: TopGift] { db.topGifts }

    /// The `searchKey` the trigger wrote for `uid`.
    public func storedSearchKey(of uid: String) -> String? { db.searchKeys[uid] }

    // MARK: Shared

    /// An id a client sends, which becomes a path segment: a database key of 1–128 bytes.
    static func isID(_ text: String) -> Bool { text.utf8.count <= 128 && (try? Key.validated(text)) != nil }

    func checkFailure() throws(AppError) {
        if let failure {
            self.failure = nil
            throw failure
        }
    }

    func now() -> Date { clock() }

    /// A new id: `prefix` and a counter, so ids sort in the order they were made.
    func newID(_ prefix: String) -> String {
        nextID += 1
        let digits = String(nextID)
        return prefix + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    /// The uid signed in on `device` (a write the client refuses to send otherwise: ``AppError/notSignedIn``).
    func signedIn(_ device: String) throws(AppError) -> String {
        try checkFailure()
        guard let uid = sessions[device] else { throw .notSignedIn }
        return uid
    }

    /// A read the rules allow to any signed-in user; returns the uid.
    @discardableResult
    func readable(_ device: String) throws(AppError) -> String {
        try checkFailure()
        guard let uid = sessions[device] else { throw .permissionDenied }
        return uid
    }
}
