import Foundation
import GiftsCore
import Testing

/// The in-memory world's invariants, the ones the server promises (Examples/Gifts/README.md and rules.json): one
/// reserver per wish, secret from the owner, freed by cancelling, dropped with a received or deleted wish, renamed
/// with the wish; the top gifts count exactly; people are found by the start of their name.
@Suite("Gifts in-memory world")
struct WorldTests {
    let t: TestWorld

    init() throws { t = try TestWorld() }

    // MARK: Reservations

    @Test func twoFriendsRacingForAWishExactlyOneWins() async throws {
        let ann = try await t.signedIn("ann")
        let bob = try await t.signedIn("bob")
        let carl = try await t.signedIn("carl")
        var wins: [String: Int] = [:]
        for round in 0..<20 {
            let wishID = try await ann.createWish(WishDraft(name: "Round \(round)"))
            let results = await withTaskGroup(of: (String, AppError?).self) { group in
                for (name, app) in [("bob", bob), ("carl", carl)] {
                    group.addTask { (name, await caught { try await app.repositories.reservations.reserve(ownerID: "ann", wishID: wishID) }) }
                }
                var results: [(String, AppError?)] = []
                for await result in group { results.append(result) }
                return results
            }
            let winners = results.filter { $0.1 == nil }.map(\.0)
            #expect(winners.count == 1, "round \(round): \(results)")
            #expect(results.filter { $0.1 == .alreadyReserved }.count == 1, "round \(round): \(results)")
            let winner = try #require(winners.first)
            wins[winner, default: 0] += 1
            #expect(await t.world.storedReservation(ownerID: "ann", wishID: wishID)?.reserverId == winner)
            #expect(try await t.wishes(of: "ann", on: ann)[wishID]?.reserved == true)
            let loser = winner == "bob" ? "carl" : "bob"
            #expect(await t.world.storedReservationEntries(of: winner).contains { $0.wishId == wishID })
            #expect(await t.world.storedReservationEntries(of: loser).contains { $0.wishId == wishID } == false)
        }
        #expect(wins.values.reduce(0, +) == 20)
        // bob's fixture reservation of the bike plus his wins.
        #expect(await t.world.storedReservationEntries(of: "bob").count == 1 + (wins["bob"] ?? 0))
        #expect(await t.world.storedReservationEntries(of: "carl").count == (wins["carl"] ?? 0))
    }

    @Test func aReservedWishCannotBeReservedAgainNotEvenByItsReserver() async throws {
        let bob = try await t.signedIn("bob")
        let carl = try await t.signedIn("carl")
        #expect(await caught { try await carl.repositories.reservations.reserve(ownerID: "ann", wishID: "a-bike") } == .alreadyReserved)
        #expect(await caught { try await bob.repositories.reservations.reserve(ownerID: "ann", wishID: "a-bike") } == .alreadyReserved)
        #expect(await t.world.storedReservation(ownerID: "ann", wishID: "a-bike")?.reserverId == "bob")
    }

    @Test func theRulesRefuseOwnReceivedAndMissingWishes() async throws {
        let ann = try await t.signedIn("ann")
        let bob = try await t.signedIn("bob")
        let reservations = bob.repositories.reservations
        #expect(await caught { try await ann.repositories.reservations.reserve(ownerID: "ann", wishID: "a-book") } == .permissionDenied)
        #expect(await caught { try await reservations.reserve(ownerID: "ann", wishID: "a-lamp") } == .permissionDenied)  // received
        #expect(await caught { try await reservations.reserve(ownerID: "ann", wishID: "nothing") } == .permissionDenied)
        #expect(await caught { try await reservations.reserve(ownerID: "ann", wishID: "a/book") } == .notFound)
        #expect(await caught { try await t.app("stranger").repositories.reservations.reserve(ownerID: "ann", wishID: "a-book") } == .notSignedIn)
        #expect(await t.world.storedReservation(ownerID: "ann", wishID: "a-book") == nil)
        #expect(await t.world.storedReservation(ownerID: "ann", wishID: "a-lamp") == nil)
    }

    @Test func theOwnerCannotSeeWhoReserved() async throws {
        let ann = try await t.signedIn("ann")
        let bob = try await t.signedIn("bob")
        let carl = try await t.signedIn("carl")
        // Only the reserver reads the reservation; the owner only sees the flag.
        #expect(try await bob.repositories.reservations.reservation(ownerID: "ann", wishID: "a-bike").reserverId == "bob")
        #expect(await caught { try await ann.repositories.reservations.reservation(ownerID: "ann", wishID: "a-bike") } == .permissionDenied)
        #expect(await caught { try await carl.repositories.reservations.reservation(ownerID: "ann", wishID: "a-bike") } == .permissionDenied)
        #expect(await caught { try await ann.repositories.reservations.reservation(ownerID: "ann", wishID: "a-book") } == .permissionDenied)
        #expect(try await t.wishes(of: "ann", on: ann)["a-bike"]?.reserved == true)
        // Nor through the reservers' lists: each reads only their own.
        #expect(try await firstValue(ann.repositories.reservations.reservations(of: "ann")) == [])
        #expect(await caught { try await firstValue(ann.repositories.reservations.reservations(of: "bob")) } == .permissionDenied)
        let entries = try #require(try await firstValue(bob.repositories.reservations.reservations(of: "bob")))
        #expect(entries.map(\.id) == ["ann_a-bike"])
        #expect(entries.first?.ownerName == "Ann Lee" && entries.first?.wishName == "Bike")
        #expect(entries.first?.at == Date(timeIntervalSince1970: 1_740_000_000))
    }

    @Test func cancellingFreesTheWishAndOnlyTheReserverCancels() async throws {
        let ann = try await t.signedIn("ann")
        let bob = try await t.signedIn("bob")
        let carl = try await t.signedIn("carl")
        #expect(await caught { try await carl.repositories.reservations.cancel(ownerID: "ann", wishID: "a-bike") } == .notFound)
        #expect(await caught { try await ann.repositories.reservations.cancel(ownerID: "ann", wishID: "a-bike") } == .notFound)
        #expect(await t.world.storedReservation(ownerID: "ann", wishID: "a-bike")?.reserverId == "bob")

        try await bob.repositories.reservations.cancel(ownerID: "ann", wishID: "a-bike")
        #expect(await t.world.storedReservation(ownerID: "ann", wishID: "a-bike") == nil)
        #expect(try await t.wishes(of: "ann", on: ann)["a-bike"]?.reserved == false)
        #expect(await t.world.storedReservationEntries(of: "bob").isEmpty)
        #expect(await caught { try await bob.repositories.reservations.cancel(ownerID: "ann", wishID: "a-bike") } == .notFound)

        t.clock.advance(seconds: 60)
        try await carl.repositories.reservations.reserve(ownerID: "ann", wishID: "a-bike")
        let entry = try #require(await t.world.storedReservationEntries(of: "carl").first)
        #expect(entry == ReservationEntry(ownerId: "ann", wishId: "a-bike", wishName: "Bike", ownerName: "Ann Lee", at: t.clock.now))
        #expect(try await t.wishes(of: "ann", on: ann)["a-bike"]?.reserved == true)
    }

    @Test func aReceivedOrDeletedWishLeavesTheReserversList() async throws {
        let ann = try await t.signedIn("ann")
        let bob = try await t.signedIn("bob")
        try await bob.repositories.reservations.reserve(ownerID: "ann", wishID: "a-book")
        #expect(await t.world.storedReservationEntries(of: "bob").map(\.wishId).sorted() == ["a-bike", "a-book"])

        try await ann.markReceived("a-book")
        #expect(await t.world.storedReservationEntries(of: "bob").map(\.wishId) == ["a-bike"])
        #expect(await t.world.storedReservation(ownerID: "ann", wishID: "a-book") == nil)
        let book = try #require(try await t.wishes(of: "ann", on: ann)["a-book"])
        #expect(book.received && !book.reserved)
        #expect(await caught { try await bob.repositories.reservations.reserve(ownerID: "ann", wishID: "a-book") } == .permissionDenied)

        try await ann.deleteWish("a-bike")
        #expect(await t.world.storedReservationEntries(of: "bob").isEmpty)
        #expect(await t.world.storedReservation(ownerID: "ann", wishID: "a-bike") == nil)
        #expect(try await t.wishes(of: "ann", on: ann)["a-bike"] == nil)
        // Deleting what is gone does nothing; receiving it is not found.
        try await ann.deleteWish("a-bike")
        #expect(await caught { try await ann.markReceived("a-bike") } == .notFound)
    }

    @Test func aRenameRenamesTheReserversEntryAndKeepsTheReservation() async throws {
        let ann = try await t.signedIn("ann")
        let bob = try await t.signedIn("bob")
        let stream = try await bob.myReservations()
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next()?.map(\.wishName) == ["Bike"])
        try await ann.updateWish("a-bike", with: WishDraft(name: "Mountain bike", price: 300))
        #expect(try await iterator.next()?.map(\.wishName) == ["Mountain bike"])
        let wish = try #require(try await t.wishes(of: "ann", on: ann)["a-bike"])
        #expect(wish.name == "Mountain bike" && wish.price == 300 && wish.reserved && wish.createdAt == Date(timeIntervalSince1970: 1_736_496_000))
        #expect(await t.world.storedReservation(ownerID: "ann", wishID: "a-bike")?.reserverId == "bob")
        // Editing another field leaves the entry alone.
        try await ann.updateWish("a-bike", with: WishDraft(name: "Mountain bike", description: "26 inch"))
        #expect(await t.world.storedReservationEntries(of: "bob").map(\.wishName) == ["Mountain bike"])
    }

    // MARK: Wishes

    @Test func onlyTheOwnerWritesAndTheRulesCheckTheFields() async throws {
        let bob = try await t.signedIn("bob")
        let wishes = bob.repositories.wishes
        // Past the use case's validation: the world refuses what the rules refuse.
        #expect(await caught { try await wishes.create(WishDraft(name: "")) } == .permissionDenied)
        #expect(await caught { try await wishes.create(WishDraft(name: String(repeating: "x", count: 201))) } == .permissionDenied)
        #expect(await caught { try await wishes.create(WishDraft(name: "Kite", link: "ftp://kites.example.com")) } == .permissionDenied)
        #expect(await caught { try await wishes.create(WishDraft(name: "Kite", price: -1)) } == .permissionDenied)
        #expect(await caught { try await wishes.create(WishDraft(name: "Kite", description: String(repeating: "x", count: 2001))) } == .permissionDenied)
        #expect(await caught { try await t.app("stranger").repositories.wishes.create(WishDraft(name: "Kite")) } == .notSignedIn)
        // Bob's writes go to his own list: ann's wishes are out of reach.
        #expect(await caught { try await wishes.update("a-book", with: WishDraft(name: "Hacked")) } == .notFound)
        #expect(await caught { try await wishes.markReceived("a-book") } == .notFound)
        try await wishes.delete("a-book")
        let ann = try await t.signedIn("ann")
        #expect(try await t.wishes(of: "ann", on: ann)["a-book"]?.name == "Book")

        t.clock.advance(seconds: 5)
        let id = try await wishes.create(WishDraft(name: "Kite", link: "http://k.example.com", price: 0))
        let kite = try #require(try await t.wishes(of: "bob", on: ann)[id])
        #expect(kite == Wish(id: id, name: "Kite", link: "http://k.example.com", price: 0, createdAt: t.clock.now))
        // Newest first.
        #expect(try await firstValue(ann.wishes(of: "bob"))?.map(\.id) == [id, "b-phones", "b-book"])
        #expect(await caught { try await firstValue(t.app("stranger").wishes(of: "bob")) } == .permissionDenied)
    }

    // MARK: Top gifts

    @Test func topGiftsCountExactlyThroughCreatesRenamesAndDeletes() async throws {
        let ann = try await t.signedIn("ann")
        let bob = try await t.signedIn("bob")
        #expect(await t.topCounts() == ["book": 3, "bike": 1, "lamp": 1, "kite": 1, "headphones": 1])
        #expect(await t.world.storedTopGifts()["book"]?.name == "Book")  // the latest wish's spelling

        let bike = try await bob.createWish(WishDraft(name: "  BIKE "))
        #expect(await t.topCounts() == ["book": 3, "bike": 2, "lamp": 1, "kite": 1, "headphones": 1])
        #expect(await t.world.storedTopGifts()["bike"]?.name == "BIKE")

        // A rename moves one count; a rename to another spelling of the same name keeps it.
        try await ann.updateWish("a-kite", with: WishDraft(name: "Böök"))
        #expect(await t.topCounts() == ["book": 4, "bike": 2, "lamp": 1, "headphones": 1])
        try await ann.updateWish("a-book", with: WishDraft(name: "BOOK"))
        #expect(await t.topCounts() == ["book": 4, "bike": 2, "lamp": 1, "headphones": 1])

        // Received wishes still count; deleted ones do not; a name at zero disappears.
        try await ann.markReceived("a-bike")
        #expect(await t.topCounts()["bike"] == 2)
        try await ann.deleteWish("a-lamp")
        try await bob.deleteWish(bike)
        #expect(await t.topCounts() == ["book": 4, "bike": 1, "headphones": 1])
        try await ann.deleteWish("a-bike")
        try await bob.updateWish("b-phones", with: WishDraft(name: "Earbuds"))
        #expect(await t.topCounts() == ["book": 4, "earbuds": 1])

        let top = try #require(try await firstValue(ann.topGifts(limit: 10)))
        #expect(top.map(\.key) == ["book", "earbuds"] && top.map(\.count) == [4, 1])
        #expect(try await firstValue(ann.topGifts(limit: 1))?.map(\.key) == ["book"])
        #expect(await caught { try await firstValue(t.app("stranger").topGifts()) } == .permissionDenied)
    }

    @Test func topGiftsAreLive() async throws {
        let ann = try await t.signedIn("ann")
        var gifts = ann.topGifts(limit: 2).makeAsyncIterator()
        let first = try #require(try await gifts.next())
        #expect(first.map(\.key) == ["book", "bike"] && first.map(\.count) == [3, 1])
        _ = try await ann.createWish(WishDraft(name: "Kite"))
        #expect(try await gifts.next()?.map(\.key) == ["book", "kite"])
    }

    // MARK: People

    @Test(arguments: ["Jó", "jo", "JO", " jó  "])
    func aPrefixFindsNamesWithAndWithoutAccents(_ prefix: String) async throws {
        let bob = try await t.signedIn("bob")
        let found = try await bob.repositories.people.search(prefix: prefix, limit: 10)
        #expect(found.map(\.id) == ["joanna", "jozsef", "jozsef2"])
        #expect(found.map(\.displayName) == ["Joanna Smith", "József Kovács", "Jozsef  Nagy"])
    }

    @Test func searchKeysAreNormalizedAndSearchesNeedASignedInUser() async throws {
        let bob = try await t.signedIn("bob")
        #expect(await t.world.storedSearchKey(of: "jozsef") == "jozsef kovacs")
        #expect(await t.world.storedSearchKey(of: "jozsef2") == "jozsef nagy")
        #expect(await t.world.storedSearchKey(of: "ann") == "ann lee")
        let people = bob.repositories.people
        #expect(try await people.search(prefix: "JÓZSEF K", limit: 10).map(\.id) == ["jozsef"])
        #expect(try await people.search(prefix: "jozsef n", limit: 10).map(\.id) == ["jozsef2"])
        #expect(try await people.search(prefix: "jo", limit: 2).map(\.id) == ["joanna", "jozsef"])
        #expect(try await people.search(prefix: "kovacs", limit: 10).isEmpty)  // the start of the name only
        #expect(try await people.search(prefix: "   ", limit: 10).isEmpty)
        #expect(try await people.person("jozsef")?.profile == UserProfile(displayName: "József Kovács", firstName: "József", lastName: "Kovács"))
        #expect(try await people.person("nobody") == nil)
        #expect(await caught { try await t.app("stranger").repositories.people.search(prefix: "jo", limit: 10) } == .permissionDenied)
    }

    @Test func signUpWritesAProfileOthersFind() async throws {
        let zoe = t.app("zoe")
        let uid = try await zoe.signUp(email: "zoe@example.com", password: "zoe-pass1", firstName: " Zoë ", lastName: "Ångström")
        #expect(await zoe.repositories.session.currentUserID() == uid)
        #expect(await t.world.storedSearchKey(of: uid) == "zoe angstrom")
        let bob = try await t.signedIn("bob")
        let found = try await bob.searchPeople("zoe a")
        #expect(found.map(\.id) == [uid])
        #expect(found.first?.profile == UserProfile(displayName: "Zoë Ångström", firstName: "Zoë", lastName: "Ångström"))
        #expect(await caught { try await t.app("other").signUp(email: "ZOE@example.com", password: "another1", firstName: "Z", lastName: "A") } == .emailInUse)
        await zoe.signOut()
        #expect(await zoe.repositories.session.currentUserID() == nil)
    }

    @Test func theFixtureTriggersAreApplied() async throws {
        let ann = try await t.signedIn("ann")
        let wishes = try await t.wishes(of: "ann", on: ann)
        // The kite's flag was absent, the bike's reservation sets its flag.
        #expect(wishes["a-bike"]?.reserved == true && wishes["a-kite"]?.reserved == false)
        #expect(wishes["a-kite"] == Wish(
            id: "a-kite", name: "Kite", description: "A red one", link: "https://kites.example.com/red", price: 25.5,
            createdAt: Date(timeIntervalSince1970: 1_736_496_003)))
        #expect(await t.world.storedReservationEntries(of: "bob").map(\.id) == ["ann_a-bike"])
    }

    @Test func aBrokenFixtureIsInvalidInput() {
        #expect(throws: AppError.self) { try InMemoryWorld(fixture: Data("{\"wishes\": 3}".utf8)) }
    }
}
