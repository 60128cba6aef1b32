import Foundation

/// `reserve` and `cancelReservation`, each one atomic step checked in the server's order, and the reads the rules allow.
extension InMemoryWorld {
    /// The guest's automatic first message (Examples/Stays/README.md).
    static func firstMessage(_ stay: DayRange, guests: Int) -> String {
        "Hi! I'd like to stay from \(stay.from) to \(stay.to) (\(guests) \(guests == 1 ? "guest" : "guests"))."
    }

    func reserve(_ device: String, couchID: String, stay: DayRange, guests: Int) throws(AppError) -> ReservationOutcome {
        try checkFailure()
        let uid = try signedIn(device)
        guard Self.isID(couchID) else { throw .invalidInput("couchId must be an id") }
        guard !stay.isEmpty else { throw .invalidInput("to must be after from") }
        guard guests >= 1 else { throw .invalidInput("guests must be at least 1") }
        guard let couch = couches[couchID] else { throw .notFound }
        guard couch.hostId != uid else { throw .reservationRefused(.ownCouch) }
        let now = now()
        guard stay.from >= Day(now) else { throw .reservationRefused(.past) }
        guard stay.count <= StayRules.maxNights else { throw .reservationRefused(.tooLong) }
        guard guests <= couch.capacity else { throw .reservationRefused(.capacity) }
        let taken = stay.nights.filter { reservedNights[couchID]?[$0] != nil }
        guard taken.isEmpty else { throw .reservationRefused(.overlap(nights: taken)) }

        let reservationID = newID("r")
        reservations[reservationID] = Reservation(
            id: reservationID, couchId: couchID, guestId: uid, hostId: couch.hostId, from: stay.from, to: stay.to, guests: guests, createdAt: now)
        for night in stay.nights { reservedNights[couchID, default: [:]][night] = reservationID }
        userReservations[uid, default: []].insert(reservationID)
        userReservations[couch.hostId, default: []].insert(reservationID)

        let conversationID = newID("v")
        let message = Message(id: newID("m"), from: uid, text: Self.firstMessage(stay, guests: guests), at: now)
        var last = message
        last.id = ""
        conversations[conversationID] = Conversation(
            id: conversationID, members: [uid, couch.hostId], couchId: couchID, reservationId: reservationID, lastMessage: last)
        messages[conversationID] = [message]
        userConversations[uid, default: []].insert(conversationID)
        userConversations[couch.hostId, default: []].insert(conversationID)
        publishConversations(of: [uid, couch.hostId])
        publishMessages(of: conversationID)
        return ReservationOutcome(reservationId: reservationID, conversationId: conversationID)
    }

    func cancelReservation(_ device: String, reservationID: String) throws(AppError) {
        try checkFailure()
        let uid = try signedIn(device)
        guard Self.isID(reservationID), var reservation = reservations[reservationID] else { throw .notFound }
        guard reservation.guestId == uid || reservation.hostId == uid else { throw .permissionDenied }
        guard reservation.status == .confirmed else { throw .alreadyCancelled }
        reservation.status = .cancelled
        reservations[reservationID] = reservation
        for night in reservation.stay.nights where reservedNights[reservation.couchId]?[night] == reservationID {
            reservedNights[reservation.couchId]?[night] = nil
        }
    }

    func reservation(_ reservationID: String, device: String) throws(AppError) -> Reservation? {
        let uid = try readable(device)
        guard let reservation = reservations[reservationID] else { return nil }
        guard reservation.guestId == uid || reservation.hostId == uid else { throw .permissionDenied }
        return reservation
    }

    func reservations(of uid: String, device: String) throws(AppError) -> [Reservation] {
        guard try readable(device) == uid else { throw .permissionDenied }
        return (userReservations[uid] ?? []).compactMap { reservations[$0] }.sorted { ($0.from, $0.id) > ($1.from, $1.id) }
    }

    func reservedNights(of couchID: String, device: String) throws(AppError) -> Set<Day> {
        try readable(device)
        return Set((reservedNights[couchID] ?? [:]).keys)
    }
}
