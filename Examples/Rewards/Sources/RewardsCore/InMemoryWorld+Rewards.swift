import Foundation

/// The callables (Examples/Rewards/README.md), each one atomic step, checked in the server's order; and the reads the rules allow.
extension InMemoryWorld {
    /// An id a client sends, which becomes a path segment: a database key of 1–128 bytes.
    static func isID(_ text: String) -> Bool { text.utf8.count <= 128 && isKey(text) }

    func shake(_ device: String, campaignID: String, proof: ShakeProof) throws(AppError) -> ShakeOutcome {
        try checkFailure()
        let uid = try signedIn(device)
        guard Self.isID(campaignID) else { throw .shakeRefused(.invalidProof("campaignId must be an id")) }
        guard let campaign = campaigns[campaignID] else { throw .shakeRefused(.notFound) }
        do {
            try proof.validate(for: campaign.context)
        } catch {
            throw .shakeRefused(error)
        }
        let now = now()
        let at = millis(now)
        guard campaign.isRunning(at: now) else { throw .shakeRefused(.notRunning) }
        // The stored tier may predate an upgrade nobody reported: worked out again before refusing, as the server does.
        if (tiers[uid] ?? .trial) < campaign.minTier, recomputeTier(uid) < campaign.minTier {
            throw .shakeRefused(.tierTooLow(minTier: campaign.minTier))
        }
        if let failure = Self.failure(of: proof, against: proofs[campaignID] ?? ProofSpec()) {
            throw .shakeRefused(.invalidProof("Invalid proof: \(failure)"))
        }
        let state = shakes[uid]?[campaignID]
        let cooldown = Int64(campaign.cooldownSeconds) * 1000
        if let state, at - state.lastAt < cooldown {
            throw .shakeRefused(.cooldown(retryAfterSeconds: Int((cooldown - (at - state.lastAt) + 999) / 1000)))
        }
        let day = at / 86_400_000
        let count = state.map { $0.day == day ? $0.count : 0 } ?? 0
        guard count < campaign.dailyLimitPerUser else { throw .shakeRefused(.dailyLimit) }
        let paid = stats[campaignID] ?? CampaignStats()
        guard paid.spent + campaign.coins <= campaign.budget else { throw .shakeRefused(.budgetSpent) }
        if case .receipt(let receiptId, _, _) = proof {
            guard receipts[receiptId] == nil else { throw .shakeRefused(.receiptUsed) }
            receipts[receiptId] = (uid, campaignID, now)
        }
        shakes[uid, default: [:]][campaignID] = ShakeState(lastAt: at, day: day, count: count + 1)
        stats[campaignID] = CampaignStats(spent: paid.spent + campaign.coins, awards: paid.awards + 1)
        let balance = try move(campaign.coins, of: uid, kind: .shake, ref: campaignID, id: newID("l"))
        return ShakeOutcome(awarded: campaign.coins, balance: balance)
    }

    /// Nil when `proof` meets the campaign's, else why not (the server's words).
    static func failure(of proof: ShakeProof, against spec: ProofSpec) -> String? {
        func normalized(_ s: String) -> String { s.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() }
        switch proof {
        case .watermark(let code):
            return (spec.watermarks ?? []).contains(code) ? nil : "the watermark is not this campaign's"
        case .answers(let given):
            guard let expected = spec.answers, !expected.isEmpty else { return "the campaign has no quiz" }
            for (question, right) in expected where given[question].map(normalized) != normalized(right) {
                return "not every answer is right"
            }
            return nil
        case .video(let videoId, let watchedSeconds):
            guard spec.videoId == videoId else { return "the video is not this campaign's" }
            let needed = spec.minSeconds ?? 0
            return watchedSeconds >= needed ? nil : "watch at least \(Int(needed.rounded(.up))) seconds"
        case .barcode(let code):
            return (spec.products ?? []).contains(code) ? nil : "the product is not part of this campaign"
        case .receipt(_, let merchant, let products):
            guard (spec.merchants ?? []).contains(merchant) else { return "the merchant is not part of this campaign" }
            let wanted = Set(spec.products ?? [])
            return products.contains(where: wanted.contains) ? nil : "the receipt has none of the campaign's products"
        }
    }

    func redeem(_ device: String, itemID: String) throws(AppError) -> RedeemOutcome {
        try checkFailure()
        let uid = try signedIn(device)
        guard Self.isID(itemID) else { throw .invalidInput("itemId must be an id") }
        guard var item = catalog[itemID], item.price >= 0 else { throw .notFound }
        guard item.stock > 0 else { throw .outOfStock }
        let id = newID("r")
        let balance = try move(-item.price, of: uid, kind: .redeem, ref: itemID, id: id)
        item.stock -= 1
        catalog[itemID] = item
        redemptions[uid, default: []].append(Redemption(id: id, itemId: itemID, title: item.title, price: item.price, at: now()))
        return RedeemOutcome(redemptionId: id, balance: balance)
    }

    func refreshTier(_ device: String) throws(AppError) -> Tier {
        try checkFailure()
        return recomputeTier(try signedIn(device))
    }

    func createInvite(_ device: String) throws(AppError) -> URL {
        try checkFailure()
        let uid = try signedIn(device)
        if let link = inviteLinks[uid] { return link.shortLink }
        guard let link = URL(string: "\(linkPrefix)/\(newID("i"))") else { throw .failed("linkPrefix \(linkPrefix) is not a URL") }
        inviteLinks[uid] = (link, now())
        return link
    }

    /// The invite deep link of a short link this world made (what the server's `reopenAttribution` answers).
    func deepLink(behind shortLink: URL) -> URL? {
        guard let uid = inviteLinks.first(where: { $0.value.shortLink == shortLink })?.key else { return nil }
        return DeepLinks().url(for: .invite(inviter: uid))
    }

    func redeemInvite(_ device: String, inviter: String) throws(AppError) -> InviteOutcome {
        try checkFailure()
        let invitee = try signedIn(device)
        guard Self.isID(inviter), inviter != invitee else { throw .inviteRefused(.invalidInviter) }
        guard accounts[inviter] != nil, let made = inviteLinks[inviter]?.createdAt else { throw .inviteRefused(.unknownInviter) }
        guard let created = accounts[invitee]?.createdAt, created > made else { throw .inviteRefused(.notNew) }
        if inviteMinTier > .trial, (tiers[invitee] ?? .trial) < inviteMinTier, recomputeTier(invitee) < inviteMinTier {
            throw .tierTooLow(required: inviteMinTier)
        }
        guard invites[invitee] == nil else { throw .inviteRefused(.alreadyRedeemed) }
        invites[invitee] = (inviter, now())
        try move(inviteReward, of: inviter, kind: .invite, ref: invitee, id: newID("l"))
        let balance = try move(inviteReward, of: invitee, kind: .invite, ref: inviter, id: newID("l"))
        return InviteOutcome(awarded: inviteReward, balance: balance)
    }

    // MARK: Reads

    func campaigns(in context: Context, device: String) throws(AppError) -> [Campaign] {
        try readable(device)
        return campaigns.values.filter { $0.context == context }.sorted { ($0.endsAt, $0.id) < ($1.endsAt, $1.id) }
    }

    func campaign(_ id: String, device: String) throws(AppError) -> Campaign? {
        try readable(device)
        return campaigns[id]
    }

    func stats(of id: String, device: String) throws(AppError) -> CampaignStats {
        try readable(device)
        return stats[id] ?? CampaignStats()
    }

    func pages(of context: Context, device: String) throws(AppError) -> [Page] {
        try readable(device)
        return pages[context] ?? []
    }

    func items(device: String) throws(AppError) -> [CatalogItem] {
        try readable(device)
        return catalog.values.sorted { ($0.price, $0.title, $0.id) < ($1.price, $1.title, $1.id) }
    }

    func item(_ id: String, device: String) throws(AppError) -> CatalogItem? {
        try readable(device)
        return catalog[id]
    }

    func wallet(of uid: String, device: String) throws(AppError) -> Wallet {
        try owned(uid, device)
        return Wallet(coins: wallets[uid] ?? 0)
    }

    func ledger(of uid: String, limit: Int, device: String) throws(AppError) -> [LedgerEntry] {
        try owned(uid, device)
        return Array((ledger[uid] ?? []).sorted(by: LedgerEntry.newestFirst).prefix(max(0, limit)))
    }

    func redemptions(of uid: String, device: String) throws(AppError) -> [Redemption] {
        try owned(uid, device)
        return (redemptions[uid] ?? []).sorted { ($0.at, $0.id) > ($1.at, $1.id) }
    }
}
