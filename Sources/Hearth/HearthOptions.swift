public import Foundation

/// Where an app's Hearth server is and which project it uses.
///
/// ```swift
/// let options = HearthOptions(serverURL: URL(string: "http://127.0.0.1:9000")!, projectID: "demo", apiKey: "key")
/// ```
public struct HearthOptions: Sendable, Hashable {
    /// The server's base URL (`http://host:port` or `https://…`).
    public var serverURL: URL
    public var projectID: String
    /// Sent as `key=` with auth requests, as Firebase SDKs do.
    public var apiKey: String
    /// The database namespace (`ns=`); the project id when nil.
    public var databaseNamespace: String?
    /// The storage bucket; `<project>.appspot.com` when nil.
    public var storageBucket: String?
    /// Where the session, the database cache and the queue of pending writes are kept across
    /// launches; nil keeps them in memory only.
    public var persistenceDirectory: URL?

    public init(
        serverURL: URL, projectID: String, apiKey: String = "hearth", databaseNamespace: String? = nil,
        storageBucket: String? = nil, persistenceDirectory: URL? = nil
    ) {
        self.serverURL = serverURL
        self.projectID = projectID
        self.apiKey = apiKey
        self.databaseNamespace = databaseNamespace
        self.storageBucket = storageBucket
        self.persistenceDirectory = persistenceDirectory
    }

    public var namespace: String { databaseNamespace ?? projectID }
    public var bucket: String { storageBucket ?? "\(projectID).appspot.com" }
}
