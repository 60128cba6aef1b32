import Foundation
import RewardsCore
import Synchronization
import Testing

/// A clock tests move by hand (cooldowns, days, campaign windows, account ages).
final class StepClock: Sendable {
    private let date: Mutex<Date>

    /// 2025-06-15 12:00 UTC: inside the fixture's running campaigns, after `winter-tv`, before `summer-tv`.
    init(_ start: Date = Date(timeIntervalSince1970: 1_749_988_800)) { date = Mutex(start) }

    var now: Date { date.withLock { $0 } }

    func advance(seconds: Double) { date.withLock { $0 += seconds } }
}

/// The test fixtures (`Fixtures/*.json`) and worlds made from them.
enum CoreFixtures {
    static func data(_ name: String) throws -> Data {
        let folder = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        return try Data(contentsOf: folder.appendingPathComponent("\(name).json"))
    }

    /// `world.json`, with `settings` members replaced by `settings`.
    static func world(clock: StepClock = StepClock(), settings: [String: Any] = [:]) throws -> InMemoryWorld {
        var fixture = try data("world")
        if !settings.isEmpty {
            var object = try #require(try JSONSerialization.jsonObject(with: fixture) as? [String: Any])
            var merged = object["settings"] as? [String: Any] ?? [:]
            merged.merge(settings) { $1 }
            object["settings"] = merged
            fixture = try JSONSerialization.data(withJSONObject: object)
        }
        return try InMemoryWorld(fixture: fixture, clock: { clock.now })
    }
}

/// The `AppError` `body` threw (nil if it returned); any other error is a test failure.
func caught<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async -> AppError? {
    do {
        _ = try await body()
        return nil
    } catch let error as AppError {
        return error
    } catch {
        Issue.record("not an AppError: \(error)")
        return .failed("\(error)")
    }
}

/// Use cases and view models against the in-memory world, fed from `Fixtures/world.json`.
@MainActor
@Suite("Rewards app core")
struct AppCoreTests {
    let clock = StepClock()
    let world: InMemoryWorld

    init() throws { world = try CoreFixtures.world(clock: clock) }

    func useCases(_ device: String = "phone") -> UseCases { UseCases(world.repositories(device: device), now: { [clock] in clock.now }) }

    func campaign(_ id: String, _ useCases: UseCases) async throws -> Campaign {
        try #require(try await useCases.repositories.campaigns.campaign(id))
    }

    func eventually(_ what: String, _ check: () -> Bool) async throws {
        for _ in 0..<200 where !check() { try await Task.sleep(for: .milliseconds(10)) }
        #expect(check(), "\(what)")
    }

    /// A trial user on `device` who verified a phone number and gave a gender.
    func signedUser(_ device: String, phone: String) async throws -> UseCases {
        let app = useCases(device)
        _ = try await app.startTrial()
        let verification = try await app.sendPhoneCode(to: phone)
        let code = try #require(await world.sentCode(to: verification.phoneNumber))
        #expect(try await app.completeSignedUpgrade(verification, code: code, gender: .female) == .signed)
        return app
    }

    @Test func onboardingStartsTheTrialOnceAndSkipsTheWelcomeAfterwards() async throws {
        let app = useCases()
        let onboarding = OnboardingViewModel(app)
        await onboarding.start()
        #expect(onboarding.stage == .welcome)

        await world.failNextWith(.offline)
        await onboarding.startTrial()
        #expect(onboarding.state == .failed(.offline))
        #expect(onboarding.stage == .welcome)

        await onboarding.startTrial()
        guard case .ready(let uid) = onboarding.stage else { Issue.record("stage \(onboarding.stage)"); return }
        #expect(onboarding.state == .done)
        #expect(await app.repositories.session.currentTier() == .trial)
        #expect(try await app.statement().wallet.coins == 0)

        let relaunch = OnboardingViewModel(app)
        await relaunch.start()
        #expect(relaunch.stage == .ready(uid: uid))
        #expect(try await app.startTrial() == uid)
    }

    @Test func homeShowsTheSupportedCardsOfTheContextInOrderAndSwitches() async throws {
        let app = useCases()
        let home = HomeViewModel(app)
        await home.load()
        #expect(home.state == .failed(.permissionDenied))  // the rules: signed-in users only

        _ = try await app.startTrial()
        await home.load()
        #expect(home.state == .done)
        // The hologram card is skipped, and the page that had nothing else is gone.
        #expect(
            home.pages == [
                Page(cards: [.text("Shake during the ad", style: .title), .image(url: "https://cdn.rewards.example.com/tv.png", aspectRatio: 1.78)]),
                Page(cards: [
                    .row(icon: "coin", title: "10 coins", subtitle: "per shake"),
                    .footer(text: "Terms apply", link: "https://rewards.example.com/terms"),
                ]),
            ])
        #expect(home.campaigns.map(\.id) == ["winter-tv", "spring-tv", "summer-tv"])

        await home.select(.read)
        #expect(home.context == .read)
        // Stored as {"2": …, "0": …}: read in key order.
        #expect(home.pages == [Page(cards: [.text("Coffee quiz", style: nil)]), Page(cards: [.animation(name: "confetti", loop: true)])])
        #expect(home.campaigns.map(\.id) == ["quiz-coffee"])

        await home.select(.scan)
        #expect(home.pages.isEmpty && home.campaigns.map(\.id) == ["scan-choc"])

        await world.failNextWith(.offline)
        await home.select(.tv)
        #expect(home.state == .failed(.offline))
        #expect(home.pages.isEmpty)
    }

    @Test func aShakePaysThenWaitsForTheCooldownThenStopsAtTheDailyLimit() async throws {
        let app = useCases()
        _ = try await app.startTrial()
        let shake = ShakeViewModel(campaign: try await campaign("spring-tv", app), app)
        await shake.shake(.watermark("WM-SPRING-1"))
        #expect(shake.state == .awarded(amount: 10, balance: 10))
        await shake.shake(.watermark("WM-SPRING-2"))
        #expect(shake.state == .refused(.cooldown(retryAfterSeconds: 60)))
        clock.advance(seconds: 45)
        await shake.shake(.watermark("WM-SPRING-2"))
        #expect(shake.state == .refused(.cooldown(retryAfterSeconds: 15)))
        clock.advance(seconds: 15)
        await shake.shake(.watermark("WM-SPRING-2"))
        #expect(shake.state == .awarded(amount: 10, balance: 20))
        clock.advance(seconds: 60)
        await shake.shake(.watermark("WM-SPRING-1"))
        #expect(shake.state == .awarded(amount: 10, balance: 30))
        clock.advance(seconds: 60)
        await shake.shake(.watermark("WM-SPRING-1"))
        #expect(shake.state == .refused(.dailyLimit))
        shake.reset()
        #expect(shake.state == .idle)

        clock.advance(seconds: 12 * 3600)  // the next UTC day
        await shake.shake(.watermark("WM-SPRING-1"))
        #expect(shake.state == .awarded(amount: 10, balance: 40))
        let stats = try await app.repositories.campaigns.stats(of: "spring-tv")
        #expect(stats == CampaignStats(spent: 40, awards: 4))
    }

    @Test func aShakeIsSentOnceWhileTheLastOneIsBeingChecked() async throws {
        let app = useCases()
        _ = try await app.startTrial()
        let shake = ShakeViewModel(campaign: try await campaign("trailer", app), app)
        // The accelerometer reports one shake three times: the first is sent, the others find it checking.
        async let first: Void = shake.shake(.video(videoId: "trailer-42", watchedSeconds: 31))
        async let second: Void = shake.shake(.video(videoId: "trailer-42", watchedSeconds: 31))
        async let third: Void = shake.shake(.video(videoId: "trailer-42", watchedSeconds: 31))
        _ = await (first, second, third)
        #expect(shake.state == .awarded(amount: 5, balance: 5))
        #expect(try await app.statement().ledger.count == 1)
    }

    @Test func shakesOutsideTheWindowBelowTheTierOrWithWrongProofsAreRefused() async throws {
        let app = useCases()
        _ = try await app.startTrial()
        for (id, proof, refusal) in [
            ("winter-tv", ShakeProof.watermark("WM-WINTER"), ShakeRefusal.notRunning),
            ("summer-tv", .watermark("WM-SUMMER"), .notRunning),
            ("quiz-coffee", .answers(["q1": "Arabica", "q2": "Brazil"]), .tierTooLow(minTier: .signed)),
            ("receipt-market", .receipt(receiptId: "r-1", merchant: "market-1", products: ["4006381333931"]), .tierTooLow(minTier: .pro)),
            ("spring-tv", .watermark("WM-WINTER"), .invalidProof("Invalid proof: the watermark is not this campaign's")),
            ("trailer", .video(videoId: "trailer-42", watchedSeconds: 20), .invalidProof("Invalid proof: watch at least 30 seconds")),
            ("trailer", .video(videoId: "trailer-7", watchedSeconds: 60), .invalidProof("Invalid proof: the video is not this campaign's")),
            ("scan-choc", .barcode("9780201379624"), .invalidProof("Invalid proof: the product is not part of this campaign")),
        ] {
            let shake = ShakeViewModel(campaign: try await campaign(id, app), app)
            await shake.shake(proof)
            #expect(shake.state == .refused(refusal), "\(id)")
        }

        // A campaign deleted since the list was loaded.
        var gone = try await campaign("spring-tv", app)
        gone.id = "gone"
        let shake = ShakeViewModel(campaign: gone, app)
        await shake.shake(.watermark("WM-SPRING-1"))
        #expect(shake.state == .refused(.notFound))

        let online = ShakeViewModel(campaign: try await campaign("scan-choc", app), app)
        await world.failNextWith(.offline)
        await online.shake(.barcode("4006381333931"))
        #expect(online.state == .failed(.offline))
        await online.shake(.barcode("4006381333931"))
        #expect(online.state == .awarded(amount: 8, balance: 8))
        #expect(try await app.statement().wallet.coins == 8)
    }

    @Test func proofsTheClientCanJudgeAreRefusedWithoutAskingTheServer() async throws {
        let app = useCases()
        _ = try await app.startTrial()
        let scan = ShakeViewModel(campaign: try await campaign("scan-choc", app), app)
        // A failure armed for the next server call: a proof refused locally leaves it armed.
        await world.failNextWith(.offline)
        await scan.shake(.barcode("4006381333932"))
        #expect(scan.state == .refused(.invalidProof("4006381333932 is not a valid EAN-13 barcode.")))
        await scan.shake(.watermark("WM-SPRING-1"))
        #expect(scan.state == .refused(.invalidProof("This proof is not for a scan campaign.")))
        await scan.shake(.barcode("4006381333931"))
        #expect(scan.state == .failed(.offline))
    }

    @Test func theWalletShowsTheBalanceAndTheNewestMovementsAndFollowsChanges() async throws {
        let app = useCases()
        let uid = try await app.startTrial()
        let wallet = WalletViewModel(app)
        await wallet.start()
        #expect(wallet.balance == 0 && wallet.ledger.isEmpty && wallet.state == .done)

        _ = try await app.shake(try await campaign("spring-tv", app), proof: .watermark("WM-SPRING-1"))
        try await eventually("the shake in the wallet") { wallet.balance == 10 && wallet.ledger.count == 1 }
        clock.advance(seconds: 1)
        try await world.adjust(-3, for: uid, reason: "support: duplicate")
        try await eventually("the adjustment in the wallet") { wallet.balance == 7 && wallet.ledger.count == 2 }
        #expect(wallet.ledger.map(\.kind) == [.adjust, .shake])
        #expect(wallet.ledger.map(\.amount) == [-3, 10])
        #expect(wallet.ledger.map(\.ref) == ["support: duplicate", "spring-tv"])
        wallet.stop()

        await world.failNextWith(.offline)
        await wallet.refresh()
        #expect(wallet.state == .failed(.offline))
    }

    @Test func theCatalogueRedeemsWhatTheWalletAffordsAndExplainsRefusals() async throws {
        let app = useCases()
        let uid = try await app.startTrial()
        try await world.adjust(50, for: uid, reason: "welcome gift")
        let catalogue = CatalogueViewModel(app)
        await world.failNextWith(.offline)
        await catalogue.load()
        #expect(catalogue.state == .failed(.offline) && catalogue.items.isEmpty)
        await catalogue.load()
        #expect(catalogue.state == .done && catalogue.balance == 50)
        #expect(catalogue.items.map(\.id) == ["sticker", "mug", "tshirt", "headphones"])
        let items = Dictionary(uniqueKeysWithValues: catalogue.items.map { ($0.id, $0) })
        let (mug, tshirt, headphones) = (try #require(items["mug"]), try #require(items["tshirt"]), try #require(items["headphones"]))
        #expect(catalogue.canRedeem(mug) && catalogue.canRedeem(tshirt) && !catalogue.canRedeem(headphones))

        await catalogue.redeem(mug)
        #expect(catalogue.redeemState == .done && catalogue.redeeming == nil)
        let redemption = try #require(catalogue.lastRedemption)
        #expect(redemption.balance == 30 && catalogue.balance == 30)
        #expect(catalogue.items.map(\.stock) == [100, 4, 1, 0])
        let bought = try await app.repositories.catalog.redemptions(of: uid)
        #expect(bought.map(\.id) == [redemption.redemptionId] && bought.first?.title == "Rewards mug" && bought.first?.price == 20)
        #expect(try await app.statement().ledger.first == LedgerEntry(id: redemption.redemptionId, amount: -20, kind: .redeem, ref: "mug", at: clock.now))

        #expect(!catalogue.canRedeem(tshirt))
        await catalogue.redeem(tshirt)  // the button was disabled; the server refuses it all the same
        #expect(catalogue.redeemState == .failed(.insufficientCoins))
        await catalogue.redeem(headphones)
        #expect(catalogue.redeemState == .failed(.outOfStock))
        #expect(catalogue.balance == 30 && catalogue.items.map(\.stock) == [100, 4, 1, 0])
        let gone = await caught { try await app.redeem(CatalogItem(id: "gone", title: "Gone", price: 1, stock: 1)) }
        #expect(gone == .notFound)
    }

    @Test func upgradingToSignedLinksThePhoneKeepsTheUidAndCoinsAndRaisesTheTier() async throws {
        let app = useCases()
        let uid = try await app.startTrial()
        _ = try await app.shake(try await campaign("spring-tv", app), proof: .watermark("WM-SPRING-1"))

        let upgrade = UpgradeToSignedViewModel(app)
        upgrade.phoneNumber = "12345"
        #expect(!upgrade.canSendCode)
        await upgrade.sendCode()
        #expect(upgrade.state == .failed(.invalidInput("Enter your phone number with its country code, like +1 555 555 0100.")))
        #expect(upgrade.step == .phone)

        upgrade.phoneNumber = "+1 (555) 555-0100"
        #expect(upgrade.canSendCode)
        await upgrade.sendCode()
        guard case .code(let verification) = upgrade.step else { Issue.record("step \(upgrade.step)"); return }
        #expect(verification.phoneNumber == "+15555550100")
        let code = try #require(await world.sentCode(to: "+15555550100"))

        upgrade.code = code
        #expect(!upgrade.canVerify)  // no gender yet
        upgrade.gender = .unspecified
        upgrade.code = code == "111111" ? "222222" : "111111"
        await upgrade.verify()
        #expect(upgrade.state == .failed(.wrongCode))
        upgrade.code = code
        #expect(upgrade.canVerify)
        await upgrade.verify()
        #expect(upgrade.state == .done)
        #expect(upgrade.step == .done(.signed))

        #expect(await app.repositories.session.currentUserID() == uid)
        #expect(await app.repositories.session.currentTier() == .signed)
        #expect(try await app.repositories.profiles.profile(of: uid) == Profile(gender: .unspecified))
        #expect(try await app.statement().wallet.coins == 10)
        let outcome = try await app.shake(try await campaign("quiz-coffee", app), proof: .answers(["q1": " arabica ", "q2": "BRAZIL"]))
        #expect(outcome == ShakeOutcome(awarded: 15, balance: 25))

        // The number now belongs to this account: another phone cannot take it.
        let other = UpgradeToSignedViewModel(useCases("other"))
        _ = try await useCases("other").startTrial()
        other.phoneNumber = "+15555550100"
        await other.sendCode()
        other.code = try #require(await world.sentCode(to: "+15555550100"))
        other.gender = .male
        await other.verify()
        #expect(other.state == .failed(.credentialInUse))
        other.changeNumber()
        #expect(other.step == .phone && other.state == .idle)
    }

    @Test func upgradingToSignedByEmailLinkWorksLikeThePhone() async throws {
        let app = useCases()
        let uid = try await app.startTrial()
        let continueURL = try #require(URL(string: "https://rewards.example.com/signin"))
        let notAnAddress = await caught { try await app.sendEmailLink(to: "not-an-address", continueURL: continueURL) }
        #expect(notAnAddress == .invalidInput("Enter a valid email address."))
        try await app.sendEmailLink(to: "ann@example.com", continueURL: continueURL)
        let link = try #require(await world.sentLink(to: "ann@example.com"))
        #expect(link.absoluteString.hasPrefix("https://rewards.example.com/signin?"))
        let forged = try #require(URL(string: "https://rewards.example.com/signin?mode=signIn&oobCode=guess"))
        let guessed = await caught { try await app.completeSignedUpgrade(email: "ann@example.com", link: forged, gender: .female) }
        #expect(guessed == .wrongCode)
        #expect(try await app.completeSignedUpgrade(email: "ann@example.com", link: link, gender: .female) == .signed)
        #expect(await app.repositories.session.currentUserID() == uid)
    }

    @Test func upgradingToProByProfileChecksTheFormAndNeedsASignedAccount() async throws {
        let trial = useCases("trial")
        _ = try await trial.startTrial()
        let early = UpgradeToProViewModel(trial)
        early.form = ProfileForm(firstName: "Ann", lastName: "Lee", birthDate: "1990-02-28")
        await early.save()
        #expect(early.state == .failed(.tierTooLow(required: .signed)))

        let app = try await signedUser("phone", phone: "+15555550101")
        let upgrade = UpgradeToProViewModel(app)
        await upgrade.load()
        #expect(upgrade.form == ProfileForm())
        #expect(Set(upgrade.problems.keys) == [.firstName, .lastName, .birthDate] && !upgrade.canSave)
        upgrade.form = ProfileForm(firstName: " Ann ", lastName: "Lee", birthDate: "2023-02-29")
        #expect(Set(upgrade.problems.keys) == [.birthDate])
        await upgrade.save()
        #expect(upgrade.state == .failed(.invalidInput("Enter your birth date as YYYY-MM-DD, a real day in the past.")))
        upgrade.form.birthDate = "2025-06-15"  // today is not in the past
        #expect(!upgrade.canSave)
        upgrade.form.birthDate = "1990-02-28"
        #expect(upgrade.canSave)
        await upgrade.save()
        #expect(upgrade.state == .done && upgrade.tier == .pro)
        let uid = try #require(await app.repositories.session.currentUserID())
        #expect(
            try await app.repositories.profiles.profile(of: uid)
                == Profile(gender: .female, firstName: "Ann", lastName: "Lee", birthDate: "1990-02-28"))
        let reload = UpgradeToProViewModel(app)
        await reload.load()
        #expect(reload.form == ProfileForm(firstName: "Ann", lastName: "Lee", birthDate: "1990-02-28"))

        let receipt = try await campaign("receipt-market", app)
        let outcome = try await app.shake(receipt, proof: .receipt(receiptId: "r-1", merchant: "market-1", products: ["5901234123457"]))
        #expect(outcome.awarded == 25)
    }

    @Test func upgradingToProByGoogleOrAppleWorksFromTheTrialAndOncePerProviderAccount() async throws {
        let app = useCases()
        let uid = try await app.startTrial()
        let upgrade = UpgradeToProViewModel(app)
        await upgrade.link(.google(idToken: "google-ann"))
        #expect(upgrade.state == .done && upgrade.tier == .pro)
        #expect(await app.repositories.session.currentTier() == .pro)
        await upgrade.link(.google(idToken: "google-ann-2"))  // already linked: nothing to do
        #expect(upgrade.state == .done && upgrade.tier == .pro)
        #expect(await app.repositories.session.currentUserID() == uid)

        let other = useCases("other")
        _ = try await other.startTrial()
        let taken = UpgradeToProViewModel(other)
        await taken.link(.google(idToken: "google-ann"))
        #expect(taken.state == .failed(.credentialInUse) && taken.tier == nil)
        await taken.link(.apple(idToken: "apple-bob", rawNonce: "n"))
        #expect(taken.tier == .pro)
    }

    @Test func invitesPayBothSidesOnceOnlyToNewAccountsAndNeverToOneself() async throws {
        let carol = useCases("carol")
        _ = try await carol.startTrial()  // older than Ann's link
        clock.advance(seconds: 1)

        let ann = useCases("ann")
        let annID = try await ann.startTrial()
        let share = InviteViewModel(ann)
        await world.failNextWith(.offline)
        await share.load()
        #expect(share.state == .failed(.offline) && share.shortLink == nil && share.shareText == nil)
        await share.load()
        #expect(share.state == .done)
        let link = try #require(share.shortLink)
        #expect(link.absoluteString.hasPrefix("https://go.rewards.example.com/"))
        #expect(share.shareText?.contains(link.absoluteString) == true)
        await share.load()
        #expect(share.shortLink == link)  // the same link every time

        await share.open(inviter: annID)
        #expect(share.openState == .failed(.inviteRefused(.ownInvite)))

        clock.advance(seconds: 1)
        let bob = useCases("bob")
        let opened = InviteViewModel(bob)
        // A fresh install opened by the invite's deep link: the trial starts on the way.
        await opened.open(DeepLinks().url(for: .invite(inviter: annID)))
        #expect(opened.openState == .done)
        #expect(opened.outcome == InviteOutcome(awarded: 50, balance: 50))
        let bobID = try #require(await bob.repositories.session.currentUserID())
        let (annLedger, bobLedger) = (try await ann.statement().ledger, try await bob.statement().ledger)
        #expect(annLedger.map(\.kind) == [.invite] && annLedger.map(\.ref) == [bobID] && annLedger.map(\.amount) == [50])
        #expect(bobLedger.map(\.kind) == [.invite] && bobLedger.map(\.ref) == [annID])

        await opened.open(inviter: annID)
        #expect(opened.openState == .failed(.inviteRefused(.alreadyRedeemed)))
        // The short link itself, as shared: the server (here the world) knows its deep link.
        let dave = useCases("dave")
        let daveOpens = InviteViewModel(dave)
        await daveOpens.open(link)
        #expect(daveOpens.openState == .done && daveOpens.outcome == InviteOutcome(awarded: 50, balance: 50))
        #expect(try await ann.statement().wallet.coins == 100)
        await daveOpens.open(try #require(URL(string: "https://go.rewards.example.com/unknown")))
        #expect(daveOpens.openState == .failed(.inviteRefused(.invalidInviter)))

        let carolOpens = InviteViewModel(carol)
        await carolOpens.open(inviter: annID)
        #expect(carolOpens.openState == .failed(.inviteRefused(.notNew)))
        await carolOpens.open(inviter: bobID)  // Bob never shared a link
        #expect(carolOpens.openState == .failed(.inviteRefused(.unknownInviter)))
        await carolOpens.open(try #require(URL(string: "https://rewards.example.com/invite?inviter=a.b")))
        #expect(carolOpens.openState == .failed(.inviteRefused(.invalidInviter)))
        await carolOpens.open(try #require(URL(string: "https://rewards.example.com/catalog/mug")))
        #expect(carolOpens.openState == .failed(.inviteRefused(.invalidInviter)))
        #expect(try await carol.statement().wallet.coins == 0)
    }

    @Test func anInviteThatNeedsAVerifiedAccountWaitsForTheUpgrade() async throws {
        let world = try CoreFixtures.world(clock: clock, settings: ["inviteMinTier": "signed", "inviteReward": 30])
        let ann = UseCases(world.repositories(device: "ann"))
        let annID = try await ann.startTrial()
        _ = try await ann.inviteLink()
        clock.advance(seconds: 1)

        let bob = UseCases(world.repositories(device: "bob"))
        let invite = InviteViewModel(bob)
        await invite.open(inviter: annID)
        #expect(invite.openState == .failed(.tierTooLow(required: .signed)))
        #expect(invite.pendingInviter == annID)

        let verification = try await bob.sendPhoneCode(to: "+4915112345678")
        let code = try #require(await world.sentCode(to: "+4915112345678"))
        #expect(try await bob.completeSignedUpgrade(verification, code: code, gender: .male) == .signed)
        await invite.retryPending()
        #expect(invite.openState == .done && invite.outcome == InviteOutcome(awarded: 30, balance: 30))
        #expect(invite.pendingInviter == nil)
    }

    @Test func actionsBeforeTheTrialStartsAskForIt() async throws {
        let app = useCases()
        let errors = [
            await caught { try await app.statement() }, await caught { try await app.inviteLink() },
            await caught { try await app.sendPhoneCode(to: "+15555550100") },
            await caught { try await app.upgradeToPro(linking: .google(idToken: "t")) },
        ]
        #expect(errors == Array(repeating: .notSignedIn, count: 4))
        let wallet = WalletViewModel(app)
        await wallet.start()
        #expect(wallet.state == .failed(.notSignedIn) && wallet.balance == nil)
        #expect(AppError.notSignedIn.description == "Please start the app first.")
    }
}
