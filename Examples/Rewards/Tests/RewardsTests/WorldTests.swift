import Foundation
import RewardsCore
import Testing

/// The in-memory world's invariants, the ones the server promises: every coin is in the ledger, no balance goes
/// below zero, and concurrent calls cannot overspend a budget, a wallet or a stock.
@Suite("Rewards in-memory world")
struct WorldTests {
    let clock = StepClock()
    let world: InMemoryWorld

    init() throws { world = try CoreFixtures.world(clock: clock) }

    func user(_ device: String) async throws -> (app: UseCases, uid: String) {
        let app = UseCases(world.repositories(device: device), now: { [clock] in clock.now })
        return (app, try await app.startTrial())
    }

    func campaign(_ id: String, _ app: UseCases) async throws -> Campaign {
        try #require(try await app.repositories.campaigns.campaign(id))
    }

    /// The wallet, and the sum of every ledger entry.
    func books(_ app: UseCases, _ uid: String) async throws -> (wallet: Int, ledger: Int) {
        let wallet = try await app.repositories.wallets.wallet(of: uid).coins
        let ledger = try await app.repositories.wallets.ledger(of: uid, limit: .max)
        return (wallet, ledger.reduce(0) { $0 + $1.amount })
    }

    @Test func theLedgerSumsToTheWalletAndNoBalanceGoesBelowZero() async throws {
        let (ann, annID) = try await user("ann")
        _ = try await ann.inviteLink()
        clock.advance(seconds: 1)
        let (bob, bobID) = try await user("bob")
        _ = try await bob.openInvite(inviter: annID)
        let (spring, choc) = (try await campaign("spring-tv", ann), try await campaign("scan-choc", bob))
        var bobRefusals: [AppError?] = []
        for _ in 0..<3 {
            _ = try await ann.shake(spring, proof: .watermark("WM-SPRING-1"))
            bobRefusals.append(await caught { try await bob.shake(choc, proof: .barcode("4006381333931")) })
            clock.advance(seconds: 61)
        }
        #expect(bobRefusals == [nil, nil, .shakeRefused(.dailyLimit)])
        _ = try await ann.redeem(try #require(try await ann.repositories.catalog.item("mug")))
        try await world.adjust(7, for: bobID, reason: "goodwill")
        let overdraft = await caught { try await world.adjust(-1000, for: bobID, reason: "mistake") }
        #expect(overdraft == .insufficientCoins)

        let annBooks = try await books(ann, annID)
        let bobBooks = try await books(bob, bobID)
        #expect(annBooks.wallet == 50 + 30 - 20 && annBooks.ledger == annBooks.wallet)
        #expect(bobBooks.wallet == 50 + 16 + 7 && bobBooks.ledger == bobBooks.wallet)  // the daily limit stopped the third scan
        // The newest `limit`, newest first.
        let newest = try await ann.repositories.wallets.ledger(of: annID, limit: 2)
        #expect(newest.map(\.kind) == [.redeem, .shake])
        #expect(try await ann.repositories.wallets.ledger(of: annID, limit: 0).isEmpty)
    }

    @Test func concurrentShakesOfManyUsersNeverSpendMoreThanTheBudget() async throws {
        var apps: [UseCases] = []
        for i in 0..<10 { apps.append(try await user("fan\(i)").app) }
        let cupFinal = try await campaign("stadium-final", apps[0])  // 10 coins a shake, budget 30
        let results = await withTaskGroup(of: AppError?.self) { group in
            for app in apps {
                group.addTask { await caught { try await app.shake(cupFinal, proof: .watermark("WM-FINAL")) } }
            }
            var results: [AppError?] = []
            for await result in group { results.append(result) }
            return results
        }
        #expect(results.filter { $0 == nil }.count == 3)
        #expect(results.filter { $0 == .shakeRefused(.budgetSpent) }.count == 7)
        #expect(try await apps[0].repositories.campaigns.stats(of: "stadium-final") == CampaignStats(spent: 30, awards: 3))
        var paid = 0
        for app in apps { paid += try await app.statement().wallet.coins }
        #expect(paid == 30)
    }

    @Test func concurrentShakesOfOneUserPayOnceWithinTheCooldown() async throws {
        let (app, uid) = try await user("phone")
        let spring = try await campaign("spring-tv", app)
        let results = await withTaskGroup(of: AppError?.self) { group in
            for _ in 0..<5 {
                group.addTask { await caught { try await app.shake(spring, proof: .watermark("WM-SPRING-1")) } }
            }
            var results: [AppError?] = []
            for await result in group { results.append(result) }
            return results
        }
        #expect(results.filter { $0 == nil }.count == 1)
        #expect(results.filter { $0 == .shakeRefused(.cooldown(retryAfterSeconds: 60)) }.count == 4)
        let paid = try await books(app, uid)
        #expect(paid.wallet == 10 && paid.ledger == 10)
    }

    @Test func twoConcurrentRedeemsWithMoneyForOneBuyOnce() async throws {
        let (app, uid) = try await user("phone")
        try await world.adjust(25, for: uid, reason: "gift")
        let mug = try #require(try await app.repositories.catalog.item("mug"))  // 20 coins
        async let first = caught { try await app.redeem(mug) }
        async let second = caught { try await app.redeem(mug) }
        let results = await [first, second]
        #expect(results.filter { $0 == nil }.count == 1)
        #expect(results.contains(.insufficientCoins))
        let left = try await books(app, uid)
        #expect(left.wallet == 5 && left.ledger == 5)
        #expect(try await app.repositories.catalog.item("mug")?.stock == 4)
        #expect(try await app.repositories.catalog.redemptions(of: uid).count == 1)
    }

    @Test func theLastItemInStockGoesToOneOfTwoBuyers() async throws {
        let (ann, annID) = try await user("ann")
        let (bob, bobID) = try await user("bob")
        try await world.adjust(100, for: annID, reason: "gift")
        try await world.adjust(100, for: bobID, reason: "gift")
        let tshirt = try #require(try await ann.repositories.catalog.item("tshirt"))  // 40 coins, one left
        async let annBuys = caught { try await ann.redeem(tshirt) }
        async let bobBuys = caught { try await bob.redeem(tshirt) }
        let results = await [annBuys, bobBuys]
        #expect(results.filter { $0 == nil }.count == 1 && results.contains(.outOfStock))
        let balances = [try await books(ann, annID), try await books(bob, bobID)]
        #expect(balances.map(\.wallet).sorted() == [60, 100])
        #expect(balances.allSatisfy { $0.wallet == $0.ledger })
        #expect(try await ann.repositories.catalog.item("tshirt")?.stock == 0)
    }

    @Test func aReceiptPaysOnceEvenForAnotherUserAndOnlyWithTheCampaignsProducts() async throws {
        let (ann, _) = try await user("ann")
        let (bob, _) = try await user("bob")
        _ = try await ann.upgradeToPro(linking: .apple(idToken: "apple-ann", rawNonce: nil))
        _ = try await bob.upgradeToPro(linking: .google(idToken: "google-bob"))
        let market = try await campaign("receipt-market", ann)
        let receipt = ShakeProof.receipt(receiptId: "R-2025-001", merchant: "market-1", products: ["9780201379624", "4006381333931"])
        #expect(try await ann.shake(market, proof: receipt) == ShakeOutcome(awarded: 25, balance: 25))
        let again = await caught { try await ann.shake(market, proof: receipt) }
        let stolen = await caught { try await bob.shake(market, proof: receipt) }
        #expect(again == .shakeRefused(.receiptUsed) && stolen == .shakeRefused(.receiptUsed))

        let elsewhere = await caught {
            try await bob.shake(market, proof: .receipt(receiptId: "R-2", merchant: "kiosk-9", products: ["4006381333931"]))
        }
        #expect(elsewhere == .shakeRefused(.invalidProof("Invalid proof: the merchant is not part of this campaign")))
        let otherGoods = await caught {
            try await bob.shake(market, proof: .receipt(receiptId: "R-3", merchant: "market-1", products: ["9780201379624"]))
        }
        #expect(otherGoods == .shakeRefused(.invalidProof("Invalid proof: the receipt has none of the campaign's products")))
        let badID = await caught {
            try await bob.shake(market, proof: .receipt(receiptId: "R/4", merchant: "market-1", products: ["4006381333931"]))
        }
        #expect(badID == .shakeRefused(.invalidProof("The receipt's id cannot be read.")))
        // Refused receipts were not used up.
        let outcome = try await bob.shake(market, proof: .receipt(receiptId: "R-3", merchant: "market-1", products: ["5901234123457"]))
        #expect(outcome.awarded == 25)
    }

    @Test func aQuizPaysOnlyWhenEveryAnswerIsRight() async throws {
        let (app, _) = try await user("phone")
        _ = try await app.upgradeToPro(linking: .google(idToken: "google-quiz"))
        let quiz = try await campaign("quiz-coffee", app)
        let missing = await caught { try await app.shake(quiz, proof: .answers(["q1": "Arabica"])) }
        #expect(missing == .shakeRefused(.invalidProof("Invalid proof: not every answer is right")))
        let wrong = await caught { try await app.shake(quiz, proof: .answers(["q1": "Arabica", "q2": "Peru"])) }
        #expect(wrong == .shakeRefused(.invalidProof("Invalid proof: not every answer is right")))
        let empty = await caught { try await app.shake(quiz, proof: .answers([:])) }
        #expect(empty == .shakeRefused(.invalidProof("Answer every question first.")))
        #expect(try await app.shake(quiz, proof: .answers(["q2": "brazil", "q1": "ARABICA ", "extra": "x"])).awarded == 15)
    }

    @Test func readsAndWritesFollowTheRules() async throws {
        let stranger = world.repositories(device: "stranger")
        let signedOut = await caught { try await stranger.campaigns.campaigns(in: .tv) }
        #expect(signedOut == .permissionDenied)
        let (ann, annID) = try await user("ann")
        let (bob, _) = try await user("bob")
        let peek = await caught { try await bob.repositories.wallets.wallet(of: annID) }
        let peekLedger = await caught { try await bob.repositories.wallets.ledger(of: annID, limit: 10) }
        let peekProfile = await caught { try await bob.repositories.profiles.profile(of: annID) }
        let overwrite = await caught { try await bob.repositories.profiles.save(Profile(gender: .other), for: annID) }
        #expect([peek, peekLedger, peekProfile, overwrite] == Array(repeating: .permissionDenied, count: 4))
        #expect(try await ann.repositories.profiles.profile(of: annID) == nil)
        #expect(try await ann.repositories.campaigns.campaign("nope") == nil)
        #expect(try await ann.repositories.campaigns.stats(of: "trailer") == CampaignStats())

        // A profile alone does not sign an account: it needs a verified phone or email.
        try await ann.repositories.profiles.save(Profile(gender: .female, firstName: "Ann", lastName: "Lee", birthDate: "1990-01-01"), for: annID)
        #expect(try await ann.repositories.rewards.refreshTier() == .trial)
        #expect(await world.storedTier(of: annID) == .trial)

        await ann.repositories.session.signOut()
        #expect(await ann.repositories.session.currentUserID() == nil)
        #expect(await ann.repositories.session.currentTier() == .trial)
    }

    @Test func aFixtureThatDoesNotDecodeIsRefused() {
        #expect(throws: AppError.self) { try InMemoryWorld(fixture: Data("{\"campaigns\": 5}".utf8)) }
    }
}
