import Foundation
import HearthCore
import HearthGeo

/// A whole Stays backend in memory — accounts, database, storage, the callables, the triggers and the outside
/// services (geocoder, openHAB, weather) — for unit tests and previews. It keeps the server contract's rules
/// (Examples/Stays/README.md and rules.json): only hosts write their couches, photos and switches; `reserve` refuses
/// overlapping, over-capacity, past, too long and own-couch stays and two guests racing for a night cannot both win;
/// a conversation is opened only by a reservation; only the guest of an ended, confirmed reservation rates, once per
/// reservation; the summary is recomputed from the ratings. Each call is one step of the actor, so concurrent calls
/// behave as the server's atomic writes do. What the rules refuse is ``AppError/permissionDenied``, as on the server.
///
/// It starts from a fixture in the database's layout (`couches`, `reservations`, `conversations`, `messages`,
/// `ratings`, `switches`, `switchLog`; times in milliseconds since 1970) plus `accounts` (`{uid: {email, password}}`),
/// `geocoder` (`{address: {lat, lng, city}}`, matched ignoring case and outer spaces), `weather` (`{city: °C}`) and
/// `openHAB` (`{item: state}`). Several phones can use one world: each `device` has its own session.
///
/// ```swift
/// let world = try InMemoryWorld(fixture: Data(json.utf8), clock: { clock.now })
/// let ann = UseCases(world.repositories(device: "ann"), notifier: RecordingNotifier())
/// _ = try await ann.signIn(email: "ann@example.com", password: "secret123")
/// ```
public actor InMemoryWorld {
    struct Account: Decodable {
        var email: String
        var password: String
    }

    struct GeocoderEntry: Decodable {
        var lat: Double
        var lng: Double
        var city: String
    }

    struct Fixture: Decodable {
        var accounts: [String: Account]?
        var couches: [String: Couch]?
        var reservations: [String: Reservation]?
        var conversations: [String: Conversation]?
        var messages: [String: [String: Message]]?
        var ratings: [String: [String: Rating]]?
        var switches: [String: [String: SmartSwitch]]?
        var switchLog: [String: [String: SwitchLogEntry]]?
        var geocoder: [String: GeocoderEntry]?
        var weather: [String: Double]?
        var openHAB: [String: String]?
    }

    let clock: @Sendable () -> Date

    var accounts: [String: Account] = [:]
    /// Device → signed-in uid.
    var sessions: [String: String] = [:]
    var couches: [String: Couch] = [:]
    var reservations: [String: Reservation] = [:]
    var userReservations: [String: Set<String>] = [:]
    /// Couch → night → the reservation holding it.
    var reservedNights: [String: [Day: String]] = [:]
    var conversations: [String: Conversation] = [:]
    var messages: [String: [Message]] = [:]
    var userConversations: [String: Set<String>] = [:]
    /// Couch → guest uid → rating.
    var ratings: [String: [String: Rating]] = [:]
    var switches: [String: [String: SmartSwitch]] = [:]
    var switchLog: [String: [SwitchLogEntry]] = [:]
    /// Storage: path → bytes.
    var objects: [String: Data] = [:]
    var geocoder: [String: GeocoderEntry] = [:]
    var weather: [String: Double] = [:]
    /// openHAB: item → state.
    var items: [String: String] = [:]
    var down: Set<ExternalService> = []

    var nextID = 0
    var failure: AppError?
    var uploadFailure: AppError?
    var conversationWatchers: [String: [UUID: AsyncThrowingStream<[Conversation], any Error>.Continuation]] = [:]
    var messageWatchers: [String: [UUID: AsyncThrowingStream<[Message], any Error>.Continuation]] = [:]

    /// A world holding `fixture` (JSON, see above); `clock` tells the time (inject one to end stays and pass days).
    ///
    /// Throws ``AppError/invalidInput(_:)`` when the fixture does not decode.
    public init(fixture: Data, clock: @escaping @Sendable () -> Date = { Date() }) throws(AppError) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        let data: Fixture
        do {
            data = try decoder.decode(Fixture.self, from: fixture)
        } catch {
            throw .invalidInput("The fixture does not decode: \(error)")
        }
        self.clock = clock
        accounts = data.accounts ?? [:]
        couches = Self.keyed(data.couches, \.id)
        reservations = Self.keyed(data.reservations, \.id)
        for reservation in reservations.values {
            userReservations[reservation.guestId, default: []].insert(reservation.id)
            userReservations[reservation.hostId, default: []].insert(reservation.id)
            guard reservation.status == .confirmed else { continue }
            for night in reservation.stay.nights { reservedNights[reservation.couchId, default: [:]][night] = reservation.id }
        }
        conversations = Self.keyed(data.conversations, \.id)
        for conversation in conversations.values {
            for member in conversation.members { userConversations[member, default: []].insert(conversation.id) }
        }
        for (conversationID, list) in data.messages ?? [:] {
            messages[conversationID] = Self.keyed(list, \.id).values.sorted(by: Message.oldestFirst)
        }
        for (couchID, list) in data.ratings ?? [:] { ratings[couchID] = Self.keyed(list, \.id) }
        for (couchID, list) in data.switches ?? [:] { switches[couchID] = Self.keyed(list, \.id) }
        for (couchID, list) in data.switchLog ?? [:] { switchLog[couchID] = Array(Self.keyed(list, \.id).values) }
        for (address, entry) in data.geocoder ?? [:] { geocoder[Self.normalized(address)] = entry }
        weather = data.weather ?? [:]
        items = data.openHAB ?? [:]
    }

    /// The repositories a phone named `device` uses; phones with different names have their own sessions.
    public nonisolated func repositories(device: String = "phone") -> Repositories {
        Repositories(
            session: InMemorySession(world: self, device: device), couches: InMemoryCouches(world: self, device: device),
            photos: InMemoryPhotos(world: self, device: device), geocoder: InMemoryGeocoder(world: self, device: device),
            reservations: InMemoryReservations(world: self, device: device),
            conversations: InMemoryConversations(world: self, device: device), ratings: InMemoryRatings(world: self, device: device),
            smartHome: InMemorySmartHome(world: self, device: device))
    }

    /// The next call of any repository fails with `error` (offline, denied, …).
    public func failNextWith(_ error: AppError) { failure = error }

    /// The next photo upload fails with `error` (a dropped connection mid-upload, say); other calls go through.
    public func failNextPhotoUpload(with error: AppError) { uploadFailure = error }

    /// Takes an outside service down (`available: false`) or brings it back.
    public func setAvailable(_ service: ExternalService, _ available: Bool) {
        if available { down.remove(service) } else { down.insert(service) }
    }

    /// Sets the temperature the weather service reports for `city`.
    public func setTemperature(_ celsius: Double, in city: String) { weather[city] = celsius }

    /// The state of an openHAB item, as openHAB holds it.
    public func openHABState(of item: String) -> String? { items[item] }

    /// The bytes stored at a storage path.
    public func storedObject(at path: String) -> Data? { objects[path] }

    /// The reservation holding each reserved night of a couch (`/reservedNights/{couchId}`), as stored.
    public func nightHolders(of couchID: String) -> [Day: String] { reservedNights[couchID] ?? [:] }

    /// A conversation's messages as stored, for checks that bypass the rules.
    public func storedMessages(in conversationID: String) -> [Message] { messages[conversationID] ?? [] }

    // MARK: Shared

    static func keyed<T>(_ values: [String: T]?, _ id: WritableKeyPath<T, String>) -> [String: T] {
        var result: [String: T] = [:]
        for (key, value) in values ?? [:] {
            var value = value
            value[keyPath: id] = key
            result[key] = value
        }
        return result
    }

    static func normalized(_ address: String) -> String { address.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() }

    /// An id a client sends, which becomes a path segment: a database key of 1–128 bytes.
    static func isID(_ text: String) -> Bool { text.utf8.count <= 128 && isKey(text) }

    func checkFailure() throws(AppError) {
        if let failure {
            self.failure = nil
            throw failure
        }
    }

    func now() -> Date { clock() }

    /// A new id: `prefix` and a counter, so ids sort in the order they were made.
    func newID(_ prefix: String) -> String {
        nextID += 1
        let digits = String(nextID)
        return prefix + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    func signedIn(_ device: String) throws(AppError) -> String {
        guard let uid = sessions[device] else { throw .notSignedIn }
        return uid
    }

    /// A read the rules allow to any signed-in user; returns the uid.
    @discardableResult
    func readable(_ device: String) throws(AppError) -> String {
        try checkFailure()
        guard let uid = sessions[device] else { throw .permissionDenied }
        return uid
    }

    /// The uid of a signed-in host of `couchID` (the rules of `/switches` and `/switchLog`).
    func host(of couchID: String, _ device: String) throws(AppError) -> String {
        let uid = try readable(device)
        guard couches[couchID]?.hostId == uid else { throw .permissionDenied }
        return uid
    }

    // MARK: Accounts

    func signUp(_ device: String, email: String, password: String) throws(AppError) -> String {
        try checkFailure()
        let email = Self.normalized(email)
        guard email.split(separator: "@").count == 2 else { throw .invalidInput("The email address is badly formatted.") }
        guard password.count >= 6 else { throw .invalidInput("The password must be 6 characters long or more.") }
        guard !accounts.values.contains(where: { $0.email == email }) else { throw .emailInUse }
        let uid = newID("u")
        accounts[uid] = Account(email: email, password: password)
        sessions[device] = uid
        return uid
    }

    func signIn(_ device: String, email: String, password: String) throws(AppError) -> String {
        try checkFailure()
        let email = Self.normalized(email)
        guard let uid = accounts.first(where: { $0.value.email == email && $0.value.password == password })?.key else { throw .wrongCredentials }
        sessions[device] = uid
        return uid
    }

    func signOut(_ device: String) { sessions[device] = nil }
}
