import Foundation
import GiftsCore
import Hearth
import HearthCore
import HearthTesting
import NIOHTTP1
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The app core against a real server: the built `hearth-functions-example` (the stock server plus the Gifts
/// functions) with the example's rules, driven through the view models by an owner and two friends. The same story
/// through the old REST API, with a realtime client watching, is compat/test_gifts_rest.py.
@MainActor
@Suite("Gifts against a live server", .serialized)
struct LiveAppTests {
    static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func withServer(_ body: (HearthProcess) async throws -> Void) async throws {
        let data = temporaryDataFolder()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let binary = try HearthProcess.binary.deletingLastPathComponent().appendingPathComponent("hearth-functions-example")
        let server = try HearthProcess(executable: binary, arguments: ["serve", "--port", "0", "--data", data, "--dev"])
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

    func user(_ first: String, _ last: String, _ server: HearthProcess) async throws -> (UseCases, String) {
        let app = HearthApp(
            name: first, options: HearthOptions(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, projectID: "demo", apiKey: "gifts-key"))
        let useCases = UseCases(.hearth(app))
        let screen = SignUpViewModel(useCases)
        screen.email = "\(first.lowercased())@example.com"
        screen.password = "secret-123"
        screen.firstName = first
        screen.lastName = last
        await screen.signUp()
        return (useCases, try #require(screen.uid, "\(screen.state)"))
    }

    /// Polls `condition` for up to 20 s (live lists and triggers arrive a moment after the write).
    func eventually(_ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("timed out waiting for \(what)")
    }

    func addWish(_ name: String, _ useCases: UseCases) async throws -> String {
        let editor = WishEditorViewModel(useCases)
        editor.name = name
        await editor.save()
        return try #require(editor.savedWishID, "\(editor.state)")
    }

    /// An owner's wishes; two friends race to reserve one (one wins) and the owner never learns who; cancelling frees
    /// it; a received wish leaves the reserver's list; top gifts stay exact through creates, renames and deletes;
    /// people are found by the start of their name, accents and case ignored.
    @Test func theWholeStory() async throws {
        try await withServer { server in
            let (jozsef, jozsefID) = try await user("József", "Kovács", server)
            let (anna, annaID) = try await user("Anna", "Berg", server)
            let (ben, _) = try await user("Ben", "Ortiz", server)

            // Search by prefix: "Jó", "jo" and "JOZ" all find József; "an" finds Anna and not Ben.
            let search = PeopleSearchViewModel(anna)
            for prefix in ["Jó", "jo", "JOZ"] {
                try await eventually("\(prefix) finds József") {
                    await search.update(query: prefix)
                    return search.results.map(\.id) == [jozsefID]
                }
            }
            await search.update(query: "an")
            #expect(search.results.map(\.id) == [], "Anna does not find herself, and nobody else starts with an")
            let fromBen = PeopleSearchViewModel(ben)
            await fromBen.update(query: "ÁN")
            #expect(fromBen.results.map(\.id) == [annaID])

            // József's wishlist, live on his screen.
            let mine = MyWishlistViewModel(jozsef)
            await mine.start()
            let bike = try await addWish("Mountain Bike", jozsef)
            let book = try await addWish("Book", jozsef)
            try await eventually("József's list") { Set(mine.wishes.map(\.id)) == [bike, book] }

            // Anna and Ben race for the bike: exactly one wins.
            let annaView = FriendWishlistViewModel(friendID: jozsefID, anna)
            let benView = FriendWishlistViewModel(friendID: jozsefID, ben)
            await annaView.start()
            await benView.start()
            try await eventually("both see the bike") { annaView.wishes.count == 2 && benView.wishes.count == 2 }
            let wish = try #require(annaView.wishes.first { $0.id == bike })
            async let first: Void = annaView.reserve(wish)
            async let second: Void = benView.reserve(wish)
            _ = await (first, second)
            let outcomes = [annaView.actionState, benView.actionState]
            #expect(outcomes.filter { $0 == .done }.count == 1, "\(outcomes)")
            #expect(outcomes.filter { $0 == .failed(.alreadyReserved) || $0 == .failed(.permissionDenied) }.count == 1, "\(outcomes)")
            let annaWon = annaView.actionState == .done
            let (winner, loser, winnerView, loserView) = annaWon ? (anna, ben, annaView, benView) : (ben, anna, benView, annaView)
            try await eventually("the winner sees it as theirs") { winnerView.items.first { $0.wish.id == bike }?.status == .reservedByMe }
            try await eventually("the loser sees it taken") { loserView.items.first { $0.wish.id == bike }?.status == .reservedByOther }

            // The owner sees that it is reserved, never who: no read of the reservation is allowed to him.
            try await eventually("the owner sees the flag") { mine.wishes.first { $0.id == bike }?.reserved == true }
            await #expect(throws: AppError.permissionDenied) {
                _ = try await jozsef.repositories.reservations.reservation(ownerID: jozsefID, wishID: bike)
            }

            // The winner's Reservations tab: the wish and its owner. Cancelling frees it; the other friend takes it.
            let winnerTab = MyReservationsViewModel(winner)
            await winnerTab.start()
            try await eventually("the winner's tab") { winnerTab.entries.map(\.wishName) == ["Mountain Bike"] }
            #expect(winnerTab.entries.first?.ownerName == "József Kovács")
            let entry = try #require(winnerTab.entries.first)
            await winnerTab.cancel(entry)
            try await eventually("free again") { mine.wishes.first { $0.id == bike }?.reserved == false && winnerTab.entries.isEmpty }
            let free = try #require(loserView.wishes.first { $0.id == bike })
            await loserView.reserve(free)
            #expect(loserView.actionState == .done, "\(loserView.actionState)")
            let loserTab = MyReservationsViewModel(loser)
            await loserTab.start()
            try await eventually("the other's tab") { loserTab.entries.map(\.wishName) == ["Mountain Bike"] }

            // A rename reaches the reserver's tab; a received wish leaves it.
            let bikeWish: Wish = try #require(mine.wishes.first { $0.id == bike })
            let editor = WishEditorViewModel(editing: bikeWish, jozsef)
            editor.name = "Gravel Bike"
            await editor.save()
            try await eventually("renamed in the tab") { loserTab.entries.map(\.wishName) == ["Gravel Bike"] }
            let renamed = try #require(mine.wishes.first { $0.id == bike && $0.name == "Gravel Bike" })
            await mine.markReceived(renamed)
            try await eventually("received leaves the tab") { loserTab.entries.isEmpty }

            // Top gifts, exact through creates, renames and deletes (names normalized: "book", "BOOK " and "Böok" are one).
            let top = TopGiftsViewModel(limit: 10, anna)
            top.start()
            let annaBook = try await addWish("BOOK ", anna)
            _ = try await addWish("Böok", ben)
            try await eventually("three books") { top.gifts.first { $0.key == "book" }?.count == 3 }
            let annaList = MyWishlistViewModel(anna)
            await annaList.start()
            try await eventually("Anna's list") { annaList.wishes.map(\.id) == [annaBook] }
            let annaWish: Wish = try #require(annaList.wishes.first)
            let rename = WishEditorViewModel(editing: annaWish, anna)
            rename.name = "Kite"
            await rename.save()
            try await eventually("two books, one kite") {
                top.gifts.first { $0.key == "book" }?.count == 2 && top.gifts.first { $0.key == "kite" }?.count == 1
            }
            let kite = try #require(annaList.wishes.first { $0.name == "Kite" })
            await annaList.delete(kite)
            try await eventually("the kite at zero disappears") { !top.gifts.contains { $0.key == "kite" } }
            #expect(top.gifts.first { $0.key == "book" }?.count == 2)

            // Nobody writes top gifts or another's wish; nobody reserves their own.
            let sdk = HearthApp(
                name: "raw", options: HearthOptions(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, projectID: "demo", apiKey: "k"))
            _ = try await sdk.auth.signIn(email: "anna@example.com", password: "secret-123")
            await #expect(throws: (any Error).self) { try await sdk.database.reference("topGifts/book/count").setValue(100) }
            await #expect(throws: (any Error).self) { try await sdk.database.reference("wishes/\(jozsefID)/\(book)/name").setValue("Mine") }
            await #expect(throws: (any Error).self) {
                try await sdk.database.reference("reservations/\(annaID)/\(annaBook)").setValue(["reserverId": annaID])
            }
            for screen in [annaView, benView] { screen.stop() }
            for tab in [winnerTab, loserTab] { tab.stop() }
            mine.stop()
            annaList.stop()
            top.stop()
        }
    }
}
