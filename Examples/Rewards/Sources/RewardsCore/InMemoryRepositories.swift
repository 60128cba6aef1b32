import Foundation

// The repositories over an `InMemoryWorld`, each as one phone (`device`) uses it.

struct InMemorySession: SessionRepository {
    let world: InMemoryWorld
    let device: String

    func currentUserID() async -> String? { await world.sessions[device] }
    func startTrial() async throws(AppError) -> String { try await world.startTrial(device) }
    func sendPhoneCode(to phoneNumber: String) async throws(AppError) -> String { try await world.sendPhoneCode(to: phoneNumber) }
    func linkPhone(verificationID: String, code: String) async throws(AppError) -> String {
        try await world.linkPhone(device, verificationID: verificationID, code: code)
    }
    func sendEmailLink(to email: String, continueURL: URL) async throws(AppError) {
        try await world.sendEmailLink(to: email, continueURL: continueURL)
    }
    func linkEmail(_ email: String, link: URL) async throws(AppError) -> String { try await world.linkEmail(device, email: email, link: link) }
    func link(_ token: IdentityToken) async throws(AppError) -> String { try await world.link(device, token) }
    func refreshToken() async throws(AppError) -> Tier { try await world.refreshToken(device) }
    func currentTier() async -> Tier { await world.currentTier(device) }
    func signOut() async { await world.signOut(device) }
}

struct InMemoryCampaigns: CampaignRepository {
    let world: InMemoryWorld
    let device: String

    func campaigns(in context: Context) async throws(AppError) -> [Campaign] { try await world.campaigns(in: context, device: device) }
    func campaign(_ id: String) async throws(AppError) -> Campaign? { try await world.campaign(id, device: device) }
    func stats(of campaignID: String) async throws(AppError) -> CampaignStats { try await world.stats(of: campaignID, device: device) }
}

struct InMemoryPages: PageRepository {
    let world: InMemoryWorld
    let device: String

    func pages(of context: Context) async throws(AppError) -> [Page] { try await world.pages(of: context, device: device) }
}

struct InMemoryWallets: WalletRepository {
    let world: InMemoryWorld
    let device: String

    func wallet(of uid: String) async throws(AppError) -> Wallet { try await world.wallet(of: uid, device: device) }

    func walletUpdates(of uid: String) -> AsyncThrowingStream<Wallet, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Wallet, any Error>.makeStream()
        let (world, device) = (self.world, self.device)
        Task { await world.watchWallet(uid, device: device, continuation) }
        return stream
    }

    func ledger(of uid: String, limit: Int) async throws(AppError) -> [LedgerEntry] {
        try await world.ledger(of: uid, limit: limit, device: device)
    }
}

struct InMemoryRewards: RewardsService {
    let world: InMemoryWorld
    let device: String

    func shake(campaignID: String, proof: ShakeProof) async throws(AppError) -> ShakeOutcome {
        try await world.shake(device, campaignID: campaignID, proof: proof)
    }
    func redeem(itemID: String) async throws(AppError) -> RedeemOutcome { try await world.redeem(device, itemID: itemID) }
    func refreshTier() async throws(AppError) -> Tier { try await world.refreshTier(device) }
    func createInvite() async throws(AppError) -> URL { try await world.createInvite(device) }
    func redeemInvite(inviter: String) async throws(AppError) -> InviteOutcome { try await world.redeemInvite(device, inviter: inviter) }
    func deepLink(behind shortLink: URL) async throws(AppError) -> URL? { await world.deepLink(behind: shortLink) }
}

struct InMemoryCatalog: CatalogRepository {
    let world: InMemoryWorld
    let device: String

    func items() async throws(AppError) -> [CatalogItem] { try await world.items(device: device) }
    func item(_ id: String) async throws(AppError) -> CatalogItem? { try await world.item(id, device: device) }
    func redemptions(of uid: String) async throws(AppError) -> [Redemption] { try await world.redemptions(of: uid, device: device) }
}

struct InMemoryProfiles: ProfileRepository {
    let world: InMemoryWorld
    let device: String

    func profile(of uid: String) async throws(AppError) -> Profile? { try await world.profile(uid, device: device) }
    func save(_ profile: Profile, for uid: String) async throws(AppError) { try await world.saveProfile(profile, for: uid, device: device) }
}
