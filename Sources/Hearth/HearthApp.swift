import Foundation

/// One Hearth project as an app sees it: its auth, its database and its storage.
///
/// ```swift
/// let app = HearthApp(options: HearthOptions(serverURL: URL(string: "http://127.0.0.1:9000")!, projectID: "demo"))
/// try await app.auth.signInAnonymously()
/// try await app.database.reference("scores").childByAutoId().setValue(42)
/// ```
///
/// Several apps may run side by side (different servers or projects); give each its own `name`
/// so their persisted sessions, caches and write queues stay apart.
public final class HearthApp: Sendable {
    /// The name given to ``init(name:options:)`` (Firebase's `FirebaseApp.name`); it names this app's folder in
    /// ``HearthOptions/persistenceDirectory``.
    public let name: String
    /// The options as given; the services below share them.
    public let options: HearthOptions
    /// This app's accounts and session (Firebase's `Auth.auth(app:)`). The database and storage use its ID token.
    public let auth: Auth
    /// This app's realtime database (Firebase's `Database.database(app:)`), connected with ``auth``'s current ID
    /// token, which is passed on after every sign-in, sign-out and refresh.
    public let database: Database
    /// This app's files in ``HearthOptions/bucket`` (Firebase's `Storage.storage(app:)`), requested as ``auth``'s
    /// signed-in user.
    public let storage: Storage
    /// Callable server functions, called as the signed-in user.
    public let functions: CloudFunctions
    /// Push notifications: this device's token and topics, registered for the signed-in user (Firebase's
    /// `Messaging.messaging()`).
    public let messaging: Messaging
    private let connection: PersistentConnection
    private let tokenRelay: Task<Void, Never>

    /// - Parameters:
    ///   - name: separates this app's files inside `options.persistenceDirectory`.
    ///   - options: where the server is, which project, and where to persist.
    public init(name: String = "default", options: HearthOptions) {
        self.name = name
        var scoped = options
        let folder = options.persistenceDirectory?.appendingPathComponent(Self.folderName(name), isDirectory: true)
        scoped.persistenceDirectory = folder.map { $0.appendingPathComponent("auth", isDirectory: true) }
        self.options = options
        let auth = Auth(options: scoped)
        self.auth = auth
        let connection = PersistentConnection(
            options: options, authToken: nil, tokenSource: { auth.currentIDToken },
            tokenRefresher: { try? await auth.idToken(forceRefresh: true) })
        self.connection = connection
        self.database = Database(
            options: options, connection: connection, persistence: folder.map { $0.appendingPathComponent("database", isDirectory: true) })
        self.storage = Storage(options: options, auth: auth)
        self.functions = CloudFunctions(options: options, auth: auth)
        self.messaging = Messaging(options: options, auth: auth)
        // The connection always uses the current ID token: changes (sign-in, sign-out, refresh)
        // are passed on, and a check every minute refreshes the token before it expires.
        tokenRelay = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await token in auth.tokenChanges { await connection.setAuthToken(token) }
                }
                group.addTask {
                    while !Task.isCancelled {
                        _ = try? await auth.idToken()
                        try? await Task.sleep(for: .seconds(60))
                    }
                }
            }
        }
    }

    deinit { tokenRelay.cancel() }

    /// Closes the realtime connection (pending writes stay queued on disk when persisted).
    public func close() async {
        tokenRelay.cancel()
        await database.close()
    }

    /// A file-system-safe folder name for an app name.
    static func folderName(_ name: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
        let cleaned = String(name.map { allowed.contains($0) ? $0 : "_" })
        return cleaned.isEmpty ? "default" : cleaned
    }
}
