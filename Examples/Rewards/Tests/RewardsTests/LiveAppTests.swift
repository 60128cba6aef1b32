import Foundation
import Hearth
import HearthCore
import HearthTesting
import NIOHTTP1
import RewardsCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The app core against a real server: the built `hearth-functions-example` (the stock server plus the Rewards
/// functions), run as `serve --dev` with a link domain, with the example's rules.json installed and campaigns,
/// catalogue and pages published as an admin would. Users are `HearthApp`s driven through the view models.
@MainActor
@Suite("Rewards against a live server", .serialized)
struct LiveAppTests {
    static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let linkDomain = "https://go.rewards.test"

    /// The functions example in a fresh data folder, the rules installed; `body` gets the process.
    func withServer(_ body: (HearthProcess) async throws -> Void) async throws {
        let data = temporaryDataFolder()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let binary = try HearthProcess.binary.deletingLastPathComponent().appendingPathComponent("hearth-functions-example")
        let server = try HearthProcess(
            executable: binary, arguments: ["serve", "--port", "0", "--data", data, "--dev", "--link-domains", Self.linkDomain])
        do {
            try await server.waitForPort()
            let rules = try String(contentsOf: Self.example.appendingPathComponent("rules.json"), encoding: .utf8)
            try #require(try await server.request(.PUT, "/.settings/rules.json", body: rules).0 == 200)
            try await body(server)
        } catch {
            server.signal(SIGKILL)
            _ = try? await server.exitCode()
            throw error
        }
        server.signal(SIGTERM)
        #expect(try await server.exitCode() == 0)
    }

    func app(_ name: String, _ server: HearthProcess) -> HearthApp {
        HearthApp(
            name: name,
            options: HearthOptions(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, projectID: "demo", apiKey: "rewards-key"))
    }

    static var nowMillis: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// Publishes a campaign through the admin HTTP function (the proof goes to /campaignProofs).
    func publish(_ id: String, _ context: String, proof: String, coins: Int = 10, cooldown: Int = 60, daily: Int = 5, budget: Int = 100_000,
        minTier: String = "trial", window: (Int64, Int64)? = nil, on server: HearthProcess) async throws
    {
        let (starts, ends) = window ?? (Self.nowMillis - 60_000, Self.nowMillis + 3_600_000)
        let body = """
            {"context": "\(context)", "title": "\(id)", "coins": \(coins), "cooldownSeconds": \(cooldown), "dailyLimitPerUser": \(daily),
             "budget": \(budget), "startsAt": \(starts), "endsAt": \(ends), "minTier": "\(minTier)", "proof": \(proof)}
            """
        let (status, answer) = try await server.request(.PUT, "/rewards-admin/campaigns/\(id)", body: body)
        try #require(status == 200, "\(answer)")
    }

    /// One campaign per context, a pro-only one, one that ended, the catalogue and the TV pages.
    func seed(_ server: HearthProcess) async throws {
        try await publish("tv-cola", "tv", proof: #"{"watermarks": ["WM-COLA-1", "WM-COLA-2"]}"#, cooldown: 2, on: server)
        try await publish("read-quiz", "read", proof: #"{"answers": {"q1": "Paris", "q2": "42"}}"#, on: server)
        try await publish("video-trailer", "video", proof: #"{"videoId": "trailer-7", "minSeconds": 30}"#, on: server)
        try await publish("scan-choc", "scan", proof: #"{"products": ["4006381333931"]}"#, on: server)
        try await publish(
            "receipt-shop", "receipt", proof: #"{"merchants": ["shop-1"], "products": ["5449000000996"]}"#, cooldown: 0, on: server)
        try await publish("stadium-final", "stadium", proof: #"{"watermarks": ["WM-STADIUM"]}"#, cooldown: 1, daily: 2, on: server)
        try await publish("tv-pro", "tv", proof: #"{"watermarks": ["WM-PRO"]}"#, coins: 25, minTier: "pro", on: server)
        try await publish(
            "tv-old", "tv", proof: #"{"watermarks": ["WM-OLD"]}"#, window: (Self.nowMillis - 7_200_000, Self.nowMillis - 3_600_000), on: server)
        let catalog = #"{"mug": {"title": "Mug", "price": 40, "stock": 5}, "cap": {"title": "Cap", "price": 1000, "stock": 1}}"#
        try #require(try await server.request(.PUT, "/catalog.json", body: catalog).0 == 200)
        let pages = """
            [[{"type": "text", "text": "Shake during the ad", "style": "title"}, {"type": "row", "icon": "coin", "title": "10 coins",
              "subtitle": "per shake"}, {"type": "animation", "name": "shake", "loop": true}], [{"type": "footer", "text": "Terms"}]]
            """
        try #require(try await server.request(.PUT, "/pages/tv.json", body: pages).0 == 200)
    }

    /// The code `--dev` keeps for the last text sent to `phone`.
    func code(sentTo phone: String, _ server: HearthProcess) async throws -> String {
        let (_, body) = try await server.request(.GET, "/emulator/v1/projects/demo/verificationCodes", token: nil)
        let json = try JSONValue.parse(Array(body.utf8))
        guard case .array(let codes)? = json["verificationCodes"] else { throw LiveError("no verification codes: \(body)") }
        guard let code = codes.last(where: { $0["phoneNumber"]?.stringValue == phone })?["code"]?.stringValue else {
            throw LiveError("no code for \(phone): \(body)")
        }
        return code
    }

    /// Upgrades the signed-in user of `useCases` to signed with a new phone number, through the screen.
    func upgradeToSigned(_ useCases: UseCases, phone: String, _ server: HearthProcess) async throws -> Tier? {
        let upgrade = UpgradeToSignedViewModel(useCases)
        upgrade.phoneNumber = phone
        await upgrade.sendCode()
        guard case .code = upgrade.step else { throw LiveError("no code step: \(upgrade.state)") }
        upgrade.code = try await code(sentTo: phone, server)
        upgrade.gender = .female
        await upgrade.verify()
        guard case .done(let tier) = upgrade.step else { throw LiveError("not upgraded: \(upgrade.state)") }
        return tier
    }

    /// The wallet, and the sum of every ledger entry, as the owner reads them.
    func books(_ useCases: UseCases, _ uid: String) async throws -> (wallet: Int, ledger: Int) {
        let wallet = try await useCases.repositories.wallets.wallet(of: uid).coins
        let ledger = try await useCases.repositories.wallets.ledger(of: uid, limit: 1000)
        return (wallet, ledger.reduce(0) { $0 + $1.amount })
    }

    func shake(_ id: String, _ proof: ShakeProof, _ useCases: UseCases) async throws -> ShakeViewModel.State {
        let campaign = try #require(try await useCases.repositories.campaigns.campaign(id), "campaign \(id)")
        let screen = ShakeViewModel(campaign: campaign, useCases)
        await screen.shake(proof)
        return screen.state
    }

    /// A trial user shakes in each of the six contexts, hits the cooldown, the daily limit, a campaign for pro
    /// users and one that ended, upgrades to signed with a phone code keeping the uid and coins, becomes pro,
    /// invites a friend who redeems the shared short link, redeems a catalogue item, and ends with ledger = wallet.
    @Test func theWholeStory() async throws {
        try await withServer { server in
            try await seed(server)
            let ann = UseCases(.hearth(app("ann", server)))

            // Onboarding: a trial starts with an id and an empty wallet.
            let onboarding = OnboardingViewModel(ann)
            await onboarding.start()
            #expect(onboarding.stage == .welcome)
            await onboarding.startTrial()
            guard case .ready(let annID) = onboarding.stage else { throw LiveError("no trial: \(onboarding.stage)") }

            // Home: the TV pages and the campaigns running in that context.
            let home = HomeViewModel(ann, context: .tv)
            await home.load()
            #expect(home.state == .done, "\(home.state)")
            #expect(home.pages.map(\.cards.count) == [3, 1])
            #expect(Set(home.campaigns.map(\.id)).isSuperset(of: ["tv-cola", "tv-pro"]))

            // One shake in each context.
            let shakes: [(String, ShakeProof)] = [
                ("tv-cola", .watermark("WM-COLA-2")), ("read-quiz", .answers(["q1": " paris ", "q2": "42"])),
                ("video-trailer", .video(videoId: "trailer-7", watchedSeconds: 31)), ("scan-choc", .barcode("4006381333931")),
                ("receipt-shop", .receipt(receiptId: "R-1001", merchant: "shop-1", products: ["5449000000996", "4006381333931"])),
                ("stadium-final", .watermark("WM-STADIUM")),
            ]
            var balance = 0
            for (id, proof) in shakes {
                balance += 10
                #expect(try await shake(id, proof, ann) == .awarded(amount: 10, balance: balance), "\(id)")
            }
            #expect(balance == 60)

            // The cooldown, then the daily limit (2 a day at the stadium, 1 s apart).
            guard case .refused(.cooldown(let wait)) = try await shake("tv-cola", .watermark("WM-COLA-1"), ann) else {
                throw LiveError("no cooldown")
            }
            #expect((1...2).contains(wait))
            try await Task.sleep(for: .milliseconds(1100))
            #expect(try await shake("stadium-final", .watermark("WM-STADIUM"), ann) == .awarded(amount: 10, balance: 70))
            try await Task.sleep(for: .milliseconds(1100))
            #expect(try await shake("stadium-final", .watermark("WM-STADIUM"), ann) == .refused(.dailyLimit))
            // Wrong proofs, a replayed receipt, a campaign that ended, one for pro users.
            guard case .refused(.invalidProof) = try await shake("read-quiz", .answers(["q1": "Rome", "q2": "42"]), ann) else {
                throw LiveError("a wrong answer paid")
            }
            #expect(
                try await shake("receipt-shop", .receipt(receiptId: "R-1001", merchant: "shop-1", products: ["5449000000996"]), ann)
                    == .refused(.receiptUsed))
            #expect(try await shake("tv-old", .watermark("WM-OLD"), ann) == .refused(.notRunning))
            #expect(try await shake("tv-pro", .watermark("WM-PRO"), ann) == .refused(.tierTooLow(minTier: .pro)))
            #expect(try await books(ann, annID) == (70, 70))

            // Signed: a phone code links the number to the same account; nothing is lost.
            #expect(try await upgradeToSigned(ann, phone: "+15550001001", server) == .signed)
            #expect(await ann.repositories.session.currentUserID() == annID)
            #expect(try await books(ann, annID) == (70, 70))
            // Pro: names and a birth date.
            let pro = UpgradeToProViewModel(ann)
            await pro.load()
            pro.form = ProfileForm(firstName: "Ann", lastName: "Lee", birthDate: "1990-05-17")
            await pro.save()
            #expect(pro.tier == .pro, "\(pro.state)")
            #expect(try await shake("tv-pro", .watermark("WM-PRO"), ann) == .awarded(amount: 25, balance: 95))

            // Ann shares her invite; Bob opens the short link on a fresh install. A trial account cannot redeem it
            // (anonymous accounts are free); once Bob verified his phone, it pays both once.
            let share = InviteViewModel(ann)
            await share.load()
            let link = try #require(share.shortLink)
            #expect(link.absoluteString.hasPrefix(Self.linkDomain + "/"))
            let bob = UseCases(.hearth(app("bob", server)))
            let opened = InviteViewModel(bob)
            await opened.open(link)
            #expect(opened.openState == .failed(.tierTooLow(required: .signed)), "\(opened.openState)")
            #expect(opened.pendingInviter == annID)
            let bobID = try #require(await bob.repositories.session.currentUserID())
            #expect(try await upgradeToSigned(bob, phone: "+15550001002", server) == .signed)
            await opened.retryPending()
            #expect(opened.openState == .done, "\(opened.openState)")
            #expect(opened.outcome == InviteOutcome(awarded: 50, balance: 50))
            await opened.open(link)
            #expect(opened.openState == .failed(.inviteRefused(.alreadyRedeemed)))
            // Bob cannot pay himself with his own receipt replay either: receipts pay once across all users.
            #expect(
                try await shake("receipt-shop", .receipt(receiptId: "R-1001", merchant: "shop-1", products: ["5449000000996"]), bob)
                    == .refused(.receiptUsed))

            // The catalogue: the mug is affordable, the cap is not.
            let catalogue = CatalogueViewModel(ann)
            await catalogue.load()
            let mug = try #require(catalogue.items.first { $0.id == "mug" })
            let cap = try #require(catalogue.items.first { $0.id == "cap" })
            #expect(catalogue.balance == 145 && catalogue.canRedeem(mug) && !catalogue.canRedeem(cap))
            await catalogue.redeem(mug)
            #expect(catalogue.redeemState == .done, "\(catalogue.redeemState)")
            #expect(catalogue.lastRedemption?.balance == 105)
            #expect(try await ann.repositories.catalog.item("mug")?.stock == 4)
            #expect(try await ann.repositories.catalog.redemptions(of: annID).map(\.itemId) == ["mug"])
            await catalogue.redeem(cap)
            #expect(catalogue.redeemState == .failed(.insufficientCoins), "\(catalogue.redeemState)")

            // The books: ledger = wallet for both, and the wallet screen shows the same.
            #expect(try await books(ann, annID) == (105, 105))
            #expect(try await books(bob, bobID) == (50, 50))
            let wallet = WalletViewModel(ann)
            await wallet.refresh()
            #expect(wallet.balance == 105)
            #expect(wallet.ledger.first?.kind == .redeem && wallet.ledger.first?.amount == -40)

            // What the app must never do, tried with the SDK directly, refused by the server's rules.
            let sdk = app("ann", server).database
            await #expect(throws: (any Error).self) { try await sdk.reference("wallets/\(annID)/coins").setValue(1_000_000) }
            await #expect(throws: (any Error).self) { try await sdk.reference("tiers/\(annID)/tier").setValue("pro") }
            await #expect(throws: (any Error).self) { try await sdk.reference("campaignProofs/tv-cola").getSnapshot() }
            await #expect(throws: (any Error).self) { try await sdk.reference("wallets/\(bobID)").getSnapshot() }
            #expect(try await books(ann, annID) == (105, 105))
        }
    }

    // MARK: Under load and attack

    /// Accounts made over plain REST (faster than a `HearthApp` each): uid and ID token.
    func anonymousUsers(_ count: Int, _ server: HearthProcess) async throws -> [(uid: String, token: String)] {
        try await withThrowingTaskGroup(of: (String, String).self) { group in
            for _ in 0..<count {
                group.addTask {
                    let (status, body) = try await server.request(
                        .POST, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", body: #"{"returnSecureToken":true}"#, token: nil)
                    let json = try JSONValue.parse(Array(body.utf8))
                    guard status == 200, let uid = json["localId"]?.stringValue, let token = json["idToken"]?.stringValue else {
                        throw LiveError("sign-up \(status): \(body)")
                    }
                    return (uid, token)
                }
            }
            var users: [(uid: String, token: String)] = []
            for try await user in group { users.append(user) }
            return users
        }
    }

    typealias Answer = (UInt, JSONValue)

    /// Calls a callable as `token`; the status and the answer.
    nonisolated func call(_ name: String, _ data: String, token: String, _ server: HearthProcess) async throws -> Answer {
        let (status, body) = try await server.request(
            .POST, "/functions/\(name)", body: #"{"data":\#(data)}"#, contentType: "application/json", token: token)
        return (status, try JSONValue.parse(Array(body.utf8)))
    }

    /// A thousand users shaking one campaign at once never overspend its budget; one user's twenty shakes at
    /// once pay once; ten redeems at once with coins for one succeed once.
    @Test func budgetsCooldownsAndBalancesHoldUnderConcurrentCalls() async throws {
        try await withServer { server in
            try await publish("rush", "tv", proof: #"{"watermarks": ["WM-RUSH"]}"#, coins: 5, budget: 500, on: server)
            let users = try await anonymousUsers(1000, server)
            let proof = #"{"campaignId": "rush", "proof": {"watermark": "WM-RUSH"}}"#
            let answers = try await withThrowingTaskGroup(of: Answer.self) { group in
                for user in users { group.addTask { try await call("shake", proof, token: user.token, server) } }
                var answers: [Answer] = []
                for try await answer in group { answers.append(answer) }
                return answers
            }
            let paid = answers.filter { $0.0 == 200 }
            let spent = answers.filter { $0.1["error"]?["details"]?["reason"] == .string("budgetSpent") }
            #expect(paid.count == 100, "100 shakes of 5 coins fit a budget of 500")
            #expect(spent.count == 900)
            let (_, statsBody) = try await server.request(.GET, "/campaignStats/rush.json")
            #expect(try JSONValue.parse(Array(statsBody.utf8)) == .object([JSONMember("awards", .int(100)), JSONMember("spent", .int(500))]))
            let (_, walletsBody) = try await server.request(.GET, "/wallets.json")
            guard case .object(let wallets) = try JSONValue.parse(Array(walletsBody.utf8)) else { throw LiveError("no wallets") }
            #expect(wallets.reduce(Int64(0)) { $0 + ($1.value["coins"].flatMap { if case .int(let n) = $0 { n } else { nil } } ?? 0) } == 500)

            // One user, twenty shakes at the same moment: one pays, nineteen meet the cooldown.
            try await publish("burst", "tv", proof: #"{"watermarks": ["WM-BURST"]}"#, coins: 3, on: server)
            let one = users[0]
            let burst = try await withThrowingTaskGroup(of: UInt.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await call("shake", #"{"campaignId": "burst", "proof": {"watermark": "WM-BURST"}}"#, token: one.token, server).0 }
                }
                var counts: [UInt: Int] = [:]
                for try await status in group { counts[status, default: 0] += 1 }
                return counts
            }
            #expect(burst == [200: 1, 400: 19], "\(burst)")

            // Coins for one mug, ten redeems at once.
            try #require(try await server.request(.PUT, "/catalog/mug.json", body: #"{"title": "Mug", "price": 40, "stock": 10}"#).0 == 200)
            let buyer = users[1]
            let credit = #"{"uid": "\#(buyer.uid)", "amount": 45, "reason": "test"}"#
            try #require(try await server.request(.POST, "/rewards-admin/adjust", body: credit).0 == 200)
            let redeems = try await withThrowingTaskGroup(of: UInt.self) { group in
                for _ in 0..<10 { group.addTask { try await call("redeem", #"{"itemId": "mug"}"#, token: buyer.token, server).0 } }
                var counts: [UInt: Int] = [:]
                for try await status in group { counts[status, default: 0] += 1 }
                return counts
            }
            #expect(redeems == [200: 1, 400: 9], "\(redeems)")
            #expect(try await server.request(.GET, "/catalog/mug/stock.json").1 == "9")
            let (_, ledgerBody) = try await server.request(.GET, "/ledger/\(buyer.uid).json")
            guard case .object(let entries) = try JSONValue.parse(Array(ledgerBody.utf8)) else { throw LiveError("no ledger") }
            let sum = entries.reduce(Int64(0)) { $0 + ($1.value["amount"].flatMap { if case .int(let n) = $0 { n } else { nil } } ?? 0) }
            let (_, coins) = try await server.request(.GET, "/wallets/\(buyer.uid)/coins.json")
            #expect(coins == "\(sum)")
            #expect(sum >= 0)
        }
    }
}

struct LiveError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
