import Foundation

/// Wishlists and the top gifts, as the rules of `/wishes` and the wish trigger treat them.
extension InMemoryWorld {
    /// The rules of `/wishes/$uid/$wishId`'s owner fields.
    static func isValid(_ draft: WishDraft) -> Bool {
        guard (1...WishDraft.maxNameLength).contains(draft.name.utf16.count) else { return false }
        if let description = draft.description, description.utf16.count > WishDraft.maxDescriptionLength { return false }
        if let link = draft.link, !WishDraft.isWebLink(link) || link.utf16.count > WishDraft.maxLinkLength { return false }
        if let price = draft.price, !(price.isFinite && price >= 0) { return false }
        return true
    }

    func createWish(_ device: String, _ draft: WishDraft) throws(AppError) -> String {
        let uid = try signedIn(device)
        guard Self.isValid(draft) else { throw .permissionDenied }
        let id = newID("w")
        let wish = Wish(id: id, name: draft.name, description: draft.description, link: draft.link, price: draft.price, createdAt: now())
        write(wish, owner: uid, wishID: id)
        return id
    }

    func updateWish(_ device: String, _ wishID: String, _ draft: WishDraft) throws(AppError) {
        let uid = try signedIn(device)
        guard Self.isID(wishID), var wish = db.wishes[uid]?[wishID] else { throw .notFound }
        guard Self.isValid(draft) else { throw .permissionDenied }
        wish.name = draft.name
        wish.description = draft.description
        wish.link = draft.link
        wish.price = draft.price
        write(wish, owner: uid, wishID: wishID)
    }

    func deleteWish(_ device: String, _ wishID: String) throws(AppError) {
        let uid = try signedIn(device)
        guard Self.isID(wishID), db.wishes[uid]?[wishID] != nil else { return }
        write(nil, owner: uid, wishID: wishID)
    }

    func markReceived(_ device: String, _ wishID: String) throws(AppError) {
        let uid = try signedIn(device)
        guard Self.isID(wishID), var wish = db.wishes[uid]?[wishID] else { throw .notFound }
        wish.received = true
        write(wish, owner: uid, wishID: wishID)
    }

    /// Stores (or, with nil, deletes) a wish, runs the wish trigger and tells the listeners.
    func write(_ wish: Wish?, owner: String, wishID: String) {
        let before = db.wishes[owner]?[wishID]
        db.wishes[owner, default: [:]][wishID] = wish
        if db.wishes[owner]?.isEmpty == true { db.wishes[owner] = nil }
        let reserver = db.wishWritten(owner: owner, wishID: wishID, before: before, after: wish)
        publishWishes(of: owner)
        if let reserver { publishEntries(of: reserver) }
        if before?.name != wish?.name { publishTopGifts() }
    }

    func watchWishes(of uid: String, device: String, _ continuation: Feeds<[Wish]>.Continuation) {
        do {
            try readable(device)
        } catch {
            continuation.finish(throwing: error)
            return
        }
        let id = wishFeeds.add(continuation, to: uid)
        continuation.yield(db.wishList(of: uid))
        continuation.onTermination = { _ in Task { await self.unwatchWishes(uid, id) } }
    }

    func unwatchWishes(_ uid: String, _ id: UUID) { wishFeeds.remove(id, from: uid) }

    func publishWishes(of uid: String) { wishFeeds.send(db.wishList(of: uid), to: uid) }

    // MARK: Top gifts

    func watchTopGifts(limit: Int, device: String, _ continuation: Feeds<[TopGift]>.Continuation) {
        do {
            try readable(device)
        } catch {
            continuation.finish(throwing: error)
            return
        }
        let topic = String(limit)
        let id = topGiftFeeds.add(continuation, to: topic)
        continuation.yield(db.topList(limit: limit))
        continuation.onTermination = { _ in Task { await self.unwatchTopGifts(topic, id) } }
    }

    func unwatchTopGifts(_ topic: String, _ id: UUID) { topGiftFeeds.remove(id, from: topic) }

    func publishTopGifts() {
        for topic in topGiftFeeds.topics { topGiftFeeds.send(db.topList(limit: Int(topic) ?? 0), to: topic) }
    }
}
