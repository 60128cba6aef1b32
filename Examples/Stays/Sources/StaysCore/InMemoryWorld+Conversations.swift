import Foundation

/// Conversations, messages and ratings, as the rules and the summary trigger treat them.
extension InMemoryWorld {
    func member(_ conversationID: String, _ device: String) throws(AppError) -> String {
        let uid = try readable(device)
        guard conversations[conversationID]?.members.contains(uid) == true else { throw .permissionDenied }
        return uid
    }

    func conversationList(of uid: String) -> [Conversation] {
        (userConversations[uid] ?? []).compactMap { conversations[$0] }.sorted(by: Conversation.newestFirst)
    }

    func conversation(_ conversationID: String, device: String) throws(AppError) -> Conversation? {
        guard conversations[conversationID] != nil else {
            try readable(device)
            return nil
        }
        _ = try member(conversationID, device)
        return conversations[conversationID]
    }

    /// The rules of `/messages/$id/$messageId` and `lastMessage`: a member, as themself, 1–2,000 characters.
    func send(_ device: String, text: String, conversationID: String, from uid: String) throws(AppError) {
        try checkFailure()
        guard sessions[device] == uid, conversations[conversationID]?.members.contains(uid) == true,
            (1...Message.maxLength).contains(text.utf16.count)
        else { throw .permissionDenied }
        let message = Message(id: newID("m"), from: uid, text: text, at: now())
        messages[conversationID, default: []].append(message)
        var last = message
        last.id = ""
        conversations[conversationID]?.lastMessage = last
        publishMessages(of: conversationID)
        publishConversations(of: conversations[conversationID]?.members ?? [])
    }

    func watchConversations(of uid: String, device: String, _ continuation: AsyncThrowingStream<[Conversation], any Error>.Continuation) {
        do {
            guard try readable(device) == uid else { throw AppError.permissionDenied }
        } catch {
            continuation.finish(throwing: error)
            return
        }
        let id = UUID()
        conversationWatchers[uid, default: [:]][id] = continuation
        continuation.yield(conversationList(of: uid))
        continuation.onTermination = { _ in Task { await self.unwatchConversations(uid, id) } }
    }

    func unwatchConversations(_ uid: String, _ id: UUID) { conversationWatchers[uid]?[id] = nil }

    func publishConversations(of uids: Set<String>) {
        for uid in uids {
            for continuation in (conversationWatchers[uid] ?? [:]).values { continuation.yield(conversationList(of: uid)) }
        }
    }

    func watchMessages(in conversationID: String, device: String, _ continuation: AsyncThrowingStream<[Message], any Error>.Continuation) {
        do {
            _ = try member(conversationID, device)
        } catch {
            continuation.finish(throwing: error)
            return
        }
        let id = UUID()
        messageWatchers[conversationID, default: [:]][id] = continuation
        continuation.yield(messages[conversationID] ?? [])
        continuation.onTermination = { _ in Task { await self.unwatchMessages(conversationID, id) } }
    }

    func unwatchMessages(_ conversationID: String, _ id: UUID) { messageWatchers[conversationID]?[id] = nil }

    func publishMessages(of conversationID: String) {
        for continuation in (messageWatchers[conversationID] ?? [:]).values { continuation.yield(messages[conversationID] ?? []) }
    }

    // MARK: Ratings

    func ratings(of couchID: String, device: String) throws(AppError) -> [Rating] {
        try readable(device)
        return (ratings[couchID] ?? [:]).values.sorted { ($0.at, $0.id) > ($1.at, $1.id) }
    }

    /// What the summary trigger keeps at `/ratingSummaries/{couchId}`.
    func summary(of couchID: String, device: String) throws(AppError) -> RatingSummary {
        try readable(device)
        return RatingSummary(of: Array((ratings[couchID] ?? [:]).values))
    }

    /// The rules of `/ratings/$couchId/$uid`: the caller's own key, 1–5 stars, text ≤ 1,000, for a confirmed, ended
    /// reservation of theirs for this couch not rated before; then the trigger marks the reservation `ratedAt`.
    func rate(_ device: String, couchID: String, reservationID: String, stars: Int, text: String?, as uid: String) throws(AppError) {
        try checkFailure()
        let now = now()
        guard sessions[device] == uid, Rating.starRange.contains(stars), (text?.utf16.count ?? 0) <= Rating.maxTextLength,
            var reservation = reservations[reservationID], reservation.guestId == uid, reservation.couchId == couchID,
            reservation.status == .confirmed, reservation.hasEnded(at: now), reservation.ratedAt == nil,
            ratings[couchID]?[uid]?.reservationId != reservationID
        else { throw .permissionDenied }
        ratings[couchID, default: [:]][uid] = Rating(id: uid, stars: stars, text: text, at: now, reservationId: reservationID)
        reservation.ratedAt = now
        reservations[reservationID] = reservation
    }
}
