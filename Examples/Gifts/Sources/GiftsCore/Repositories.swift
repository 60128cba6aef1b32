import Foundation

/// The account on this device: email and password, and the profile written at sign-up.
///
/// ```swift
/// let uid = try await session.signUp(email: "ann@example.com", password: "secret123", firstName: "Ann", lastName: "Lee")
/// ```
public protocol SessionRepository: Sendable {
    /// The signed-in user's id, if any.
    func currentUserID() async -> String?
    /// Creates an account, signs it in and writes `/users/{uid}` `{displayName, firstName, lastName}`; returns the
    /// uid. ``AppError/emailInUse`` when the email is taken.
    func signUp(email: String, password: String, firstName: String, lastName: String) async throws(AppError) -> String
    /// Signs in; returns the uid. ``AppError/wrongCredentials`` when email and password do not match.
    func signIn(email: String, password: String) async throws(AppError) -> String
    /// Signs out on this device.
    func signOut() async
}

/// People (`/users`), found by name.
///
/// ```swift
/// let found = try await people.search(prefix: "Jó", limit: 20)   // József, Jozsef, …
/// ```
public protocol PeopleRepository: Sendable {
    /// The users whose normalized display name (`searchKey`) starts with the normalized `prefix` (case, accents and
    /// extra spaces ignored), in `searchKey` order, at most `limit`. A blank prefix finds nobody.
    func search(prefix: String, limit: Int) async throws(AppError) -> [Person]
    /// One user; nil if there is none with that uid.
    func person(_ uid: String) async throws(AppError) -> Person?
}

/// Wishlists (`/wishes/{uid}`): anyone signed in reads them; only the owner writes, and never `reserved`.
///
/// ```swift
/// let id = try await wishes.create(WishDraft(name: "Kite"))
/// for try await list in wishes.wishes(of: friendID) { show(list) }
/// ```
public protocol WishRepository: Sendable {
    /// The wishes of `uid`, newest first, again after every change, until the consumer stops.
    func wishes(of uid: String) -> AsyncThrowingStream<[Wish], any Error>
    /// Adds a wish to the signed-in user's list (not received, created now); returns its id.
    func create(_ draft: WishDraft) async throws(AppError) -> String
    /// Replaces the name, description, link and price of one of the user's wishes (``AppError/notFound`` if gone).
    func update(_ wishID: String, with draft: WishDraft) async throws(AppError)
    /// Deletes one of the user's wishes (its reservation goes with it); deleting a missing wish does nothing.
    func delete(_ wishID: String) async throws(AppError)
    /// Confirms one of the user's wishes was received (its reservation is dropped); ``AppError/notFound`` if gone.
    func markReceived(_ wishID: String) async throws(AppError)
}

/// Reservations (`/reservations/{owner}/{wish}`), exclusive and secret from the owner, and the user's list of them
/// (`/userReservations/{uid}`).
///
/// ```swift
/// do {
///     try await reservations.reserve(ownerID: friend.id, wishID: wish.id)
/// } catch .alreadyReserved {
///     // someone was faster
/// }
/// ```
public protocol ReservationRepository: Sendable {
    /// Reserves a friend's wish as the signed-in user. ``AppError/alreadyReserved`` when someone (the user included)
    /// holds it; ``AppError/permissionDenied`` for one's own wish, a received or missing one.
    func reserve(ownerID: String, wishID: String) async throws(AppError)
    /// Cancels the user's reservation of a wish; ``AppError/notFound`` when the user holds none there.
    func cancel(ownerID: String, wishID: String) async throws(AppError)
    /// The user's reservation of a wish. Only its reserver may read it: everyone else (the owner first of all) gets
    /// ``AppError/permissionDenied``, and so does everyone where nobody holds one (the rules cannot tell).
    func reservation(ownerID: String, wishID: String) async throws(AppError) -> Reservation
    /// What `uid` reserved (only `uid` may read it), newest first, again after every change, until the consumer stops.
    func reservations(of uid: String) -> AsyncThrowingStream<[ReservationEntry], any Error>
}

/// The ranking of gift names (`/topGifts`), kept by the server.
public protocol TopGiftRepository: Sendable {
    /// The `limit` most wished gifts (count above zero), most wished first, again after every change, until the
    /// consumer stops.
    func topGifts(limit: Int) -> AsyncThrowingStream<[TopGift], any Error>
}

/// Every repository the app uses, so screens take one value (Hearth-backed in the app, in memory in tests).
public struct Repositories: Sendable {
    /// The account on this device.
    public var session: any SessionRepository
    /// People search.
    public var people: any PeopleRepository
    /// Wishlists.
    public var wishes: any WishRepository
    /// Reservations.
    public var reservations: any ReservationRepository
    /// The top gifts.
    public var topGifts: any TopGiftRepository

    /// Repositories from their parts.
    public init(
        session: any SessionRepository, people: any PeopleRepository, wishes: any WishRepository, reservations: any ReservationRepository,
        topGifts: any TopGiftRepository
    ) {
        self.session = session
        self.people = people
        self.wishes = wishes
        self.reservations = reservations
        self.topGifts = topGifts
    }
}
