import Foundation

// The repositories over an `InMemoryWorld`, each as one phone (`device`) uses it.

/// A stream fed by the world: `register` hands its continuation to the world's actor.
func worldStream<Element: Sendable>(
    _ register: @escaping @Sendable (AsyncThrowingStream<Element, any Error>.Continuation) async -> Void
) -> AsyncThrowingStream<Element, any Error> {
    let (stream, continuation) = AsyncThrowingStream<Element, any Error>.makeStream()
    Task { await register(continuation) }
    return stream
}

struct InMemorySession: SessionRepository {
    let world: InMemoryWorld
    let device: String

    func currentUserID() async -> String? { await world.currentUser(device) }
    func signUp(email: String, password: String, firstName: String, lastName: String) async throws(AppError) -> String {
        try await world.signUp(device, email: email, password: password, firstName: firstName, lastName: lastName)
    }
    func signIn(email: String, password: String) async throws(AppError) -> String { try await world.signIn(device, email: email, password: password) }
    func signOut() async { await world.signOut(device) }
}

struct InMemoryPeople: PeopleRepository {
    let world: InMemoryWorld
    let device: String

    func search(prefix: String, limit: Int) async throws(AppError) -> [Person] { try await world.search(device, prefix: prefix, limit: limit) }
    func person(_ uid: String) async throws(AppError) -> Person? { try await world.person(device, uid: uid) }
}

struct InMemoryWishes: WishRepository {
    let world: InMemoryWorld
    let device: String

    func wishes(of uid: String) -> AsyncThrowingStream<[Wish], any Error> {
        let (world, device) = (self.world, self.device)
        return worldStream { await world.watchWishes(of: uid, device: device, $0) }
    }
    func create(_ draft: WishDraft) async throws(AppError) -> String { try await world.createWish(device, draft) }
    func update(_ wishID: String, with draft: WishDraft) async throws(AppError) { try await world.updateWish(device, wishID, draft) }
    func delete(_ wishID: String) async throws(AppError) { try await world.deleteWish(device, wishID) }
    func markReceived(_ wishID: String) async throws(AppError) { try await world.markReceived(device, wishID) }
}

struct InMemoryReservations: ReservationRepository {
    let world: InMemoryWorld
    let device: String

    func reserve(ownerID: String, wishID: String) async throws(AppError) { try await world.reserve(device, ownerID: ownerID, wishID: wishID) }
    func cancel(ownerID: String, wishID: String) async throws(AppError) { try await world.cancel(device, ownerID: ownerID, wishID: wishID) }
    func reservation(ownerID: String, wishID: String) async throws(AppError) -> Reservation {
        try await world.reservation(device, ownerID: ownerID, wishID: wishID)
    }
    func reservations(of uid: String) -> AsyncThrowingStream<[ReservationEntry], any Error> {
        let (world, device) = (self.world, self.device)
        return worldStream { await world.watchEntries(of: uid, device: device, $0) }
    }
}

struct InMemoryTopGifts: TopGiftRepository {
    let world: InMemoryWorld
    let device: String

    func topGifts(limit: Int) -> AsyncThrowingStream<[TopGift], any Error> {
        let (world, device) = (self.world, self.device)
        return worldStream { await world.watchTopGifts(limit: limit, device: device, $0) }
    }
}
