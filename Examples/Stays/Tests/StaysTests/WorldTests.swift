import Foundation
import HearthGeo
import StaysCore
import Testing

/// The in-memory world's invariants, the ones the server promises: a night is held by one reservation, refusals
/// come with their reason, cancelling frees the nights, only the guest of an ended stay rates, once per stay.
@Suite("Stays in-memory world")
struct WorldTests {
    let t: TestWorld

    init() throws { t = try TestWorld() }

    func loft(_ app: UseCases) async throws -> Couch { try #require(try await app.repositories.couches.couch("berlin-loft")) }

    @Test func twoGuestsRacingForTheSameNightExactlyOneWins() async throws {
        let ann = try await t.signedIn("ann")
        let bob = try await t.signedIn("bob")
        let loft = try await loft(ann)
        for round in 0..<20 {
            let from = day("2025-07-01").adding(days: round * 3)
            let wanted = DayRange(from: from, to: from.adding(days: 2))
            let results = await withTaskGroup(of: AppError?.self) { group in
                for app in [ann, bob] {
                    group.addTask { await caught { try await app.reserve(loft, stay: wanted, guests: 1) } }
                }
                var results: [AppError?] = []
                for await result in group { results.append(result) }
                return results
            }
            #expect(results.filter { $0 == nil }.count == 1, "round \(round): \(results)")
            #expect(results.contains(.reservationRefused(.overlap(nights: wanted.nights))))
            let holders = await t.world.nightHolders(of: "berlin-loft")
            #expect(Set(wanted.nights.map { holders[$0] }).count == 1)
        }
        // Forty nights booked, each by one reservation, and every confirmed reservation holds all of its nights.
        let annTrips = try await ann.myTrips().filter { $0.status == .confirmed && $0.from >= day("2025-07-01") }
        let bobTrips = try await bob.myTrips().filter { $0.status == .confirmed && $0.from >= day("2025-07-01") }
        #expect(annTrips.count + bobTrips.count == 20)
        let holders = await t.world.nightHolders(of: "berlin-loft")
        for trip in annTrips + bobTrips {
            #expect(trip.stay.nights.allSatisfy { holders[$0] == trip.id })
        }
    }

    @Test func manyGuestsOverlappingStaysNeverShareANight() async throws {
        let couch = try #require(try await t.signedIn("ann").repositories.couches.couch("berlin-kreuzberg"))
        var apps: [UseCases] = []
        for index in 0..<8 {
            let app = t.app("guest\(index)")
            _ = try await app.signUp(email: "guest\(index)@example.com", password: "password\(index)")
            apps.append(app)
        }
        let wins = await withTaskGroup(of: DayRange?.self) { group in
            for (index, app) in apps.enumerated() {
                // Stays of 3 nights starting every day: each overlaps its neighbours.
                let wanted = DayRange(from: day("2025-08-01").adding(days: index), to: day("2025-08-04").adding(days: index))
                group.addTask { (try? await app.reserve(couch, stay: wanted, guests: 1)) == nil ? nil : wanted }
            }
            var wins: [DayRange] = []
            for await win in group { if let win { wins.append(win) } }
            return wins
        }
        #expect(!wins.isEmpty)
        for (i, a) in wins.enumerated() {
            for b in wins[(i + 1)...] { #expect(!a.overlaps(b), "\(a) and \(b)") }
        }
        let nights = try await apps[0].repositories.reservations.reservedNights(of: "berlin-kreuzberg")
        #expect(nights.filter { $0 >= day("2025-08-01") } == Set(wins.flatMap(\.nights)))
    }

    @Test func reserveRefusesWithTheServersReasons() async throws {
        let ann = try await t.signedIn("ann")
        let hugo = try await t.signedIn("hugo")
        let reservations = ann.repositories.reservations
        // Straight to the service, past the use case's own checks: the world must refuse on its own.
        #expect(await caught { try await reservations.reserve(couchID: "berlin-loft", stay: stay("2025-06-19", "2025-06-22"), guests: 1) }
            == .reservationRefused(.overlap(nights: [day("2025-06-20"), day("2025-06-21")])))
        #expect(await caught { try await reservations.reserve(couchID: "berlin-loft", stay: stay("2025-06-16", "2025-06-18"), guests: 3) }
            == .reservationRefused(.capacity))
        #expect(await caught { try await reservations.reserve(couchID: "berlin-loft", stay: stay("2025-06-14", "2025-06-16"), guests: 1) }
            == .reservationRefused(.past))
        #expect(await caught { try await reservations.reserve(couchID: "berlin-loft", stay: stay("2025-07-01", "2025-08-01"), guests: 1) }
            == .reservationRefused(.tooLong))
        #expect(await caught { try await hugo.repositories.reservations.reserve(couchID: "berlin-loft", stay: stay("2025-07-01", "2025-07-02"), guests: 1) }
            == .reservationRefused(.ownCouch))
        #expect(await caught { try await reservations.reserve(couchID: "nowhere", stay: stay("2025-07-01", "2025-07-02"), guests: 1) } == .notFound)
        if case .invalidInput = await caught({ try await reservations.reserve(couchID: "berlin-loft", stay: stay("2025-07-02", "2025-07-02"), guests: 1) }) {
        } else {
            Issue.record("an empty stay is invalid input")
        }
        if case .invalidInput = await caught({ try await reservations.reserve(couchID: "berlin-loft", stay: stay("2025-07-01", "2025-07-02"), guests: 0) }) {
        } else {
            Issue.record("zero guests is invalid input")
        }
        // Today and a full 30 nights are fine; the cancelled June 25–27 nights are free.
        _ = try await reservations.reserve(couchID: "berlin-loft", stay: stay("2025-06-15", "2025-06-20"), guests: 2)
        _ = try await reservations.reserve(couchID: "berlin-loft", stay: stay("2025-06-23", "2025-07-23"), guests: 2)
        // Past stays keep their nights (ann's June 1–4): 3 + 5 + bob's 3 + 30.
        #expect(try await reservations.reservedNights(of: "berlin-loft").count == 3 + 5 + 3 + 30)
        let nobody = t.app("stranger").repositories.reservations
        #expect(await caught { try await nobody.reserve(couchID: "berlin-loft", stay: stay("2025-09-01", "2025-09-02"), guests: 1) } == .notSignedIn)
    }

    @Test func aReservationOpensTheOnlyConversationWithTheAutomaticFirstMessage() async throws {
        let ann = try await t.signedIn("ann")
        let outcome = try await ann.repositories.reservations.reserve(couchID: "berlin-kreuzberg", stay: stay("2025-07-10", "2025-07-13"), guests: 3)
        let conversation = try #require(try await ann.repositories.conversations.conversation(outcome.conversationId))
        #expect(conversation.members == ["ann", "hugo"] && conversation.reservationId == outcome.reservationId && conversation.couchId == "berlin-kreuzberg")
        let text = "Hi! I'd like to stay from 2025-07-10 to 2025-07-13 (3 guests)."
        #expect(conversation.lastMessage?.text == text && conversation.lastMessage?.from == "ann")
        #expect(await t.world.storedMessages(in: outcome.conversationId).map(\.text) == [text])
        let hugo = try await t.signedIn("hugo")
        #expect(try await hugo.repositories.conversations.conversation(outcome.conversationId) != nil)
        let reservation = try #require(try await hugo.repositories.reservations.reservation(outcome.reservationId))
        #expect(reservation.hostId == "hugo" && reservation.guestId == "ann" && reservation.endsAt == day("2025-07-13").start)
        // Nobody else reads it or writes in it.
        let bob = try await t.signedIn("bob")
        #expect(await caught { try await bob.repositories.conversations.conversation(outcome.conversationId) } == .permissionDenied)
        #expect(await caught { try await bob.repositories.conversations.send("hi", in: outcome.conversationId, from: "bob") } == .permissionDenied)
        #expect(await caught { try await bob.repositories.reservations.reservation(outcome.reservationId) } == .permissionDenied)
        // A member writes only as themself.
        #expect(await caught { try await ann.repositories.conversations.send("hi", in: outcome.conversationId, from: "hugo") } == .permissionDenied)
        #expect(await caught { try await ann.repositories.conversations.send("", in: outcome.conversationId, from: "ann") } == .permissionDenied)
        #expect(
            await caught { try await ann.repositories.conversations.send(String(repeating: "x", count: 2001), in: outcome.conversationId, from: "ann") }
                == .permissionDenied)
    }

    @Test func cancellingFreesTheNightsOnceAndOnlyForGuestOrHost() async throws {
        let ann = try await t.signedIn("ann")
        let bob = try await t.signedIn("bob")
        let hugo = try await t.signedIn("hugo")
        let loft = try await loft(ann)
        let booking = try await ann.reserve(loft, stay: stay("2025-07-01", "2025-07-04"), guests: 2)
        let reservation = try #require(try await ann.repositories.reservations.reservation(booking.outcome.reservationId))
        #expect(await t.notifier.scheduled[reservation.id] != nil)
        #expect(await caught { try await bob.cancel(reservation) } == .permissionDenied)
        #expect(await caught { try await bob.reserve(loft, stay: stay("2025-07-03", "2025-07-05"), guests: 1) }
            == .reservationRefused(.overlap(nights: [day("2025-07-03")])))

        try await ann.cancel(reservation)
        #expect(await t.notifier.scheduled[reservation.id] == nil)
        #expect(try await ann.repositories.reservations.reservation(reservation.id)?.status == .cancelled)
        let heldFromToday: Set<Day> = try await ann.calendar(of: "berlin-loft").reservedNights.filter { $0 >= day("2025-06-15") }
        #expect(heldFromToday == [day("2025-06-20"), day("2025-06-21"), day("2025-06-22")])
        #expect(await caught { try await ann.cancel(reservation) } == .alreadyCancelled)
        _ = try await bob.reserve(loft, stay: stay("2025-07-01", "2025-07-05"), guests: 1)

        // The host cancels too; then the old, cancelled reservation frees nothing of the new one.
        let upcoming = try #require(try await hugo.repositories.reservations.reservation("r-upcoming"))
        try await hugo.cancel(upcoming)
        #expect(await t.world.nightHolders(of: "berlin-loft").values.allSatisfy { $0 != "r-upcoming" && $0 != reservation.id })
        #expect(try await ann.calendar(of: "berlin-loft").reservedNights.filter { $0 >= day("2025-06-15") }.count == 4)
        #expect(await caught { try await hugo.repositories.reservations.cancel(reservationID: "r-unknown") } == .notFound)
    }

    @Test func onlyTheGuestOfAnEndedStayRatesOncePerReservation() async throws {
        let ann = try await t.signedIn("ann")
        let bob = try await t.signedIn("bob")
        let ratings = ann.repositories.ratings
        // Not the guest, cancelled, not ended, wrong couch, someone else's key: the rules refuse.
        #expect(await caught { try await bob.repositories.ratings.rate(couchID: "berlin-loft", reservationID: "r-past", stars: 5, text: nil, as: "bob") }
            == .permissionDenied)
        #expect(await caught { try await ratings.rate(couchID: "berlin-loft", reservationID: "r-past", stars: 5, text: nil, as: "bob") }
            == .permissionDenied)
        #expect(await caught { try await ratings.rate(couchID: "berlin-loft", reservationID: "r-cancelled", stars: 5, text: nil, as: "ann") }
            == .permissionDenied)
        #expect(await caught { try await bob.repositories.ratings.rate(couchID: "berlin-loft", reservationID: "r-upcoming", stars: 5, text: nil, as: "bob") }
            == .permissionDenied)
        #expect(await caught { try await ratings.rate(couchID: "berlin-kreuzberg", reservationID: "r-past", stars: 5, text: nil, as: "ann") }
            == .permissionDenied)
        #expect(await caught { try await ratings.rate(couchID: "berlin-loft", reservationID: "r-past", stars: 6, text: nil, as: "ann") } == .permissionDenied)
        #expect(await caught { try await ratings.rate(couchID: "berlin-loft", reservationID: "r-past", stars: 0, text: nil, as: "ann") } == .permissionDenied)
        #expect(
            await caught { try await ratings.rate(couchID: "berlin-loft", reservationID: "r-past", stars: 4, text: String(repeating: "a", count: 1001), as: "ann") }
                == .permissionDenied)

        try await ratings.rate(couchID: "berlin-loft", reservationID: "r-past", stars: 4, text: "Lovely", as: "ann")
        #expect(await caught { try await ratings.rate(couchID: "berlin-loft", reservationID: "r-past", stars: 5, text: nil, as: "ann") } == .permissionDenied)
        #expect(try await ratings.summary(of: "berlin-loft") == RatingSummary(count: 1, average: 4, distribution: [4: 1]))

        // Bob's upcoming stay ends on June 23: then he may rate, once.
        #expect(await caught { try await bob.rate("berlin-loft", stars: 2, text: "") } == .ratingRefused(.notEnded))
        t.clock.advance(days: 8)  // June 23, 12:00 UTC
        try await bob.rate("berlin-loft", stars: 2, text: "  ")
        #expect(await caught { try await bob.rate("berlin-loft", stars: 3, text: "") } == .ratingRefused(.alreadyRated))
        let summary = try await ratings.summary(of: "berlin-loft")
        #expect(summary == RatingSummary(count: 2, average: 3, distribution: [2: 1, 4: 1]))
        #expect(try await ratings.ratings(of: "berlin-loft").map(\.id) == ["bob", "ann"])
        #expect(try await ratings.ratings(of: "berlin-loft").first?.text == nil)  // blank words are no words
    }

    @Test func aNewStayAllowsANewRatingThatReplacesTheOldOne() async throws {
        let bob = try await t.signedIn("bob")
        #expect(await caught { try await bob.rate("berlin-kreuzberg", stars: 1, text: "") } == .ratingRefused(.alreadyRated))
        let kreuzberg = try #require(try await bob.repositories.couches.couch("berlin-kreuzberg"))
        _ = try await bob.reserve(kreuzberg, stay: stay("2025-06-16", "2025-06-18"), guests: 1)
        t.clock.advance(days: 3)
        try await bob.rate("berlin-kreuzberg", stars: 1, text: "Noisy this time")
        let summary = try await bob.repositories.ratings.summary(of: "berlin-kreuzberg")
        // bob's 4 became a 1; carl's 5 stays.
        #expect(summary == RatingSummary(count: 2, average: 3, distribution: [1: 1, 5: 1]))
    }

    @Test func readsNeedASignedInUserAndSwitchesTheirHost() async throws {
        let stranger = t.app("stranger")
        #expect(await caught { try await stranger.repositories.couches.couch("berlin-loft") } == .permissionDenied)
        #expect(await caught { try await stranger.repositories.ratings.summary(of: "berlin-loft") } == .permissionDenied)
        let ann = try await t.signedIn("ann")
        #expect(await caught { try await ann.repositories.smartHome.switches(of: "berlin-loft") } == .permissionDenied)
        #expect(await caught { try await ann.repositories.smartHome.setSwitch("heater", of: "berlin-loft", on: true) } == .permissionDenied)
        #expect(await caught { try await ann.repositories.smartHome.runWeatherWatcher(couchID: "berlin-loft") } == .permissionDenied)
        #expect(await caught { try await ann.repositories.reservations.reservations(of: "bob") } == .permissionDenied)
        #expect(await caught { try await ann.repositories.smartHome.log(of: "berlin-loft", limit: 10) } == .permissionDenied)
        #expect(await caught { try await ann.repositories.smartHome.addSwitch(.heating, item: "Mine", to: "berlin-loft") } == .permissionDenied)
    }

    @Test func onlyTheHostWritesACouchAndItsPhotos() async throws {
        let ann = try await t.signedIn("ann")
        let hugo = try await t.signedIn("hugo")
        let before = try await loft(hugo)
        var draft = before.draft
        draft.title = "Ann's now"
        #expect(await caught { try await ann.repositories.couches.update("berlin-loft", with: draft) } == .permissionDenied)
        draft.capacity = 51
        #expect(await caught { try await hugo.repositories.couches.update("berlin-loft", with: draft) } == .permissionDenied)
        draft.capacity = 3
        try await hugo.repositories.couches.update("berlin-loft", with: draft)
        let updated = try await loft(hugo)
        #expect(updated.title == "Ann's now" && updated.capacity == 3 && updated.photos == before.photos && updated.createdAt == before.createdAt)

        #expect(await caught { try await ann.addPhoto(Fixtures.jpeg, to: "berlin-loft") } == .photoNotProcessed)
        let photo = try await hugo.addPhoto(Fixtures.jpeg, to: "berlin-loft")
        #expect(photo.path == "couches/berlin-loft/\(photo.id).jpg" && !photo.url.isEmpty)
        #expect(await t.world.storedObject(at: photo.path) == Fixtures.jpeg)
        #expect(try await loft(ann).photos.map(\.id) == ["p-1", photo.id])
        #expect(await caught { try await hugo.addPhoto(Data("GIF89a".utf8), to: "berlin-loft") } == .invalidInput("Photos must be JPEG images."))
    }

    @Test func nearAndCitySearchesFindTheRightCouches() async throws {
        let ann = try await t.signedIn("ann")
        let berlin = GeoPoint(latitude: 52.52, longitude: 13.405)
        let near = try await ann.couches(in: MapRegion(center: berlin, radiusMeters: 5_000))
        #expect(near.map(\.id) == ["berlin-loft", "berlin-kreuzberg"])
        #expect(near[0].distance > 500 && near[0].distance < 700)  // ~0.65 km
        #expect(near[1].distance > 2_000 && near[1].distance < 2_600)
        let wide = try await ann.couches(in: MapRegion(center: berlin, radiusMeters: 40_000))
        #expect(wide.map(\.id) == ["berlin-loft", "berlin-kreuzberg", "potsdam-villa"])
        #expect(try await ann.couches(in: MapRegion(center: berlin, radiusMeters: 0)).isEmpty)
        let munich = try await ann.searchCity("  munich ")
        #expect(munich.place.city == "Munich" && munich.couches.map(\.id) == ["munich-flat"])
        #expect(try await ann.myCouches().isEmpty)
        #expect(try await t.signedIn("hana").myCouches().map(\.id).sorted() == ["munich-flat", "potsdam-villa"])
    }

    @Test func theWatcherSwitchesLogsAndLeavesEverythingWhenAServiceFails() async throws {
        let hugo = try await t.signedIn("hugo")
        let home = hugo.repositories.smartHome
        // Berlin at 12.5 °C: the heater goes ON, the air conditioner stays OFF.
        let run = try await home.runWeatherWatcher(couchID: "berlin-loft")
        #expect(run == WatcherRun(decision: .heating, temperatureC: 12.5, changes: ["heater": "ON"]))
        #expect(await t.world.openHABState(of: "Loft_Heater") == "ON")
        #expect(try await home.switches(of: "berlin-loft").map(\.state) == ["OFF", "ON"])  // aircon, heater

        await t.world.setTemperature(31, in: "Berlin")
        await t.world.setAvailable(.smartHome, false)
        #expect(await caught { try await home.runWeatherWatcher(couchID: "berlin-loft") } == .unavailable(.smartHome))
        #expect(await t.world.openHABState(of: "Loft_Heater") == "ON")
        await t.world.setAvailable(.smartHome, true)
        await t.world.setAvailable(.weather, false)
        #expect(await caught { try await home.runWeatherWatcher(couchID: "berlin-loft") } == .unavailable(.weather))
        await t.world.setAvailable(.weather, true)

        // The hourly job: too warm now.
        t.clock.advance(days: 1)
        await t.world.runScheduledWatcher()
        #expect(await t.world.openHABState(of: "Loft_Heater") == "OFF")
        #expect(await t.world.openHABState(of: "Loft_AC") == "ON")
        let log = try await home.log(of: "berlin-loft", limit: 10)
        #expect(log.map(\.decision) == [.cooling, .none, .none, .heating])
        #expect(log[0].changes == ["heater": "OFF", "aircon": "ON"] && log[0].temperatureC == 31 && log[0].city == "Berlin")
        #expect(log[1].error != nil && log[1].temperatureC == nil && log[2].error != nil && log[2].changes.isEmpty)
        #expect(try await home.log(of: "berlin-loft", limit: 1).count == 1)
    }
}
