import Foundation
import HearthCore
import RewardsCore
import Testing

@Suite("Rewards entities")
struct EntityTests {
    @Test(arguments: [
        (ShakeProof.watermark("WM-1"), #"{"watermark": "WM-1"}"#),
        (.answers(["q2": "Brazil", "q1": "Arabica"]), #"{"answers": {"q1": "Arabica", "q2": "Brazil"}}"#),
        (.video(videoId: "trailer-42", watchedSeconds: 31), #"{"videoId": "trailer-42", "watchedSeconds": 31}"#),
        (.video(videoId: "trailer-42", watchedSeconds: 30.5), #"{"videoId": "trailer-42", "watchedSeconds": 30.5}"#),
        (.barcode("4006381333931"), #"{"barcode": "4006381333931"}"#),
        (
            .receipt(receiptId: "R-1", merchant: "market-1", products: ["4006381333931", "5901234123457"]),
            #"{"receiptId": "R-1", "merchant": "market-1", "products": ["4006381333931", "5901234123457"]}"#
        ),
    ])
    func proofsHaveTheShapeTheShakeCallableTakes(proof: ShakeProof, expected: String) throws {
        #expect(proof.json == (try JSONValue.parse(expected)))
    }

    @Test func eachProofFitsItsContextsOnly() throws {
        let proofs: [ShakeProof] = [
            .watermark("WM"), .answers(["q": "a"]), .video(videoId: "v", watchedSeconds: 1), .barcode("4006381333931"),
            .receipt(receiptId: "r", merchant: "m", products: ["4006381333931"]),
        ]
        let fits = proofs.map { proof in Context.allCases.filter { (try? proof.validate(for: $0)) != nil } }
        #expect(fits == [[.tv, .stadium], [.read], [.video], [.scan], [.receipt]])
        #expect(throws: ShakeRefusal.invalidProof("The video was not recognised.")) {
            try ShakeProof.video(videoId: "v", watchedSeconds: -1).validate(for: .video)
        }
        #expect(throws: ShakeRefusal.invalidProof("No products were read from the receipt.")) {
            try ShakeProof.receipt(receiptId: "r", merchant: "m", products: []).validate(for: .receipt)
        }
        #expect(throws: ShakeRefusal.invalidProof("No watermark was heard.")) { try ShakeProof.watermark("").validate(for: .stadium) }
    }

    @Test func cardsOfUnknownTypesOrShapesDoNotFailThePage() throws {
        let page = try JSONDecoder().decode(Page.self, from: try CoreFixtures.data("cards"))
        #expect(
            page.cards == [
                .text("Welcome", style: .title), .text("Plain", style: nil), .text("Future style", style: nil),
                .image(url: "https://cdn.rewards.example.com/a.png", aspectRatio: 1.5),
                .image(url: "https://cdn.rewards.example.com/b.png", aspectRatio: 2),
                .row(icon: "coin", title: "Coins", subtitle: "Earn them"), .animation(name: "confetti", loop: false),
                .animation(name: "sparkles", loop: nil), .footer(text: "Terms", link: "https://rewards.example.com/terms"),
                .footer(text: "No link", link: nil), .unsupported(type: "carousel"), .unsupported(type: "text"),
                .unsupported(type: "image"), .unsupported(type: ""), .unsupported(type: ""),
            ])  // the trailing null is skipped
        #expect(page.supportedCards.count == 10)
        #expect(page.cards.filter { !$0.isSupported }.map(\.type) == ["carousel", "text", "image", "", ""])

        // What a page encodes to decodes to the same page, and the encoding has the documented shape.
        let supported = Page(cards: page.supportedCards)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let encoded = try encoder.encode(supported)
        #expect(try JSONDecoder().decode(Page.self, from: encoded) == supported)
        let json = try JSONValue.parse(Array(encoded))
        guard case .array(let cards) = json else { Issue.record("not an array: \(json)"); return }
        #expect(cards[0] == (try JSONValue.parse(#"{"style": "title", "text": "Welcome", "type": "text"}"#)))
        #expect(cards[9] == (try JSONValue.parse(#"{"text": "No link", "type": "footer"}"#)))
    }

    @Test func aPageStoredAsAnObjectWithIndexKeysIsReadInKeyOrder() throws {
        // What the database gives back for an array with holes: an object keyed by index, possibly with nulls.
        let json = #"{"10": {"type": "text", "text": "d"}, "2": {"type": "text", "text": "c"}, "1": null, "0": {"type": "text", "text": "a"}}"#
        let page = try JSONDecoder().decode(Page.self, from: Data(json.utf8))
        #expect(page.cards == [.text("a", style: nil), .text("c", style: nil), .text("d", style: nil)])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Page.self, from: Data(#""not a page""#.utf8)) }
    }

    @Test(arguments: [
        ("1990-02-28", true), ("2000-02-29", true), ("1900-01-01", true), ("2025-06-14", true),
        ("2025-06-15", false),  // today
        ("2030-01-01", false), ("2023-02-29", false), ("1900-02-29", false), ("1990-13-01", false), ("1990-04-31", false),
        ("1990-00-10", false), ("1899-12-31", false), ("1990-2-28", false), ("90-02-28", false), ("1990/02/28", false),
        ("１９９０-02-28", false), ("", false), (" 1990-02-28", false),
    ])
    func birthDatesAreRealPastDays(text: String, valid: Bool) {
        let noon = Date(timeIntervalSince1970: 1_749_988_800)  // 2025-06-15 12:00 UTC
        #expect(Profile.isValidBirthDate(text, now: noon) == valid)
    }

    @Test func theProfileFormNamesEveryProblemAndAProfileIsCompleteWithAll() {
        let noon = Date(timeIntervalSince1970: 1_749_988_800)
        #expect(Set(ProfileForm().problems(now: noon).keys) == Set(ProfileForm.Field.allCases))
        #expect(ProfileForm(firstName: "  ", lastName: "Lee", birthDate: "1990-01-01").problems(now: noon).keys.map(\.self) == [.firstName])
        let long = String(repeating: "a", count: Profile.maxNameLength + 1)
        #expect(ProfileForm(firstName: "Ann", lastName: long, birthDate: "1990-01-01").problems(now: noon).keys.map(\.self) == [.lastName])
        #expect(ProfileForm(firstName: "Ann", lastName: "Lee", birthDate: " 1990-01-01 ").problems(now: noon).isEmpty)
        // Lengths as the rules count them (UTF-16): 50 emoji are 100 units, 51 too many.
        #expect(Profile.isValidName(String(repeating: "😀", count: 50)))
        #expect(!Profile.isValidName(String(repeating: "😀", count: 51)))
        #expect(!Profile.isValidName(" \n\t "))

        #expect(!Profile(gender: .male).isComplete(now: noon))
        #expect(!Profile(gender: .male, firstName: "Al", lastName: "Wu", birthDate: "2026-01-01").isComplete(now: noon))
        #expect(Profile(gender: .male, firstName: "Al", lastName: "Wu", birthDate: "1980-12-31").isComplete(now: noon))
    }

    @Test func profilesDecodeWithOrWithoutTheProFields() throws {
        let signed = try JSONDecoder().decode(Profile.self, from: Data(#"{"gender": "unspecified"}"#.utf8))
        #expect(signed == Profile(gender: .unspecified))
        let encoded = try JSONValue.parse(Array(try JSONEncoder().encode(signed)))
        #expect(encoded == .object([JSONMember("gender", .string("unspecified"))]))  // no nulls written
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Profile.self, from: Data(#"{"gender": "robot"}"#.utf8)) }
    }

    @Test(arguments: [
        ("4006381333931", true), ("5901234123457", true), ("9780201379624", true), ("0000000000000", true),
        ("4006381333932", false), ("400638133393", false), ("40063813339310", false), ("400638133393a", false),
        (" 4006381333931", false), ("", false), ("４００６３８１３３３９３１", false),
    ])
    func ean13CheckDigits(code: String, valid: Bool) {
        #expect(EAN13.isValid(code) == valid)
    }

    @Test func ean13CheckDigitOfTwelveDigits() {
        #expect(EAN13.checkDigit("400638133393") == 1)
        #expect(EAN13.checkDigit("978020137962") == 4)
        #expect(EAN13.checkDigit("40063813339") == nil)
        #expect(EAN13.checkDigit("40063813339x") == nil)
    }

    @Test func tiersAreOrderedTrialSignedPro() {
        #expect(Tier.trial < .signed && Tier.signed < .pro && Tier.trial < .pro)
        #expect(!(Tier.pro < .signed))
        #expect(Tier.allCases.sorted() == [.trial, .signed, .pro])
        #expect(Tier.allCases.max() == .pro)
    }

    @Test(arguments: [
        ("+15555550100", "+15555550100"), ("+1 (555) 555-0100", "+15555550100"), ("0049 151 1234 5678", "+4915112345678"),
        ("+44.20.7946.0958", "+442079460958"),
    ])
    func phoneNumbersAreNormalizedToE164(typed: String, normalized: String) {
        #expect(UseCases.normalizedPhoneNumber(typed) == normalized)
    }

    @Test(arguments: ["5555550100", "+1", "+0123456789", "+1555555010012345", "+1555abc0100", ""])
    func phoneNumbersWithoutACountryCodeOrDigitsAreRefused(typed: String) {
        #expect(UseCases.normalizedPhoneNumber(typed) == nil)
    }

    @Test func campaignsDecodeFromTheDatabaseShapeAndKnowTheirWindow() throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        let json = #"""
            {"context": "video", "title": "T", "coins": 5, "cooldownSeconds": 30, "dailyLimitPerUser": 5, "budget": 100,
             "startsAt": 1000, "endsAt": 2000, "minTier": "signed"}
            """#
        var campaign = try decoder.decode(Campaign.self, from: Data(json.utf8))
        campaign.id = "t"
        #expect(campaign.context == .video && campaign.minTier == .signed && campaign.coins == 5)
        #expect(!campaign.isRunning(at: Date(timeIntervalSince1970: 0.999)))
        #expect(campaign.isRunning(at: Date(timeIntervalSince1970: 1)))
        #expect(campaign.isRunning(at: Date(timeIntervalSince1970: 1.999)))
        #expect(!campaign.isRunning(at: Date(timeIntervalSince1970: 2)))
    }

    @Test func refusalsAndErrorsSayWhatToDo() {
        #expect(ShakeRefusal.cooldown(retryAfterSeconds: 1).description == "Shake again in 1 second.")
        #expect(ShakeRefusal.cooldown(retryAfterSeconds: 42).description == "Shake again in 42 seconds.")
        #expect(AppError.shakeRefused(.budgetSpent).description == ShakeRefusal.budgetSpent.description)
        #expect(AppError.inviteRefused(.ownInvite).description.contains("your own invite"))
        #expect(AppError.tierTooLow(required: .signed).description.contains("phone"))
    }
}
