import Foundation
import Hearth
import HearthCore
import HearthFunctions
import HearthGeo
import HearthTesting
import NIOHTTP1
import StaysCore
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The app core against a real server: the built `hearth-functions-example` (the stock server plus the Stays
/// functions) with the example's rules and storage rules, its geocoder, openHAB and OpenWeather pointed at a loopback
/// double (`FakeOutsideServer`). A host, two guests and the smart home, driven through the view models.
@MainActor
@Suite("Stays against a live server", .serialized)
struct LiveAppTests {
    static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 7, count: 4096)
    static let berlin = GeoPoint(latitude: 52.5219, longitude: 13.4132)

    /// The doubles, the server pointed at them (secrets in files, as in production), rules installed.
    func withServer(_ body: (HearthProcess, FakeOutsideServer) async throws -> Void) async throws {
        let outside = FakeOutsideServer()
        _ = try await outside.start()
        let data = temporaryDataFolder()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let secrets = data + "/secrets"
        try FileManager.default.createDirectory(atPath: secrets, withIntermediateDirectories: true)
        try outside.openHABToken!.write(toFile: secrets + "/openhab", atomically: true, encoding: .utf8)
        try outside.openWeatherKey.write(toFile: secrets + "/openweather", atomically: true, encoding: .utf8)
        let binary = try HearthProcess.binary.deletingLastPathComponent().appendingPathComponent("hearth-functions-example")
        let server = try HearthProcess(
            executable: binary,
            arguments: [
                "serve", "--port", "0", "--data", data + "/db", "--dev",
                "--geocoder-url", outside.baseURL, "--geocoder-user-agent", "Stays tests (tests@example.com)",
                "--openhab-url", outside.baseURL, "--openhab-token-file", secrets + "/openhab",
                "--openweather-url", outside.baseURL, "--openweather-key-file", secrets + "/openweather",
            ])
        do {
            try await server.waitForPort()
            let rules = try String(contentsOf: Self.example.appendingPathComponent("rules.json"), encoding: .utf8)
            try #require(try await server.request(.PUT, "/.settings/rules.json", body: rules).0 == 200)
            let storageRules = try String(contentsOf: Self.example.appendingPathComponent("storage.rules"), encoding: .utf8)
            let install = try JSONSerialization.data(withJSONObject: ["rules": ["files": [["name": "storage.rules", "content": storageRules]]]])
            let (status, answer) = try await server.request(
                .PUT, "/internal/setRules", body: String(decoding: install, as: UTF8.self), contentType: "application/json")
            try #require(status == 200, "\(answer)")
            try await body(server, outside)
        } catch {
            server.signal(SIGKILL)
            _ = try? await server.exitCode()
            await outside.stop()
            throw error
        }
        server.signal(SIGTERM)
        #expect(try await server.exitCode() == 0)
        await outside.stop()
    }

    func app(_ name: String, _ server: HearthProcess) -> UseCases {
        let app = HearthApp(
            name: name, options: HearthOptions(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, projectID: "demo", apiKey: "stays-key"))
        return UseCases(.hearth(app, photoTimeout: .seconds(20)))
    }

    func signUp(_ useCases: UseCases, _ email: String) async throws -> String {
        let screen = SignInViewModel(useCases)
        screen.email = email
        screen.password = "secret-\(email)"
        await screen.signUp()
        return try #require(screen.uid, "\(screen.state)")
    }

    /// Reserves `from..<to` (days from today) through the screen; its final state.
    func reserve(_ couch: Couch, from: Int, to: Int, guests: Int, _ useCases: UseCases) async -> ReserveViewModel.State {
        let screen = ReserveViewModel(couch: couch, useCases)
        await screen.load()
        let today = Day(Date())
        screen.select(today.adding(days: from))
        screen.select(today.adding(days: to))
        screen.guests = guests
        await screen.reserve()
        return screen.state
    }

    /// Polls `condition` for up to 20 s (triggers run after the write that fires them).
    func eventually(_ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("timed out waiting for \(what)")
    }

    /// A host lists a couch with a photo; a guest finds it around a point and by city, reserves, is refused an
    /// overlapping range, chats with the host; a second guest races a third for one night and exactly one wins; the
    /// stay ends, the guest rates it and the summary updates; the weather watcher switches heating on in the cold,
    /// cooling in the heat, both off in between, and changes nothing while openHAB is down.
    @Test func theWholeStory() async throws {
        try await withServer { server, outside in
            outside.setPlace(
                GeocodedPlace(latitude: Self.berlin.latitude, longitude: Self.berlin.longitude, city: "Berlin", displayName: "Alexanderplatz"),
                for: "Alexanderplatz 1, Berlin")
            outside.setPlace(GeocodedPlace(latitude: 52.52, longitude: 13.405, city: "Berlin", displayName: "Berlin"), for: "Berlin")

            // The host lists a couch: the address geocoded, a photo uploaded and indexed by the trigger.
            let host = app("hana", server)
            let hostID = try await signUp(host, "hana@example.com")
            let listing = NewCouchViewModel(host)
            listing.title = "Sunny couch"
            listing.description = "Near the park"
            listing.address = "Alexanderplatz 1, Berlin"
            listing.capacity = 2
            listing.addPhoto(Self.jpeg)
            await listing.geocodeAddress()
            #expect(listing.place?.city == "Berlin")
            await listing.save()
            #expect(listing.state == .done, "\(listing.state)")
            let couchID = try #require(listing.couchID)
            let photo = try #require(listing.uploaded.first)
            #expect(photo.path == "couches/\(couchID)/\(photo.id).jpg")
            let photoURL = try #require(URL(string: photo.url))
            #expect(photoURL.absoluteString.hasPrefix("http://127.0.0.1:\(server.port)/v0/b/"), "\(photo.url)")
            let (downloaded, response) = try await URLSession.shared.data(from: photoURL)
            #expect((response as? HTTPURLResponse)?.statusCode == 200 && downloaded == Self.jpeg)

            // A guest finds it on the map around a point, and by city.
            let guest = app("gus", server)
            let guestID = try await signUp(guest, "gus@example.com")
            let trips = TripsViewModel(guest, region: MapRegion(center: GeoPoint(latitude: 52.52, longitude: 13.40), radiusMeters: 2_000))
            await trips.reload()
            #expect(trips.couches.map(\.couch.id) == [couchID], "\(trips.state)")
            await trips.show(MapRegion(center: GeoPoint(latitude: 48.85, longitude: 2.35), radiusMeters: 5_000))  // Paris
            #expect(trips.couches.isEmpty)
            trips.searchText = "Berlin"
            await trips.searchCity()
            #expect(trips.place?.city == "Berlin" && trips.couches.map(\.couch.id) == [couchID], "\(trips.state)")
            trips.searchText = "Atlantis"
            await trips.searchCity()
            #expect(trips.alert == .addressNotFound, "\(String(describing: trips.alert))")

            // Details, then the reservation; an overlapping one is refused.
            let details = CouchDetailsViewModel(couchID: couchID, guest)
            await details.load()
            let couch = try #require(details.couch)
            #expect(couch.photos.count == 1 && !details.isHost)
            guard case .reserved(let booking) = await reserve(couch, from: 2, to: 5, guests: 2, guest) else {
                throw LiveError("no reservation")
            }
            #expect(booking.reminder != nil)
            // The calendar greys the held nights, so the screen cannot pick them; the server refuses them anyway.
            let calendar = ReserveViewModel(couch: couch, guest)
            await calendar.load()
            let today = Day(Date())
            #expect(!calendar.isEnabled(today.adding(days: 4)) && calendar.isEnabled(today.adding(days: 5)))
            do {
                _ = try await guest.repositories.reservations.reserve(
                    couchID: couch.id, stay: DayRange(from: today.adding(days: 4), to: today.adding(days: 6)), guests: 1)
                Issue.record("an overlapping stay was reserved")
            } catch let error as AppError {
                #expect(error == .reservationRefused(.overlap(nights: [today.adding(days: 4)])), "\(error)")
            }
            await details.load()
            #expect(details.disabledRanges == [DayRange(from: Day(Date()).adding(days: 2), to: Day(Date()).adding(days: 5))])

            // The conversation the reservation opened: the automatic first message, then a chat both see live.
            let conversationID = booking.outcome.conversationId
            let guestChat = MessagesViewModel(conversationID: conversationID, guest)
            let hostChat = MessagesViewModel(conversationID: conversationID, host)
            await guestChat.start()
            await hostChat.start()
            try await eventually("the first message") { hostChat.messages.count == 1 }
            #expect(hostChat.messages.first?.text.hasPrefix("Hi! I'd like to stay from") == true)
            hostChat.draft = "Welcome! The key is under the mat."
            await hostChat.send()
            try await eventually("the host's answer") { guestChat.messages.count == 2 }
            #expect(guestChat.messages.last?.from == hostID)
            guestChat.stop()
            hostChat.stop()
            let inbox = ConversationsViewModel(host)
            await inbox.start()
            try await eventually("the host's conversation list") { inbox.conversations.map(\.id) == [conversationID] }
            inbox.stop()

            // Two more guests race for one night: exactly one wins.
            let (ann, bob) = (app("ann", server), app("bob", server))
            _ = try await signUp(ann, "ann@example.com")
            _ = try await signUp(bob, "bob@example.com")
            async let first = reserve(couch, from: 10, to: 11, guests: 1, ann)
            async let second = reserve(couch, from: 10, to: 11, guests: 1, bob)
            let race = await [first, second]
            #expect(race.filter { if case .reserved = $0 { true } else { false } }.count == 1, "\(race)")
            #expect(race.filter { if case .refused(.overlap) = $0 { true } else { false } }.count == 1, "\(race)")

            // Rating before the stay ended is refused; once it ended (the admin moves the dates into the past, as
            // days passing would), the guest rates and the summary follows.
            let early = NewRatingViewModel(couchID: couchID, guest)
            await early.load()
            #expect(early.refusal == .notEnded, "\(String(describing: early.refusal)) \(early.state)")
            let reservationID = booking.outcome.reservationId
            let past = #"{"from": "2024-05-01", "to": "2024-05-04", "endsAt": 1714780800000}"#
            try #require(try await server.request(.PATCH, "/reservations/\(reservationID).json", body: past).0 == 200)
            let rating = NewRatingViewModel(couchID: couchID, guest)
            await rating.load()
            #expect(rating.stay?.id == reservationID, "\(String(describing: rating.refusal)) \(rating.state)")
            rating.stars = 4
            rating.text = "Lovely place"
            await rating.submit()
            #expect(rating.state == .done, "\(rating.state)")
            let ratings = RatingsViewModel(couchID: couchID, guest)
            try await eventually("the summary") {
                await ratings.load()
                return ratings.summary.count == 1
            }
            #expect(ratings.summary.average == 4 && ratings.summary.distribution[4] == 1 && ratings.ratings.first?.text == "Lovely place")
            let again = NewRatingViewModel(couchID: couchID, guest)
            await again.load()
            #expect(again.refusal == .alreadyRated, "\(String(describing: again.refusal))")
            _ = guestID

            // The smart home: heating and cooling switches with a watcher, decided by the weather in Berlin.
            outside.setItem("Couch_Heating", state: "OFF")
            outside.setItem("Couch_Cooling", state: "OFF")
            let home = SmartHomeViewModel(couchID: couchID, host)
            await home.load()
            await home.addSwitch(.heating, item: "Couch_Heating")
            await home.addSwitch(.cooling, item: "Couch_Cooling")
            #expect(home.switches.count == 2, "\(home.actionState)")
            for smartSwitch in home.switches { await home.saveWatcher(Watcher(enabled: true, minC: 18, maxC: 26), for: smartSwitch.id) }
            outside.setTemperature(3, for: "Berlin")
            await home.runNow()
            #expect(home.lastRun?.decision == .heating && home.lastRun?.temperatureC == 3, "\(home.actionState)")
            #expect(outside.itemState("Couch_Heating") == "ON" && outside.itemState("Couch_Cooling") == "OFF")
            outside.setTemperature(31, for: "Berlin")
            await home.runNow()
            #expect(home.lastRun?.decision == .cooling)
            #expect(outside.itemState("Couch_Heating") == "OFF" && outside.itemState("Couch_Cooling") == "ON")
            outside.setTemperature(21, for: "Berlin")
            await home.runNow()
            #expect(home.lastRun?.decision == .off)
            #expect(outside.itemState("Couch_Heating") == "OFF" && outside.itemState("Couch_Cooling") == "OFF")
            // openHAB down: a cold night changes nothing, and the failure is in the log.
            outside.smartHomeDown = true
            outside.setTemperature(-5, for: "Berlin")
            await home.runNow()
            #expect(home.actionState == .failed(.unavailable(.smartHome)), "\(home.actionState)")
            outside.smartHomeDown = false
            #expect(outside.itemState("Couch_Heating") == "OFF")
            await home.load()
            #expect(home.log.first?.decision == WatcherDecision.none && home.log.first?.error != nil)
            #expect(home.log.count == 4)
            // A host switches by hand; a guest cannot.
            let heating = try #require(home.switches.first { $0.type == .heating })
            await home.set(heating, on: true)
            #expect(outside.itemState("Couch_Heating") == "ON")
            let intruder = SmartHomeViewModel(couchID: couchID, guest)
            await intruder.set(heating, on: false)
            #expect(outside.itemState("Couch_Heating") == "ON")
            #expect(intruder.actionState != .done)
        }
    }
}

struct LiveError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
