public import Foundation

/// Where an app's Hearth server is and which project it uses.
///
/// ```swift
/// let options = HearthOptions(serverURL: URL(string: "http://127.0.0.1:9000")!, projectID: "demo", apiKey: "key")
/// ```
public struct HearthOptions: Sendable, Hashable {
    /// The server's base URL (`http://host:port` or `https://…`).
    public var serverURL: URL
    /// The project id: the audience of its ID tokens, and the default for ``namespace`` and ``bucket``
    /// (Firebase's `FirebaseOptions.projectID`).
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

    /// Options for a project on `serverURL`; only the URL and the project id are required.
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

    /// The database namespace requests use: ``databaseNamespace``, or ``projectID`` when that is nil.
    public var namespace: String { databaseNamespace ?? projectID }
    /// The storage bucket references use by default: ``storageBucket``, or `<projectID>.appspot.com` when that is nil.
    public var bucket: String { storageBucket ?? "\(projectID).appspot.com" }
}
