import Foundation
import Hearth
import HearthCore

struct HearthWishes: WishRepository {
    let auth: Auth
    let database: Database

    /// A new `/wishes/{uid}/{wishId}` as its owner writes it: `createdAt` is the server's clock, `reserved` the trigger's.
    struct Write: Encodable {
        var name: String
        var description: String?
        var link: String?
        var price: Double?
        var createdAt: Hearth.ServerValue = .timestamp
        var received = false
    }

    func wishes(of uid: String) -> AsyncThrowingStream<[Wish], any Error> {
        guard isKey(uid) else { return failing(.notFound) }
        return liveValues(of: database.reference("wishes").child(uid).databaseQuery) {
            try decodedChildren($0, Wish.self, id: \.id).sorted(by: Wish.newestFirst)
        }
    }

    func create(_ draft: WishDraft) async throws(AppError) -> String {
        let ref = try myList().childByAutoId()
        let write = Write(name: draft.name, description: draft.description, link: draft.link, price: draft.price)
        try await mapped { try await ref.setValue(write) }
        return ref.key ?? ""
    }

    func update(_ wishID: String, with draft: WishDraft) async throws(AppError) {
        let ref = try await existing(wishID)
        // Only the owner's fields: `createdAt` stays, `reserved` is the trigger's; a cleared field is removed.
        let fields: [String: JSONValue] = [
            "name": .string(draft.name), "description": draft.description.map(JSONValue.string) ?? .null,
            "link": draft.link.map(JSONValue.string) ?? .null, "price": draft.price.map(JSONValue.double) ?? .null,
        ]
        try await mapped { try await ref.updateChildValues(json: fields) }
    }

    func delete(_ wishID: String) async throws(AppError) {
        let list = try myList()
        guard isKey(wishID) else { return }
        try await mapped { try await list.child(wishID).removeValue() }
    }

    func markReceived(_ wishID: String) async throws(AppError) {
        let ref = try await existing(wishID)
        try await mapped { try await ref.child("received").setValue(true) }
    }

    /// `/wishes/{me}`, or ``AppError/notSignedIn``.
    private func myList() throws(AppError) -> DatabaseReference {
        guard let me = auth.currentUser?.uid else { throw .notSignedIn }
        return database.reference("wishes").child(me)
    }

    /// One of the user's wishes, or ``AppError/notFound`` (a write there would otherwise make a partial wish, which
    /// the rules refuse as permission denied).
    private func existing(_ wishID: String) async throws(AppError) -> DatabaseReference {
        let list = try myList()
        guard isKey(wishID) else { throw .notFound }
        let ref = list.child(wishID)
        guard try await mapped({ try await ref.child("createdAt").getSnapshot().exists }) else { throw .notFound }
        return ref
    }
}

struct HearthReservations: ReservationRepository {
    let auth: Auth
    let database: Database

    /// `/reservations/{owner}/{wish}` as the reserver writes it (the rules want `at === now`).
    struct Write: Encodable {
        var reserverId: String
        var at: Hearth.ServerValue = .timestamp
    }

    func reserve(ownerID: String, wishID: String) async throws(AppError) {
        guard let me = auth.currentUser?.uid else { throw .notSignedIn }
        guard isKey(ownerID), isKey(wishID) else { throw .notFound }
        do {
            try await database.reference("reservations").child(ownerID).child(wishID).setValue(Write(reserverId: me))
        } catch {
            // The rules refuse a taken wish like an own, received or missing one: the flag tells them apart.
            var reservedNow: Bool?
            if ErrorMapping.isPermissionDenied(error) {
                let flag = try? await database.reference("wishes").child(ownerID).child(wishID).child("reserved").getSnapshot()
                if case .bool(let reserved)? = flag?.value { reservedNow = reserved }
            }
            throw ReservationErrors.reserve(error, reservedNow: reservedNow)
        }
    }

    func cancel(ownerID: String, wishID: String) async throws(AppError) {
        guard auth.currentUser != nil else { throw .notSignedIn }
        guard isKey(ownerID), isKey(wishID) else { throw .notFound }
        do {
            try await database.reference("reservations").child(ownerID).child(wishID).removeValue()
        } catch {
            throw ReservationErrors.cancel(error)
        }
    }

    func reservation(ownerID: String, wishID: String) async throws(AppError) -> Reservation {
        guard isKey(ownerID), isKey(wishID) else { throw .permissionDenied }
        let snapshot = try await mapped { try await database.reference("reservations").child(ownerID).child(wishID).getSnapshot() }
        guard snapshot.exists else { throw .permissionDenied }
        return try await mapped { try snapshot.value(as: Reservation.self) }
    }

    func reservations(of uid: String) -> AsyncThrowingStream<[ReservationEntry], any Error> {
        guard isKey(uid) else { return failing(.permissionDenied) }
        return liveValues(of: database.reference("userReservations").child(uid).databaseQuery) { snapshot in
            try snapshot.children.map { try $0.value(as: ReservationEntry.self) }.sorted(by: ReservationEntry.newestFirst)
        }
    }
}

struct HearthTopGifts: TopGiftRepository {
    let database: Database

    func topGifts(limit: Int) -> AsyncThrowingStream<[TopGift], any Error> {
        guard limit > 0 else { return AsyncThrowingStream { $0.yield([]); $0.finish() } }
        let query = database.reference("topGifts").queryOrdered(byChild: "count").queryLimited(toLast: limit)
        return liveValues(of: query) { snapshot in
            try decodedChildren(snapshot, TopGift.self, id: \.key).filter { $0.count > 0 }.sorted(by: TopGift.mostWishedFirst)
        }
    }
}
