import Foundation

/// Reservations, as the rules of `/reservations` and `/userReservations` and the reservation trigger treat them.
extension InMemoryWorld {
    /// The rules of `/reservations/$owner/$wish`: a signed-in non-owner creates it as themself when it is absent and
    /// the wish exists and is not received. A refusal is mapped as the Hearth repository maps it: already reserved
    /// when the wish's flag says so, else permission denied.
    func reserve(_ device: String, ownerID: String, wishID: String) throws(AppError) {
        let uid = try signedIn(device)
        guard Self.isID(ownerID), Self.isID(wishID) else { throw .notFound }
        let wish = db.wishes[ownerID]?[wishID]
        guard uid != ownerID, db.reservations[ownerID]?[wishID] == nil, let wish, !wish.received else {
            throw wish?.reserved == true ? .alreadyReserved : .permissionDenied
        }
        db.addReservation(Reservation(reserverId: uid, at: now()), owner: ownerID, wishID: wishID)
        publishWishes(of: ownerID)
        publishEntries(of: uid)
    }

    /// Only the reserver deletes a reservation; anyone else (and anyone where there is none) is refused, which the
    /// repositories report as ``AppError/notFound``.
    func cancel(_ device: String, ownerID: String, wishID: String) throws(AppError) {
        let uid = try signedIn(device)
        guard Self.isID(ownerID), Self.isID(wishID), db.reservations[ownerID]?[wishID]?.reserverId == uid else { throw .notFound }
        db.dropReservation(owner: ownerID, wishID: wishID)
        publishWishes(of: ownerID)
        publishEntries(of: uid)
    }

    /// The reserver alone reads a reservation: the rule is `data.child('reserverId').val() === auth.uid`, so the owner
    /// (and everyone, where nobody holds it) is refused.
    func reservation(_ device: String, ownerID: String, wishID: String) throws(AppError) -> Reservation {
        let uid = try readable(device)
        guard let reservation = db.reservations[ownerID]?[wishID], reservation.reserverId == uid else { throw .permissionDenied }
        return reservation
    }

    func watchEntries(of uid: String, device: String, _ continuation: Feeds<[ReservationEntry]>.Continuation) {
        do {
            guard try readable(device) == uid else { throw AppError.permissionDenied }
        } catch {
            continuation.finish(throwing: error)
            return
        }
        let id = entryFeeds.add(continuation, to: uid)
        continuation.yield(db.entryList(of: uid))
        continuation.onTermination = { _ in Task { await self.unwatchEntries(uid, id) } }
    }

    func unwatchEntries(_ uid: String, _ id: UUID) { entryFeeds.remove(id, from: uid) }

    func publishEntries(of uid: String) { entryFeeds.send(db.entryList(of: uid), to: uid) }
}
