import Foundation

/// The app's actions, over any `Repositories` (Hearth-backed or in memory): the checks the server would make
/// anyway, done first so the screens can say why.
///
/// ```swift
/// let useCases = UseCases(.hearth(app))
/// _ = try await useCases.signIn(email: "ann@example.com", password: "secret123")
/// let id = try await useCases.createWish(WishDraft(name: "Kite", price: 25))
/// ```
public struct UseCases: Sendable {
    /// Where the data comes from.
    public let repositories: Repositories
    /// How many people a search lists at most.
    public static let searchLimit = 30
    /// How many gifts the Top Gifts tab ranks.
    public static let topGiftsLimit = 20

    /// Use cases over `repositories`.
    public init(_ repositories: Repositories) { self.repositories = repositories }

    /// The signed-in user's id, or ``AppError/notSignedIn``.
    public func signedIn() async throws(AppError) -> String {
        guard let uid = await repositories.session.currentUserID() else { throw .notSignedIn }
        return uid
    }

    // MARK: Account

    /// Creates an account with its profile: the email and names are trimmed, the password needs 6 characters, both
    /// names are needed (up to 100 characters each, the display name too).
    public func signUp(email: String, password: String, firstName: String, lastName: String) async throws(AppError) -> String {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        guard email.split(separator: "@").count == 2 else { throw .invalidInput("Enter a valid email address.") }
        guard password.count >= 6 else { throw .invalidInput("Choose a password of at least 6 characters.") }
        let profile = UserProfile(firstName: firstName, lastName: lastName)
        guard !profile.firstName.isEmpty, !profile.lastName.isEmpty else { throw .invalidInput("Enter your first and last name.") }
        guard profile.displayName.utf16.count <= UserProfile.maxNameLength else {
            throw .invalidInput("Your name is at most \(UserProfile.maxNameLength) characters.")
        }
        return try await repositories.session.signUp(email: email, password: password, firstName: profile.firstName, lastName: profile.lastName)
    }

    /// Signs in with email and password.
    public func signIn(email: String, password: String) async throws(AppError) -> String {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !email.isEmpty, !password.isEmpty else { throw .invalidInput("Enter your email and password.") }
        return try await repositories.session.signIn(email: email, password: password)
    }

    /// Signs out on this device.
    public func signOut() async { await repositories.session.signOut() }

    // MARK: My wishlist

    /// The user's wishes, live, newest first.
    public func myWishes() async throws(AppError) -> AsyncThrowingStream<[Wish], any Error> {
        repositories.wishes.wishes(of: try await signedIn())
    }

    /// Adds a wish after validating the draft; returns its id.
    public func createWish(_ draft: WishDraft) async throws(AppError) -> String {
        let draft = try draft.validated()
        _ = try await signedIn()
        return try await repositories.wishes.create(draft)
    }

    /// Saves an edited wish after validating the draft.
    public func updateWish(_ wishID: String, with draft: WishDraft) async throws(AppError) {
        let draft = try draft.validated()
        _ = try await signedIn()
        try await repositories.wishes.update(wishID, with: draft)
    }

    /// Deletes one of the user's wishes (a reservation of it is dropped by the server).
    public func deleteWish(_ wishID: String) async throws(AppError) {
        _ = try await signedIn()
        try await repositories.wishes.delete(wishID)
    }

    /// Confirms one of the user's wishes was received (a reservation of it is dropped by the server).
    public func markReceived(_ wishID: String) async throws(AppError) {
        _ = try await signedIn()
        try await repositories.wishes.markReceived(wishID)
    }

    // MARK: Friends

    /// The people whose name starts with `text` (case and accents ignored), without the user; none for blank text.
    public func searchPeople(_ text: String) async throws(AppError) -> [Person] {
        let me = try await signedIn()
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return [] }
        // One more than shown, in case the user is among them.
        let found = try await repositories.people.search(prefix: text, limit: Self.searchLimit + 1)
        return Array(found.filter { $0.id != me }.prefix(Self.searchLimit))
    }

    /// One person; nil when there is none.
    public func person(_ uid: String) async throws(AppError) -> Person? { try await repositories.people.person(uid) }

    /// A friend's wishes, live, newest first.
    public func wishes(of friendID: String) -> AsyncThrowingStream<[Wish], any Error> { repositories.wishes.wishes(of: friendID) }

    /// Reserves `friendID`'s `wish`: not one's own (``AppError/ownWish``), not received (``AppError/alreadyReceived``),
    /// not reserved (``AppError/alreadyReserved``, also when someone was faster).
    public func reserve(_ wish: Wish, of friendID: String) async throws(AppError) {
        let me = try await signedIn()
        guard friendID != me else { throw .ownWish }
        guard !wish.received else { throw .alreadyReceived }
        guard !wish.reserved else { throw .alreadyReserved }
        try await repositories.reservations.reserve(ownerID: friendID, wishID: wish.id)
    }

    /// Cancels the user's reservation of `ownerID`'s wish `wishID`; ``AppError/notFound`` when they hold none.
    public func cancelReservation(ownerID: String, wishID: String) async throws(AppError) {
        _ = try await signedIn()
        try await repositories.reservations.cancel(ownerID: ownerID, wishID: wishID)
    }

    /// What the user reserved, live, newest first, with each wish's name and owner.
    public func myReservations() async throws(AppError) -> AsyncThrowingStream<[ReservationEntry], any Error> {
        repositories.reservations.reservations(of: try await signedIn())
    }

    // MARK: Top gifts

    /// The most wished gifts, live.
    public func topGifts(limit: Int = UseCases.topGiftsLimit) -> AsyncThrowingStream<[TopGift], any Error> {
        repositories.topGifts.topGifts(limit: limit)
    }
}
