import Foundation
import HearthGeo
import StaysCore
import Testing

/// Every screen's view model against the in-memory world of `Fixtures.world`: the main path and the failures.
@MainActor
@Suite("Stays view models")
struct ViewModelTests {
    let t: TestWorld

    init() throws { t = try TestWorld() }

    func eventually(_ what: String, _ check: () -> Bool) async throws {
        for _ in 0..<200 where !check() { try await Task.sleep(for: .milliseconds(10)) }
        #expect(check(), "\(what)")
    }

    func couch(_ id: String, _ app: UseCases) async throws -> Couch { try #require(try await app.repositories.couches.couch(id)) }

    // MARK: Sign in

    @Test func signInRefusesWrongPasswordsAndTakenEmails() async throws {
        let screen = SignInViewModel(t.app("phone"))
        await screen.start()
        #expect(screen.uid == nil)
        screen.email = "ann@example.com"
        screen.password = "wrong-one"
        await screen.signIn()
        #expect(screen.state == .failed(.wrongCredentials) && screen.uid == nil)
        await screen.signUp()
        #expect(screen.state == .failed(.emailInUse))
        screen.password = "ann-pass1"
        await screen.signIn()
        #expect(screen.state == .done && screen.uid == "ann")

        let newcomer = SignInViewModel(t.app("other"))
        newcomer.email = " zoe@example.com "
        newcomer.password = "short"
        await newcomer.signUp()
        #expect(newcomer.state == .failed(.invalidInput("Choose a password of at least 6 characters.")))
        newcomer.password = "long-enough"
        await newcomer.signUp()
        #expect(newcomer.state == .done && newcomer.uid != nil)
    }

    // MARK: Trips

    @Test func tripsShowsTheCouchesAroundTheMapAndSearchesCities() async throws {
        let ann = try await t.signedIn("ann")
        let berlin = MapRegion(center: GeoPoint(latitude: 52.52, longitude: 13.405), radiusMeters: 3_000)
        let trips = TripsViewModel(ann, region: berlin)
        await trips.show(berlin)
        #expect(trips.state == .done && trips.couches.map(\.id) == ["berlin-loft", "berlin-kreuzberg"])

        await t.world.failNextWith(.offline)
        await trips.reload()
        #expect(trips.state == .failed(.offline))
        #expect(trips.couches.map(\.id) == ["berlin-loft", "berlin-kreuzberg"])  // what was shown stays

        trips.searchText = "Potsdam"
        await trips.searchCity()
        #expect(trips.state == .done && trips.alert == nil)
        #expect(trips.place?.city == "Potsdam" && trips.region.center == GeoPoint(latitude: 52.3906, longitude: 13.0645))
        #expect(trips.couches.map(\.id) == ["potsdam-villa"] && trips.couches[0].distance < 1)

        trips.searchText = "Atlantis"
        await trips.searchCity()
        #expect(trips.alert == .addressNotFound)
        #expect(trips.region.center == GeoPoint(latitude: 52.3906, longitude: 13.0645))  // the map did not move
        trips.dismissAlert()
        #expect(trips.alert == nil)

        await t.world.setAvailable(.geocoder, false)
        trips.searchText = "Munich"
        await trips.searchCity()
        #expect(trips.alert == .unavailable(.geocoder))
        await t.world.setAvailable(.geocoder, true)
        await trips.searchCity()
        #expect(trips.couches.map(\.id) == ["munich-flat"] && trips.alert == nil)

        // A city with no couch: an empty map, not an error.
        trips.searchText = "Hamburg"
        await trips.searchCity()
        #expect(trips.state == .done && trips.couches.isEmpty)
        trips.searchText = "   "
        await trips.searchCity()
        #expect(trips.alert == .invalidInput("Enter a city."))
    }

    @Test func tripsNeedsASignedInUser() async throws {
        let trips = TripsViewModel(t.app("stranger"), region: MapRegion(center: GeoPoint(latitude: 52.52, longitude: 13.405), radiusMeters: 3_000))
        await trips.reload()
        #expect(trips.state == .failed(.permissionDenied) && trips.couches.isEmpty)
    }

    // MARK: Couch details

    @Test func couchDetailsShowsTheSummaryAndGreysTheReservedNights() async throws {
        let ann = try await t.signedIn("ann")
        let details = CouchDetailsViewModel(couchID: "berlin-kreuzberg", ann)
        await details.load()
        #expect(details.state == .done && details.couch?.title == "Kreuzberg futon" && !details.isHost)
        #expect(details.summary == RatingSummary(count: 2, average: 4.5, distribution: [4: 1, 5: 1]))
        #expect(details.disabledRanges == [stay("2025-05-10", "2025-05-12")])  // bob's past stay

        let loft = CouchDetailsViewModel(couchID: "berlin-loft", try await t.signedIn("hugo"))
        await loft.load()
        #expect(loft.isHost && loft.summary == .empty)
        // Ann's past stay and bob's coming one; ann's cancelled nights are free.
        #expect(loft.disabledRanges == [stay("2025-06-01", "2025-06-04"), stay("2025-06-20", "2025-06-23")])
        #expect(loft.calendar.today == day("2025-06-15"))

        let gone = CouchDetailsViewModel(couchID: "demolished", ann)
        await gone.load()
        #expect(gone.state == .failed(.notFound))
        await t.world.failNextWith(.offline)
        await details.load()
        #expect(details.state == .failed(.offline))
    }

    // MARK: Reserve

    @Test func reservePicksDaysAroundTakenNightsBooksAndRemindsOnTheFirstDay() async throws {
        let ann = try await t.signedIn("ann")
        let screen = ReserveViewModel(couch: try await couch("berlin-loft", ann), ann)
        await screen.load()
        #expect(screen.problem == "Pick your check-in and check-out days." && !screen.canReserve)
        #expect(!screen.isEnabled(day("2025-06-14")) && !screen.isEnabled(day("2025-06-20")) && screen.isEnabled(day("2025-06-19")))

        screen.select(day("2025-06-20"))  // taken: ignored
        #expect(screen.checkIn == nil)
        screen.select(day("2025-06-18"))
        #expect(screen.isEnabled(day("2025-06-20")) && !screen.isEnabled(day("2025-06-21")))  // check-out as bob arrives, not later
        screen.select(day("2025-06-22"))  // past the next taken night, and taken itself: ignored
        #expect(screen.checkIn == day("2025-06-18") && screen.checkOut == nil)
        screen.select(day("2025-06-20"))
        #expect(screen.stay == stay("2025-06-18", "2025-06-20"))
        screen.guests = 3
        #expect(screen.problem == ReservationRefusal.capacity.description && !screen.canReserve)
        await screen.reserve()
        #expect(screen.state == .refused(.capacity))
        screen.guests = 2
        #expect(screen.canReserve)
        await screen.reserve()
        guard case .reserved(let booking) = screen.state else {
            Issue.record("state \(screen.state)")
            return
        }
        #expect(booking.reminder?.day == day("2025-06-18"))
        let reminder = try #require(await t.notifier.scheduled[booking.outcome.reservationId])
        #expect(reminder.day == day("2025-06-18") && reminder.body.contains("Loft at Alexanderplatz"))
        #expect(try await ann.calendar(of: "berlin-loft").disabledRanges == [stay("2025-06-01", "2025-06-04"), stay("2025-06-18", "2025-06-23")])

        // A new choice starts with a tap after a full one.
        screen.select(day("2025-06-25"))
        #expect(screen.checkIn == day("2025-06-25") && screen.checkOut == nil)
        screen.clear()
        #expect(screen.stay == nil && screen.state == .idle)
    }

    @Test func reserveShowsTheOverlapWhenSomeoneWasFasterAndReloadsTheCalendar() async throws {
        let ann = try await t.signedIn("ann")
        let bob = try await t.signedIn("bob")
        let loft = try await couch("berlin-loft", ann)
        let screen = ReserveViewModel(couch: loft, ann)
        await screen.load()
        screen.select(day("2025-07-01"))
        screen.select(day("2025-07-04"))
        _ = try await bob.repositories.reservations.reserve(couchID: loft.id, stay: stay("2025-07-03", "2025-07-05"), guests: 1)
        await screen.reserve()
        #expect(screen.state == .refused(.overlap(nights: [day("2025-07-03")])))
        #expect(screen.calendar.isReserved(day("2025-07-03")) && screen.calendar.isReserved(day("2025-07-04")))
        #expect(screen.problem == StayProblem.overlap([day("2025-07-03")]).description)
        #expect(await t.notifier.scheduled.isEmpty)

        // Offline, and a refused notification permission (the stay is booked anyway, without a reminder).
        screen.select(day("2025-07-10"))
        screen.select(day("2025-07-12"))
        await t.world.failNextWith(.offline)
        await screen.reserve()
        #expect(screen.state == .failed(.offline))
        await t.notifier.failNextWith(.permissionDenied)
        await screen.reserve()
        guard case .reserved(let booking) = screen.state else {
            Issue.record("state \(screen.state)")
            return
        }
        #expect(booking.reminder == nil)
        #expect(await t.notifier.scheduled.isEmpty)

        let own = ReserveViewModel(couch: loft, try await t.signedIn("hugo"))
        own.select(day("2025-08-01"))
        own.select(day("2025-08-02"))
        await own.reserve()
        #expect(own.state == .refused(.ownCouch))
    }

    // MARK: Hosting

    @Test func myCouchesListsTheHostsCouchesNewestFirst() async throws {
        let screen = MyCouchesViewModel(try await t.signedIn("hugo"))
        await screen.load()
        #expect(screen.state == .done && screen.couches.map(\.id) == ["berlin-kreuzberg", "berlin-loft"])
        await t.world.failNextWith(.offline)
        await screen.load()
        #expect(screen.state == .failed(.offline))
        let signedOut = MyCouchesViewModel(t.app("stranger"))
        await signedOut.load()
        #expect(signedOut.state == .failed(.notSignedIn))
    }

    @Test func newCouchChecksTheFormGeocodesTheAddressAndUploadsThePhotos() async throws {
        let ann = try await t.signedIn("ann")
        let form = NewCouchViewModel(ann)
        #expect(Set(form.problems.keys) == [.title, .address])
        await form.save()
        #expect(form.state == .failed(.invalidInput("Enter a title of at most 100 characters.")))
        form.title = "  Ann's sofa  "
        form.address = "Alexanderplatz 1, Berlin"
        form.capacity = 51
        form.addPhoto(Data("not a jpeg".utf8))
        #expect(Set(form.problems.keys) == [.capacity, .photos])
        form.capacity = 2
        form.removePhoto(at: 0)
        form.addPhoto(Fixtures.jpeg)
        form.addPhoto(Fixtures.jpeg)
        #expect(form.problems.isEmpty)

        await form.geocodeAddress()
        #expect(form.geocodeState == .done && form.place?.city == "Berlin")
        await form.save()
        #expect(form.state == .done && form.uploaded.count == 2 && form.failedPhotos == 0 && form.photos.isEmpty)
        let id = try #require(form.couchID)
        let saved = try await couch(id, ann)
        #expect(saved.hostId == "ann" && saved.title == "Ann's sofa" && saved.city == "Berlin" && saved.capacity == 2)
        #expect(saved.location == GeoPoint(latitude: 52.5219, longitude: 13.4132) && saved.photos.map(\.id) == form.uploaded.map(\.id))
        #expect(try await ann.myCouches().map(\.id) == [id])
        // It is on the map now.
        // It is on the map now (at the loft's address, so both are 0 m away).
        #expect(try await ann.couches(in: MapRegion(center: saved.location, radiusMeters: 10)).map(\.id) == ["berlin-loft", id])

        // Editing: a new address that cannot be found keeps the couch as it was.
        let edit = NewCouchViewModel(ann, editing: saved)
        #expect(edit.place != nil && edit.problems.isEmpty)
        edit.address = "Nowhere 1"
        #expect(edit.place == nil)
        await edit.save()
        #expect(edit.state == .failed(.addressNotFound))
        edit.address = "Potsdam"
        edit.capacity = 3
        await edit.save()
        #expect(edit.state == .done)
        let moved = try await couch(id, ann)
        #expect(moved.city == "Potsdam" && moved.capacity == 3 && moved.photos.count == 2 && moved.createdAt == saved.createdAt)
    }

    @Test func newCouchReportsTheGeocoderAndPhotosThatFailed() async throws {
        let ann = try await t.signedIn("ann")
        let form = NewCouchViewModel(ann)
        form.title = "Sofa"
        form.address = "Berlin"
        await t.world.setAvailable(.geocoder, false)
        await form.save()
        #expect(form.state == .failed(.unavailable(.geocoder)) && form.couchID == nil)
        await t.world.setAvailable(.geocoder, true)
        form.addPhoto(Fixtures.jpeg)
        await form.geocodeAddress()
        // The couch is saved; its photo upload fails once and stays in the form to retry.
        await t.world.failNextPhotoUpload(with: .offline)
        await form.save()
        #expect(form.state == .done && form.couchID != nil)
        #expect(form.failedPhotos == 1 && form.photos.count == 1 && form.uploaded.isEmpty)
        await form.save()  // retries the photo for the same couch
        #expect(form.failedPhotos == 0 && form.uploaded.count == 1)
        #expect(try await ann.myCouches().count == 1)
    }

    // MARK: Conversations

    @Test func conversationsFollowNewReservationsAndMessagesLive() async throws {
        let ann = try await t.signedIn("ann")
        let hugo = try await t.signedIn("hugo")
        let list = ConversationsViewModel(ann)
        await list.start()
        try await eventually("the first list") { list.conversations.map(\.id) == ["v-past"] }
        #expect(list.state == .done)

        let booking = try await ann.reserve(try await couch("berlin-kreuzberg", ann), stay: stay("2025-07-01", "2025-07-03"), guests: 1)
        try await eventually("the new conversation on top") { list.conversations.map(\.id) == [booking.outcome.conversationId, "v-past"] }

        t.clock.advance(days: 1)
        let hugoChat = MessagesViewModel(conversationID: "v-past", hugo)
        await hugoChat.start()
        try await eventually("hugo's messages") { hugoChat.messages.count == 2 }
        hugoChat.draft = "  Come back soon!  "
        await hugoChat.send()
        #expect(hugoChat.sendState == .done && hugoChat.draft.isEmpty)
        try await eventually("v-past moves up") { list.conversations.first?.id == "v-past" }
        #expect(list.conversations.first?.lastMessage?.text == "Come back soon!")
        list.stop()
        hugoChat.stop()
    }

    @Test func conversationsFailWhenSignedOut() async {
        let list = ConversationsViewModel(t.app("stranger"))
        await list.start()
        #expect(list.state == .failed(.notSignedIn))
    }

    @Test func messagesArriveLiveAndAFailedSendKeepsTheDraft() async throws {
        let ann = try await t.signedIn("ann")
        let hugo = try await t.signedIn("hugo")
        let annChat = MessagesViewModel(conversationID: "v-past", ann)
        let hugoChat = MessagesViewModel(conversationID: "v-past", hugo)
        await annChat.start()
        await hugoChat.start()
        try await eventually("both see the history") { annChat.messages.map(\.id) == ["m-1", "m-2"] && hugoChat.messages.count == 2 }
        #expect(annChat.me == "ann")

        annChat.draft = "   "
        #expect(!annChat.canSend)
        await annChat.send()
        #expect(annChat.sendState == .failed(.invalidInput("Write a message first.")))

        annChat.draft = "Thanks, Hugo!"
        await t.world.failNextWith(.offline)
        await annChat.send()
        #expect(annChat.sendState == .failed(.offline) && annChat.draft == "Thanks, Hugo!")
        await annChat.send()
        #expect(annChat.sendState == .done && annChat.draft.isEmpty)
        try await eventually("hugo sees it") { hugoChat.messages.last?.text == "Thanks, Hugo!" && hugoChat.messages.last?.from == "ann" }

        annChat.draft = String(repeating: "x", count: 2001)
        await annChat.send()
        #expect(annChat.sendState == .failed(.invalidInput("A message is at most 2000 characters.")))

        let bobChat = MessagesViewModel(conversationID: "v-past", try await t.signedIn("bob"))
        await bobChat.start()
        try await eventually("bob is refused") { bobChat.state == .failed(.permissionDenied) }
        #expect(bobChat.messages.isEmpty)
        annChat.stop()
        hugoChat.stop()
    }

    // MARK: Ratings

    @Test func ratingsListTheSummaryAndTheNewestFirst() async throws {
        let screen = RatingsViewModel(couchID: "berlin-kreuzberg", try await t.signedIn("ann"))
        await screen.load()
        #expect(screen.state == .done && screen.summary.count == 2 && screen.summary.average == 4.5)
        #expect(screen.ratings.map(\.id) == ["bob", "carl"] && screen.ratings[0].text == "Comfy futon")
        await t.world.failNextWith(.offline)
        await screen.load()
        #expect(screen.state == .failed(.offline))
    }

    @Test func newRatingRatesAnEndedStayOnceAndSaysWhyOtherwise() async throws {
        let ann = try await t.signedIn("ann")
        let screen = NewRatingViewModel(couchID: "berlin-loft", ann)
        await screen.load()
        #expect(screen.stay?.id == "r-past" && screen.refusal == nil)
        #expect(!screen.canSubmit)  // no stars yet
        await screen.submit()
        #expect(screen.state == .failed(.invalidInput("Give 1 to 5 stars.")))
        screen.stars = 5
        screen.text = "  Great view  "
        #expect(screen.canSubmit)
        await screen.submit()
        #expect(screen.state == .done && !screen.canSubmit)
        let rating = try #require(try await ann.repositories.ratings.ratings(of: "berlin-loft").first)
        #expect(rating.id == "ann" && rating.stars == 5 && rating.text == "Great view" && rating.reservationId == "r-past")
        #expect(try await ann.repositories.ratings.summary(of: "berlin-loft").distribution[5] == 1)

        let again = NewRatingViewModel(couchID: "berlin-loft", ann)
        await again.load()
        #expect(again.refusal == .alreadyRated && again.stay == nil && !again.canSubmit)

        let reasons: [(String, String, RatingRefusal)] = [
            ("bob", "berlin-loft", .notEnded), ("ann", "potsdam-villa", .cancelled), ("hana", "berlin-loft", .noStay),
        ]
        for (name, couchID, reason) in reasons {
            let other = NewRatingViewModel(couchID: couchID, try await t.signedIn(name))
            await other.load()
            #expect(other.refusal == reason, "\(name) on \(couchID)")
        }

        let offline = NewRatingViewModel(couchID: "berlin-loft", t.app("stranger"))
        await offline.load()
        #expect(offline.state == .failed(.notSignedIn))
    }

    // MARK: Smart home

    @Test func smartHomeSwitchesSavesTheWatcherRunsItAndShowsTheLog() async throws {
        let hugo = try await t.signedIn("hugo")
        let screen = SmartHomeViewModel(couchID: "berlin-loft", hugo)
        await screen.load()
        #expect(screen.state == .done && screen.switches.map(\.id) == ["aircon", "heater"] && screen.log.isEmpty)
        let heater = screen.switches[1]

        await screen.set(heater, on: true)
        #expect(screen.actionState == .done && screen.switches[1].isOn && screen.switching == nil)
        #expect(await t.world.openHABState(of: "Loft_Heater") == "ON")

        await t.world.setAvailable(.smartHome, false)
        await screen.set(heater, on: false)
        #expect(screen.actionState == .failed(.unavailable(.smartHome)) && screen.switches[1].isOn)
        await t.world.setAvailable(.smartHome, true)

        await screen.saveWatcher(Watcher(enabled: true, minC: 22, maxC: 20), for: "heater")
        #expect(screen.actionState == .failed(.invalidInput("The minimum must not be above the maximum.")))
        await screen.saveWatcher(Watcher(enabled: true, minC: 10, maxC: 24), for: "heater")
        #expect(screen.actionState == .done && screen.switches[1].watcher == Watcher(enabled: true, minC: 10, maxC: 24))

        // 12.5 °C is above the heater's new minimum: the watcher turns it off.
        await screen.runNow()
        #expect(screen.lastRun == WatcherRun(decision: .off, temperatureC: 12.5, changes: ["heater": "OFF"]))
        #expect(!screen.switches[1].isOn && screen.log.map(\.decision) == [.off])

        await t.world.setAvailable(.weather, false)
        await screen.runNow()
        #expect(screen.actionState == .failed(.unavailable(.weather)) && screen.log.count == 2 && screen.log[0].error != nil)

        await screen.addSwitch(.cooling, item: "bad item!")
        #expect(screen.actionState == .failed(.invalidInput("An openHAB item name has 1–100 letters, digits or underscores.")))
        await screen.addSwitch(.cooling, item: " Loft_Fan ")
        #expect(screen.actionState == .done && screen.switches.last?.item == "Loft_Fan" && screen.switches.count == 3)

        let guest = SmartHomeViewModel(couchID: "berlin-loft", try await t.signedIn("ann"))
        await guest.load()
        #expect(guest.state == .failed(.permissionDenied) && guest.switches.isEmpty)
    }
}
