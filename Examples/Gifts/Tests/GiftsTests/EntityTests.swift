import Foundation
import GiftsCore
import Testing

/// The entities' own rules: drafts as the rules check them, names, statuses and orders.
@Suite("Gifts entities")
struct EntityTests {
    @Test(arguments: [
        (WishDraft(name: "Kite"), nil),
        (WishDraft(name: "   "), "Give the wish a name."),
        (WishDraft(name: String(repeating: "é", count: 200)), nil),
        (WishDraft(name: String(repeating: "é", count: 201)), "A name is at most 200 characters."),
        (WishDraft(name: "Kite", description: String(repeating: "x", count: 2000)), nil),
        (WishDraft(name: "Kite", description: String(repeating: "x", count: 2001)), "A description is at most 2000 characters."),
        (WishDraft(name: "Kite", link: "https://kites.example.com/red"), nil),
        (WishDraft(name: "Kite", link: "http://k"), nil),
        (WishDraft(name: "Kite", link: "https://"), "A link starts with http:// or https://."),
        (WishDraft(name: "Kite", link: "kites.example.com"), "A link starts with http:// or https://."),
        (WishDraft(name: "Kite", link: "HTTPS://kites.example.com"), "A link starts with http:// or https://."),
        (WishDraft(name: "Kite", link: "https://a\nb"), "A link starts with http:// or https://."),
        (WishDraft(name: "Kite", link: "https://" + String(repeating: "x", count: 1993)), "A link is at most 2000 characters."),
        (WishDraft(name: "Kite", link: "https://" + String(repeating: "x", count: 1992)), nil),
        (WishDraft(name: "Kite", price: 0), nil),
        (WishDraft(name: "Kite", price: -0.01), "A price cannot be negative."),
        (WishDraft(name: "Kite", price: .nan), "A price cannot be negative."),
        (WishDraft(name: "Kite", description: "  ", link: " "), nil),
    ] as [(WishDraft, String?)])
    func draftsAreCheckedAsTheRulesCheckThem(_ draft: WishDraft, _ problem: String?) {
        #expect(draft.problem == problem)
        if let problem {
            #expect(throws: AppError.invalidInput(problem)) { try draft.validated() }
        }
    }

    @Test func validatedDraftsAreTrimmedWithBlanksAsNone() throws {
        let draft = try WishDraft(name: "  Kite \n", description: "  ", link: " https://k.example.com ", price: 3).validated()
        #expect(draft == WishDraft(name: "Kite", description: nil, link: "https://k.example.com", price: 3))
        let wish = Wish(id: "w", name: "Lamp", description: "Blue", createdAt: Date(timeIntervalSince1970: 0))
        #expect(WishDraft(wish) == WishDraft(name: "Lamp", description: "Blue"))
    }

    @Test func profilesJoinTheNames() {
        #expect(UserProfile(firstName: " Ann ", lastName: " Lee") == UserProfile(displayName: "Ann Lee", firstName: "Ann", lastName: "Lee"))
        #expect(UserProfile(firstName: "Cher", lastName: "").displayName == "Cher")
    }

    @Test func storedValuesDecodeWithTheirDefaults() throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        let wish = try decoder.decode(Wish.self, from: Data(#"{"name": "Kite", "createdAt": 1000, "price": 12}"#.utf8))
        #expect(wish == Wish(id: "", name: "Kite", price: 12, createdAt: Date(timeIntervalSince1970: 1)))
        let profile = try decoder.decode(UserProfile.self, from: Data(#"{"displayName": "Bob", "searchKey": "bob"}"#.utf8))
        #expect(profile == UserProfile(displayName: "Bob", firstName: "", lastName: ""))
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(UserProfile(firstName: "Ann", lastName: "Lee"))) as? [String: String]
        #expect(encoded == ["displayName": "Ann Lee", "firstName": "Ann", "lastName": "Lee"])
    }

    @Test func aFriendsWishIsReceivedReservedByMeByOthersOrAvailable() {
        let date = Date(timeIntervalSince1970: 0)
        let open = Wish(id: "a", name: "A", createdAt: date)
        let taken = Wish(id: "b", name: "B", createdAt: date, reserved: true)
        let received = Wish(id: "c", name: "C", createdAt: date, received: true)
        #expect(FriendWish.status(of: open, mine: []) == .available)
        #expect(FriendWish.status(of: taken, mine: []) == .reservedByOther)
        #expect(FriendWish.status(of: taken, mine: ["b"]) == .reservedByMe)
        // The user's own list knows before the flag does.
        #expect(FriendWish.status(of: open, mine: ["a"]) == .reservedByMe)
        #expect(FriendWish.status(of: received, mine: ["c"]) == .received)
    }

    @Test func ordersAreNewestFirstAndMostWishedFirst() {
        let gifts = [TopGift(key: "b", name: "B", count: 2), TopGift(key: "a", name: "A", count: 2), TopGift(key: "c", name: "C", count: 5)]
        #expect(gifts.sorted(by: TopGift.mostWishedFirst).map(\.key) == ["c", "a", "b"])
        let wishes = [
            Wish(id: "x", name: "X", createdAt: Date(timeIntervalSince1970: 1)), Wish(id: "y", name: "Y", createdAt: Date(timeIntervalSince1970: 2)),
            Wish(id: "z", name: "Z", createdAt: Date(timeIntervalSince1970: 1)),
        ]
        #expect(wishes.sorted(by: Wish.newestFirst).map(\.id) == ["y", "z", "x"])
        #expect(ReservationEntry.key(ownerID: "ann", wishID: "w1") == "ann_w1")
    }
}
