import Foundation
import Hearth
import HearthCore
import HearthGeo

extension Repositories {
    /// The repositories over a Hearth server: its accounts, realtime database, storage and callable functions.
    ///
    /// ```swift
    /// let app = HearthApp(options: HearthOptions(serverURL: url, projectID: "stays"))
    /// let useCases = UseCases(.hearth(app), notifier: notifier)
    /// ```
    ///
    /// The queries need the indexes of Examples/Stays/rules.json (`/couches` on `city` and `hostId`,
    /// `/couchLocations` on `g`, `/messages/$id` and `/switchLog/$id` on `at`). `photoTimeout` is how long an upload
    /// waits for the storage trigger to index the photo.
    public static func hearth(_ app: HearthApp, photoTimeout: Duration = .seconds(60)) -> Repositories {
        let database = app.database
        return Repositories(
            session: HearthSession(auth: app.auth), couches: HearthCouches(auth: app.auth, database: database),
            photos: HearthPhotos(auth: app.auth, database: database, storage: app.storage, timeout: photoTimeout),
            geocoder: HearthGeocoder(functions: app.functions),
            reservations: HearthReservations(database: database, functions: app.functions),
            conversations: HearthConversations(database: database), ratings: HearthRatings(database: database),
            smartHome: HearthSmartHome(database: database, functions: app.functions))
    }
}

/// Runs `body`, turning any error into an `AppError`.
func mapped<T>(_ body: () async throws -> T) async throws(AppError) -> T {
    do {
        return try await body()
    } catch {
        throw ErrorMapping.app(error)
    }
}

/// Whether `id` can name one child (a client-given id must not reach into another path).
func isKey(_ id: String) -> Bool { (try? Key.validated(id)) != nil }

/// A query's snapshots, each turned into `T`, with errors as `AppError`s; ends when the consumer stops.
func liveValues<T: Sendable>(of query: DatabaseQuery, _ transform: @escaping @Sendable (DataSnapshot) throws -> T)
    -> AsyncThrowingStream<T, any Error>
{
    AsyncThrowingStream { continuation in
        let task = Task {
            do {
                for try await snapshot in query.snapshots() { continuation.yield(try transform(snapshot)) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: ErrorMapping.app(error))
            }
        }
        continuation.onTermination = { _ in task.cancel() }
    }
}

/// The children of a snapshot decoded as `T`, each given its key.
func decodedChildren<T: Decodable>(_ snapshot: DataSnapshot, _ type: T.Type, id: WritableKeyPath<T, String>) throws -> [T] {
    try snapshot.children.map { child in
        var value = try child.value(as: T.self)
        value[keyPath: id] = child.key ?? ""
        return value
    }
}

/// One value at `ref` decoded as `T` with its key; nil when there is none.
func decodedValue<T: Decodable>(_ ref: DatabaseReference, _ type: T.Type, id: WritableKeyPath<T, String>) async throws -> T? {
    let snapshot = try await ref.getSnapshot()
    guard snapshot.exists else { return nil }
    var value = try snapshot.value(as: T.self)
    value[keyPath: id] = ref.key ?? ""
    return value
}

/// Calls `name` with `input` and decodes its result; the function's errors go through `errors`.
func call<Input: Encodable & Sendable, Output: Decodable & Sendable>(
    _ functions: CloudFunctions, _ name: String, _ input: Input, as type: Output.Type, errors: (FunctionsCallError) -> AppError
) async throws(AppError) -> Output {
    do {
        return try await functions.call(name, input, returning: Output.self)
    } catch {
        throw errors(error)
    }
}

struct HearthSession: SessionRepository {
    let auth: Auth

    func currentUserID() async -> String? { auth.currentUser?.uid }

    func signUp(email: String, password: String) async throws(AppError) -> String {
        try await mapped { try await auth.signUp(email: email, password: password).uid }
    }

    func signIn(email: String, password: String) async throws(AppError) -> String {
        try await mapped { try await auth.signIn(email: email, password: password).uid }
    }

    func signOut() async { try? auth.signOut() }
}

struct HearthGeocoder: GeocodingService {
    let functions: CloudFunctions

    func geocode(_ address: String) async throws(AppError) -> Place {
        struct Input: Encodable, Sendable { var address: String }
        struct Answer: Decodable, Sendable {
            var lat: Double
            var lng: Double
            var city: String
        }
        let answer = try await call(functions, "geocode", Input(address: address), as: Answer.self, errors: CallableErrors.geocode)
        return Place(address: address, city: answer.city, location: GeoPoint(latitude: answer.lat, longitude: answer.lng))
    }
}

struct HearthPhotos: PhotoRepository {
    let auth: Auth
    let database: Database
    let storage: Storage
    let timeout: Duration

    func upload(jpeg: Data, toCouch couchID: String) async throws(AppError) -> CouchPhoto {
        guard let uid = auth.currentUser?.uid else { throw .notSignedIn }
        guard isKey(couchID) else { throw .notFound }
        let entry = database.reference("couches").child(couchID).child("photos").childByAutoId()
        let photoID = entry.key ?? UUID().uuidString
        let path = "couches/\(couchID)/\(photoID).jpg"
        // storage.rules: the uploader names themself; the trigger indexes the photo only when that is the host.
        let metadata = StorageMetadata(contentType: "image/jpeg", customMetadata: ["uploader": uid])
        _ = try await mapped { try await storage.reference(path).putData(jpeg, metadata: metadata) }
        let url = try await mapped { try await Self.firstURL(at: entry, within: timeout) }
        guard let url else { throw .photoNotProcessed }
        return CouchPhoto(id: photoID, path: path, url: url)
    }

    /// The `url` the trigger writes at `entry`, or nil when it did not come within `timeout`.
    static func firstURL(at entry: DatabaseReference, within timeout: Duration) async throws -> String? {
        try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask {
                for try await snapshot in entry.child("url").snapshots() {
                    if let url = snapshot.value.stringValue { return url }
                }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }
}

struct HearthReservations: ReservationService {
    let database: Database
    let functions: CloudFunctions

    func reserve(couchID: String, stay: DayRange, guests: Int) async throws(AppError) -> ReservationOutcome {
        struct Input: Encodable, Sendable {
            var couchId: String
            var from: Day
            var to: Day
            var guests: Int
        }
        let input = Input(couchId: couchID, from: stay.from, to: stay.to, guests: guests)
        return try await call(functions, "reserve", input, as: ReservationOutcome.self, errors: CallableErrors.reserve)
    }

    func cancel(reservationID: String) async throws(AppError) {
        struct Input: Encodable, Sendable { var reservationId: String }
        struct Answer: Decodable, Sendable { var cancelled: Bool }
        _ = try await call(functions, "cancelReservation", Input(reservationId: reservationID), as: Answer.self, errors: CallableErrors.cancel)
    }

    func reservation(_ reservationID: String) async throws(AppError) -> Reservation? {
        guard isKey(reservationID) else { return nil }
        return try await mapped { try await decodedValue(database.reference("reservations").child(reservationID), Reservation.self, id: \.id) }
    }

    func reservations(of uid: String) async throws(AppError) -> [Reservation] {
        try await mapped {
            let index = try await database.reference("userReservations").child(uid).getSnapshot()
            var list: [Reservation] = []
            for key in index.children.compactMap(\.key) {
                if let reservation = try await decodedValue(database.reference("reservations").child(key), Reservation.self, id: \.id) {
                    list.append(reservation)
                }
            }
            return list.sorted { ($0.from, $0.id) > ($1.from, $1.id) }
        }
    }

    func reservedNights(of couchID: String) async throws(AppError) -> Set<Day> {
        guard isKey(couchID) else { return [] }
        return try await mapped {
            Set(try await database.reference("reservedNights").child(couchID).getSnapshot().children.compactMap { $0.key.flatMap(Day.init) })
        }
    }
}

struct HearthRatings: RatingRepository {
    let database: Database

    func ratings(of couchID: String) async throws(AppError) -> [Rating] {
        guard isKey(couchID) else { return [] }
        return try await mapped {
            try decodedChildren(try await database.reference("ratings").child(couchID).getSnapshot(), Rating.self, id: \.id)
                .sorted { ($0.at, $0.id) > ($1.at, $1.id) }
        }
    }

    func summary(of couchID: String) async throws(AppError) -> RatingSummary {
        guard isKey(couchID) else { return .empty }
        return try await mapped {
            let snapshot = try await database.reference("ratingSummaries").child(couchID).getSnapshot()
            return snapshot.exists ? try snapshot.value(as: RatingSummary.self) : .empty
        }
    }

    func rate(couchID: String, reservationID: String, stars: Int, text: String?, as uid: String) async throws(AppError) {
        struct Write: Encodable {
            var stars: Int
            var text: String?
            var at : Hearth.ServerValue = .timestamp
            var reservationId: String
        }
        guard isKey(couchID) else { throw .notFound }
        try await mapped {
            try await database.reference("ratings").child(couchID).child(uid)
                .setValue(Write(stars: stars, text: text, reservationId: reservationID))
        }
    }
}
