import Foundation
import GiftsCore
import Testing

/// Every screen's view model against the in-memory world of `Fixtures.world`: the main path and the failures.
@MainActor
@Suite("Gifts view models")
struct ViewModelTests {
    let t: TestWorld

    init() throws { t = try TestWorld() }

    // MARK: Accounts

    @Test func signInRefusesWrongPasswordsAndSignsOut() async throws {
        let screen = SignInViewModel(t.app("phone"))
        await screen.start()
        #expect(screen.uid == nil && !screen.canSubmit)
        screen.email = "ann@example.com"
        screen.password = "wrong-one"
        await screen.signIn()
        #expect(screen.state == .failed(.wrongCredentials) && screen.uid == nil)
        screen.password = ""
        await screen.signIn()
        #expect(screen.state == .failed(.invalidInput("Enter your email and password.")))
        screen.email = " ANN@example.com "
        screen.password = "ann-pass1"
        #expect(screen.canSubmit)
        await screen.signIn()
        #expect(screen.state == .done && screen.uid == "ann")

        let again = SignInViewModel(t.app("phone"))
        await again.start()
        #expect(again.uid == "ann")  // this device is signed in already
        await again.signOut()
        #expect(again.uid == nil && again.password.isEmpty && again.state == .idle)
        await again.start()
        #expect(again.uid == nil)

        await t.world.failNextWith(.offline)
        screen.password = "ann-pass1"
        await screen.signIn()
        #expect(screen.state == .failed(.offline))
    }

    @Test func signUpNeedsNamesAndAFreeEmail() async throws {
        let screen = SignUpViewModel(t.app("zoe"))
        screen.email = "zoe@example.com"
        screen.password = "short"
        screen.firstName = "Zoë"
        screen.lastName = "Ångström"
        await screen.signUp()
        #expect(screen.state == .failed(.invalidInput("Choose a password of at least 6 characters.")))
        screen.password = "long-enough"
        screen.lastName = "  "
        await screen.signUp()
        #expect(screen.state == .failed(.invalidInput("Enter your first and last name.")))
        screen.lastName = String(repeating: "x", count: 100)
        await screen.signUp()
        #expect(screen.state == .failed(.invalidInput("Your name is at most 100 characters.")))
        screen.lastName = "Ångström"
        screen.email = "zoe-at-example.com"
        await screen.signUp()
        #expect(screen.state == .failed(.invalidInput("Enter a valid email address.")))
        screen.email = "bob@example.com"
        await screen.signUp()
        #expect(screen.state == .failed(.emailInUse) && screen.uid == nil)
        screen.email = "zoe@example.com"
        #expect(screen.displayName == "Zoë Ångström")
        await screen.signUp()
        #expect(screen.state == .done)
        let uid = try #require(screen.uid)
        let bob = try await t.signedIn("bob")
        #expect(try await bob.person(uid)?.displayName == "Zoë Ångström")
    }

    // MARK: My wishlist

    @Test func myWishlistIsLiveAndSwipesDeleteAndReceive() async throws {
        let ann = try await t.signedIn("ann")
        let screen = MyWishlistViewModel(ann)
        await screen.start()
        try await eventually("the wishes arrive") { screen.state == .done }
        #expect(screen.wishes.map(\.id) == ["a-kite", "a-lamp", "a-book", "a-bike"])
        #expect(screen.open.map(\.id) == ["a-kite", "a-book", "a-bike"] && screen.received.map(\.id) == ["a-lamp"])
        // The owner sees that the bike is reserved, not by whom.
        #expect(screen.wishes.first { $0.id == "a-bike" }?.reserved == true)

        let book = try #require(screen.wishes.first { $0.id == "a-book" })
        await screen.markReceived(book)
        #expect(screen.actionState == .done)
        try await eventually("the book is received") { screen.received.map(\.id) == ["a-lamp", "a-book"] }
        let bike = try #require(screen.wishes.first { $0.id == "a-bike" })
        await screen.delete(bike)
        try await eventually("the bike is gone") { screen.wishes.map(\.id) == ["a-kite", "a-lamp", "a-book"] }

        // Another phone's new wish shows up.
        t.clock.advance(seconds: 1)
        let other = try await t.signedIn("ann")
        let id = try await other.createWish(WishDraft(name: "Scarf"))
        try await eventually("the scarf shows") { screen.wishes.first?.id == id }

        await t.world.failNextWith(.offline)
        await screen.delete(try #require(screen.wishes.first))
        #expect(screen.actionState == .failed(.offline))
        #expect(screen.wishes.first?.id == id)
        screen.stop()
    }

    @Test func myWishlistNeedsASignedInUser() async throws {
        let screen = MyWishlistViewModel(t.app("stranger"))
        await screen.start()
        #expect(screen.state == .failed(.notSignedIn) && screen.wishes.isEmpty)
    }

    @Test func aBrokenLiveListIsAFailure() async throws {
        let ann = try await t.signedIn("ann")
        let screen = MyWishlistViewModel(ann)
        await ann.signOut()
        await screen.start()
        #expect(screen.state == .failed(.notSignedIn))
        _ = try await t.signedIn("ann")
        await t.world.failNextWith(.offline)
        let reservations = MyReservationsViewModel(ann)
        await reservations.start()
        try await eventually("the list fails") { reservations.state == .failed(.offline) }
    }

    // MARK: Wish editor

    @Test func theEditorChecksTheDraftAndCreatesAWish() async throws {
        let ann = try await t.signedIn("ann")
        let editor = WishEditorViewModel(ann)
        #expect(editor.problem == "Give the wish a name." && !editor.canSave)
        await editor.save()
        #expect(editor.state == .failed(.invalidInput("Give the wish a name.")))
        editor.name = "  Scarf "
        editor.link = "scarves.example.com"
        #expect(editor.problem == "A link starts with http:// or https://.")
        editor.link = "https://scarves.example.com/blue"
        editor.priceText = "twelve"
        #expect(editor.problem == "Enter the price as a number.")
        editor.priceText = "-3"
        #expect(editor.problem == "A price cannot be negative.")
        editor.priceText = "12,50"
        editor.descriptionText = "  "
        #expect(editor.problem == nil && editor.canSave)
        #expect(editor.draft == .success(WishDraft(name: "Scarf", link: "https://scarves.example.com/blue", price: 12.5)))
        await editor.save()
        #expect(editor.state == .done)
        let id = try #require(editor.savedWishID)
        let wish = try #require(try await t.wishes(of: "ann", on: ann)[id])
        #expect(wish == Wish(id: id, name: "Scarf", link: "https://scarves.example.com/blue", price: 12.5, createdAt: t.clock.now))
        #expect(await t.topCounts()["scarf"] == 1)
    }

    @Test func theEditorEditsAWishAndClearsFields() async throws {
        let ann = try await t.signedIn("ann")
        let kite = try #require(try await t.wishes(of: "ann", on: ann)["a-kite"])
        let editor = WishEditorViewModel(editing: kite, ann)
        #expect(editor.name == "Kite" && editor.descriptionText == "A red one" && editor.link == "https://kites.example.com/red")
        #expect(editor.priceText == "25.5")
        editor.name = "Big kite"
        editor.descriptionText = ""
        editor.priceText = "40"
        await editor.save()
        #expect(editor.state == .done && editor.savedWishID == "a-kite")
        let saved = try #require(try await t.wishes(of: "ann", on: ann)["a-kite"])
        #expect(saved == Wish(id: "a-kite", name: "Big kite", link: "https://kites.example.com/red", price: 40, createdAt: kite.createdAt))
        #expect(WishEditorViewModel(editing: saved, ann).priceText == "40")

        // Deleted meanwhile (on another phone): not found.
        try await ann.deleteWish("a-kite")
        editor.name = "Huge kite"
        await editor.save()
        #expect(editor.state == .failed(.notFound))
    }

    // MARK: People search

    @Test func peopleSearchFindsNamesByPrefixIgnoringAccents() async throws {
        let bob = try await t.signedIn("bob")
        let screen = PeopleSearchViewModel(bob)
        await screen.update(query: "Jó")
        #expect(screen.state == .done)
        #expect(screen.results.map(\.displayName) == ["Joanna Smith", "József Kovács", "Jozsef  Nagy"])
        await screen.update(query: "Józs")
        #expect(screen.results.map(\.id) == ["jozsef", "jozsef2"])
        await screen.update(query: "jozsef k")
        #expect(screen.results.map(\.id) == ["jozsef"])
        // The user is not among their friends.
        await screen.update(query: "b")
        #expect(screen.results.isEmpty && screen.state == .done)
        await screen.update(query: "ann")
        #expect(screen.results.map(\.id) == ["ann"])
        await screen.update(query: "  ")
        #expect(screen.results.isEmpty && screen.state == .idle)

        screen.query = "carl"
        await t.world.failNextWith(.offline)
        await screen.search()
        #expect(screen.state == .failed(.offline))
        await screen.search()
        #expect(screen.results.map(\.id) == ["carl"] && screen.state == .done)

        let stranger = PeopleSearchViewModel(t.app("stranger"))
        await stranger.update(query: "ann")
        #expect(stranger.state == .failed(.notSignedIn) && stranger.results.isEmpty)
    }

    // MARK: A friend's wishlist

    @Test func aFriendsWishlistTellsMyReservationsFromOthers() async throws {
        let bob = try await t.signedIn("bob")
        let carl = try await t.signedIn("carl")
        let bobs = FriendWishlistViewModel(friendID: "ann", bob)
        let carls = FriendWishlistViewModel(friendID: "ann", carl)
        await bobs.start()
        await carls.start()
        try await eventually("both lists arrive") { bobs.state == .done && carls.state == .done }
        #expect(bobs.friend?.displayName == "Ann Lee")
        func statuses(_ screen: FriendWishlistViewModel) -> [String: WishStatus] {
            Dictionary(uniqueKeysWithValues: screen.items.map { ($0.id, $0.status) })
        }
        #expect(statuses(bobs) == ["a-bike": .reservedByMe, "a-book": .available, "a-lamp": .received, "a-kite": .available])
        #expect(statuses(carls) == ["a-bike": .reservedByOther, "a-book": .available, "a-lamp": .received, "a-kite": .available])
        #expect(bobs.items.map(\.id) == ["a-kite", "a-lamp", "a-book", "a-bike"])

        let book = try #require(carls.wishes.first { $0.id == "a-book" })
        await carls.reserve(book)
        #expect(carls.actionState == .done)
        try await eventually("carl holds the book") { statuses(carls)["a-book"] == .reservedByMe }
        try await eventually("bob sees it taken") { statuses(bobs)["a-book"] == .reservedByOther }

        // Bob's screen still showed the book free: the server says no.
        await bobs.reserve(book)
        #expect(bobs.actionState == .failed(.alreadyReserved))
        // What the screen shows taken, received or own is refused before asking.
        await carls.reserve(try #require(carls.wishes.first { $0.id == "a-bike" }))
        #expect(carls.actionState == .failed(.alreadyReserved))
        await carls.reserve(try #require(carls.wishes.first { $0.id == "a-lamp" }))
        #expect(carls.actionState == .failed(.alreadyReceived))

        let bike = try #require(bobs.wishes.first { $0.id == "a-bike" })
        await bobs.cancel(bike)
        #expect(bobs.actionState == .done)
        try await eventually("the bike is free") { statuses(bobs)["a-bike"] == .available && statuses(carls)["a-bike"] == .available }
        await bobs.cancel(bike)
        #expect(bobs.actionState == .failed(.notFound))
        bobs.stop()
        carls.stop()
    }

    @Test func aFriendsWishlistFollowsTheOwnersChanges() async throws {
        let ann = try await t.signedIn("ann")
        let bob = try await t.signedIn("bob")
        let screen = FriendWishlistViewModel(friendID: "ann", bob)
        await screen.start()
        try await eventually("the list arrives") { screen.state == .done }
        try await ann.markReceived("a-bike")
        try await eventually("the bike is received, the reservation gone") {
            screen.items.first { $0.id == "a-bike" }?.status == .received && screen.reservedByMe.isEmpty
        }
        try await ann.deleteWish("a-book")
        try await eventually("the book is gone") { !screen.items.contains { $0.id == "a-book" } }
        screen.stop()
    }

    @Test func myOwnWishlistCannotBeReservedAndStrangersCannotLook() async throws {
        let ann = try await t.signedIn("ann")
        let own = FriendWishlistViewModel(friendID: "ann", ann)
        await own.start()
        try await eventually("the list arrives") { own.state == .done }
        await own.reserve(try #require(own.wishes.first { $0.id == "a-book" }))
        #expect(own.actionState == .failed(.ownWish))
        own.stop()

        let stranger = FriendWishlistViewModel(friendID: "ann", t.app("stranger"))
        await stranger.start()
        #expect(stranger.state == .failed(.notSignedIn) && stranger.items.isEmpty)
    }

    // MARK: My reservations

    @Test func myReservationsListNamesAndOwnersLiveAndCancel() async throws {
        let ann = try await t.signedIn("ann")
        let bob = try await t.signedIn("bob")
        let jozsef = try await t.signedIn("jozsef")
        _ = jozsef
        let screen = MyReservationsViewModel(bob)
        await screen.start()
        try await eventually("the list arrives") { screen.state == .done }
        #expect(screen.entries.map(\.wishName) == ["Bike"] && screen.entries.map(\.ownerName) == ["Ann Lee"])

        t.clock.advance(seconds: 10)
        try await bob.reserve(try #require(try await t.wishes(of: "jozsef", on: bob)["j-book"]), of: "jozsef")
        try await eventually("József's book shows, newest first") { screen.entries.map(\.id) == ["jozsef_j-book", "ann_a-bike"] }
        #expect(screen.entries.first?.ownerName == "József Kovács" && screen.entries.first?.wishName == "Böok")

        try await ann.updateWish("a-bike", with: WishDraft(name: "Red bike"))
        try await eventually("the rename shows") { screen.entries.last?.wishName == "Red bike" }

        await screen.cancel(try #require(screen.entries.first))
        #expect(screen.actionState == .done)
        try await eventually("the book is cancelled") { screen.entries.map(\.id) == ["ann_a-bike"] }

        // Received on ann's phone while bob looked at the stale line: nothing left to cancel.
        let stale = try #require(screen.entries.first)
        try await ann.markReceived("a-bike")
        await screen.cancel(stale)
        #expect(screen.actionState == .failed(.notFound))
        try await eventually("the list is empty") { screen.entries.isEmpty }
        screen.stop()

        let stranger = MyReservationsViewModel(t.app("stranger"))
        await stranger.start()
        #expect(stranger.state == .failed(.notSignedIn))
    }

    // MARK: Top gifts

    @Test func topGiftsRankLive() async throws {
        let bob = try await t.signedIn("bob")
        let screen = TopGiftsViewModel(limit: 3, bob)
        screen.start()
        try await eventually("the ranking arrives") { screen.state == .done }
        #expect(screen.gifts.map(\.name) == ["Book", "Bike", "Headphones"] && screen.gifts.map(\.count) == [3, 1, 1])
        _ = try await bob.createWish(WishDraft(name: "kite"))
        try await eventually("kites climb") { screen.gifts.map(\.key) == ["book", "kite", "bike"] }
        #expect(screen.gifts[1] == TopGift(key: "kite", name: "kite", count: 2))
        try await bob.deleteWish("b-book")
        try await eventually("books fall") { screen.gifts.map(\.count) == [2, 2, 1] }
        screen.stop()

        let stranger = TopGiftsViewModel(t.app("stranger"))
        stranger.start()
        try await eventually("strangers are refused") { stranger.state == .failed(.permissionDenied) }
    }
}
