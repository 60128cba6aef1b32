import Foundation
import Hearth
import HearthCore

extension Repositories {
    /// The repositories over a Hearth server: its accounts and realtime database (the app needs no callable).
    ///
    /// ```swift
    /// let app = HearthApp(options: HearthOptions(serverURL: url, projectID: "gifts"))
    /// let useCases = UseCases(.hearth(app))
    /// ```
    ///
    /// The queries need the indexes of Examples/Gifts/rules.json (`/users` on `searchKey`, `/topGifts` on `count`),
    /// and the server's triggers (Examples/Gifts/README.md) keep `searchKey`, the `reserved` flags, `/userReservations`
    /// and `/topGifts`.
    public static func hearth(_ app: HearthApp) -> Repositories {
        let (auth, database) = (app.auth, app.database)
        return Repositories(
            session: HearthSession(auth: auth, database: database), people: HearthPeople(database: database),
            wishes: HearthWishes(auth: auth, database: database), reservations: HearthReservations(auth: auth, database: database),
            topGifts: HearthTopGifts(database: database))
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

/// A stream that fails at once with `error` (an id that cannot be a key, say).
func failing<T: Sendable>(_ error: AppError) -> AsyncThrowingStream<T, any Error> {
    AsyncThrowingStream { $0.finish(throwing: error) }
}

/// The children of a snapshot decoded as `T`, each given its key.
func decodedChildren<T: Decodable>(_ snapshot: DataSnapshot, _ type: T.Type, id: WritableKeyPath<T, String>) throws -> [T] {
    try snapshot.children.map { child in
        var value = try child.value(as: T.self)
        value[keyPath: id] = child.key ?? ""
        return value
    }
}

struct HearthSession: SessionRepository {
    let auth: Auth
    let database: Database

    func currentUserID() async -> String? { auth.currentUser?.uid }

    func signUp(email: String, password: String, firstName: String, lastName: String) async throws(AppError) -> String {
        let uid = try await mapped { try await auth.signUp(email: email, password: password).uid }
        let profile = UserProfile(firstName: firstName, lastName: lastName)
        try await mapped { try await database.reference("users").child(uid).setValue(profile) }
        return uid
    }

    func signIn(email: String, password: String) async throws(AppError) -> String {
        try await mapped { try await auth.signIn(email: email, password: password).uid }
    }

    func signOut() async { try? auth.signOut() }
}

struct HearthPeople: PeopleRepository {
    let database: Database

    func search(prefix: String, limit: Int) async throws(AppError) -> [Person] {
        let key = SearchKey.normalize(prefix)
        guard !key.isEmpty, limit > 0 else { return [] }
        return try await mapped {
            let query = database.reference("users").queryOrdered(byChild: "searchKey").queryStarting(withPrefix: key).queryLimited(toFirst: limit)
            return try await query.getSnapshot().children.map { child in Person(id: child.key ?? "", profile: try child.value(as: UserProfile.self)) }
        }
    }

    func person(_ uid: String) async throws(AppError) -> Person? {
        guard isKey(uid) else { return nil }
        return try await mapped {
            let snapshot = try await database.reference("users").child(uid).getSnapshot()
            return snapshot.exists ? Person(id: uid, profile: try snapshot.value(as: UserProfile.self)) : nil
        }
    }
}
