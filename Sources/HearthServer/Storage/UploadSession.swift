import Foundation
import HearthCore
import HearthStore

/// A resumable upload in progress, kept in the catalog so it survives a restart.
struct UploadSession: Codable, Sendable {
    var bucket: String
    var name: String
    /// The metadata JSON the client sent when starting (re-parsed at finalize).
    var metadata: String
    /// `true` for Firebase v0 sessions (download tokens, rules), `false` for Cloud Storage.
    var firebase: Bool
    var contentType: String?
    /// Declared total size, when the client said.
    var total: Int64?
    /// Set once finalized: the object's generation (a repeated finalize answers the same).
    var finishedGeneration: Int64?
    /// The object as finalizing stored it: a repeated finalize or a query answers with it even
    /// after the object was replaced or deleted, as Cloud Storage does. Absent in sessions
    /// finalized by older versions.
    var finishedObject: ObjectRecord?
    /// `ifGenerationMatch` & co. from the request that started the session, checked at finalize.
    var preconditions: [String: String]?
    /// Set when finalizing was refused after the bytes were sealed (a checksum mismatch): a
    /// repeated finalize answers the same.
    var failure: Failure?

    /// Who started a Firebase session: only they (or the admin) may send its chunks, ask about
    /// it, finalize or cancel it. Absent in sessions started by older versions (not checked).
    var starter: Starter?

    struct Failure: Codable, Sendable {
        var status: Int
        var message: String
        var reason: String
    }
    var created: Int64

    func fields() throws -> ObjectFields {
        var fields = try ObjectFields(json: try JSONValue.parse(metadata))
        if fields.contentType == nil, let contentType { fields.contentType = .some(contentType) }
        return fields
    }
}
