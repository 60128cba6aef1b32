import Foundation
import HearthGeo

// The repositories over an `InMemoryWorld`, each as one phone (`device`) uses it.

struct InMemorySession: SessionRepository {
    let world: InMemoryWorld
    let device: String

    func currentUserID() async -> String? { await world.sessions[device] }
    func signUp(email: String, password: String) async throws(AppError) -> String { try await world.signUp(device, email: email, password: password) }
    func signIn(email: String, password: String) async throws(AppError) -> String { try await world.signIn(device, email: email, password: password) }
    func signOut() async { await world.signOut(device) }
}

struct InMemoryCouches: CouchRepository {
    let world: InMemoryWorld
    let device: String

    func create(_ draft: CouchDraft) async throws(AppError) -> String { try await world.createCouch(device, draft) }
    func update(_ couchID: String, with draft: CouchDraft) async throws(AppError) { try await world.updateCouch(device, couchID, draft) }
    func couch(_ couchID: String) async throws(AppError) -> Couch? { try await world.couch(couchID, device: device) }
    func couches(inCity city: String) async throws(AppError) -> [Couch] { try await world.couches(inCity: city, device: device) }
    func couches(near center: GeoPoint, radiusMeters: Double) async throws(AppError) -> [NearbyCouch] {
        try await world.couches(near: center, radiusMeters: radiusMeters, device: device)
    }
    func couches(ofHost hostID: String) async throws(AppError) -> [Couch] { try await world.couches(ofHost: hostID, device: device) }
}

struct InMemoryPhotos: PhotoRepository {
    let world: InMemoryWorld
    let device: String

    func upload(jpeg: Data, toCouch couchID: String) async throws(AppError) -> CouchPhoto {
        try await world.uploadPhoto(device, jpeg: jpeg, couchID: couchID)
    }
}

struct InMemoryGeocoder: GeocodingService {
    let world: InMemoryWorld
    let device: String

    func geocode(_ address: String) async throws(AppError) -> Place { try await world.geocode(device, address: address) }
}

struct InMemoryReservations: ReservationService {
    let world: InMemoryWorld
    let device: String

    func reserve(couchID: String, stay: DayRange, guests: Int) async throws(AppError) -> ReservationOutcome {
        try await world.reserve(device, couchID: couchID, stay: stay, guests: guests)
    }
    func cancel(reservationID: String) async throws(AppError) { try await world.cancelReservation(device, reservationID: reservationID) }
    func reservation(_ reservationID: String) async throws(AppError) -> Reservation? { try await world.reservation(reservationID, device: device) }
    func reservations(of uid: String) async throws(AppError) -> [Reservation] { try await world.reservations(of: uid, device: device) }
    func reservedNights(of couchID: String) async throws(AppError) -> Set<Day> { try await world.reservedNights(of: couchID, device: device) }
}

struct InMemoryConversations: ConversationRepository {
    let world: InMemoryWorld
    let device: String

    func conversations(of uid: String) -> AsyncThrowingStream<[Conversation], any Error> {
        let (stream, continuation) = AsyncThrowingStream<[Conversation], any Error>.makeStream()
        let (world, device) = (self.world, self.device)
        Task { await world.watchConversations(of: uid, device: device, continuation) }
        return stream
    }

    func conversation(_ conversationID: String) async throws(AppError) -> Conversation? {
        try await world.conversation(conversationID, device: device)
    }

    func messages(in conversationID: String) -> AsyncThrowingStream<[Message], any Error> {
        let (stream, continuation) = AsyncThrowingStream<[Message], any Error>.makeStream()
        let (world, device) = (self.world, self.device)
        Task { await world.watchMessages(in: conversationID, device: device, continuation) }
        return stream
    }

    func send(_ text: String, in conversationID: String, from uid: String) async throws(AppError) {
        try await world.send(device, text: text, conversationID: conversationID, from: uid)
    }
}

struct InMemoryRatings: RatingRepository {
    let world: InMemoryWorld
    let device: String

    func ratings(of couchID: String) async throws(AppError) -> [Rating] { try await world.ratings(of: couchID, device: device) }
    func summary(of couchID: String) async throws(AppError) -> RatingSummary { try await world.summary(of: couchID, device: device) }
    func rate(couchID: String, reservationID: String, stars: Int, text: String?, as uid: String) async throws(AppError) {
        try await world.rate(device, couchID: couchID, reservationID: reservationID, stars: stars, text: text, as: uid)
    }
}

struct InMemorySmartHome: SmartHomeService {
    let world: InMemoryWorld
    let device: String

    func switches(of couchID: String) async throws(AppError) -> [SmartSwitch] { try await world.switches(of: couchID, device: device) }
    func addSwitch(_ type: SmartSwitch.Kind, item: String, to couchID: String) async throws(AppError) -> SmartSwitch {
        try await world.addSwitch(device, type: type, item: item, couchID: couchID)
    }
    func saveWatcher(_ watcher: Watcher, switchID: String, of couchID: String) async throws(AppError) {
        try await world.saveWatcher(device, watcher, switchID: switchID, couchID: couchID)
    }
    func setSwitch(_ switchID: String, of couchID: String, on: Bool) async throws(AppError) -> String {
        try await world.setSwitch(device, switchID: switchID, couchID: couchID, on: on)
    }
    func runWeatherWatcher(couchID: String) async throws(AppError) -> WatcherRun { try await world.runWeatherWatcher(device, couchID: couchID) }
    func log(of couchID: String, limit: Int) async throws(AppError) -> [SwitchLogEntry] {
        try await world.log(of: couchID, limit: limit, device: device)
    }
}
