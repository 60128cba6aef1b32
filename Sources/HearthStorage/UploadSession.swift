import Foundation
import HearthCore
import HearthStore

/// A resumable upload in progress, kept in the catalog so it survives a restart.
package struct UploadSession: Codable, Sendable {
    package var bucket: String
    package var name: String
    /// The metadata JSON the client sent when starting (re-parsed at finalize).
    package var metadata: String
    /// `true` for Firebase v0 sessions (download tokens, rules), `false` for Cloud Storage.
    package var firebase: Bool
    package var contentType: String?
    /// Declared total size, when the client said.
    package var total: Int64?
    /// Set once finalized: the object's generation (a repeated finalize answers the same).
    package var finishedGeneration: Int64?
    /// The object as finalizing stored it: a repeated finalize or a query answers with it even
    /// after the object was replaced or deleted, as Cloud Storage does. Absent in sessions
    /// finalized by older versions.
    package var finishedObject: ObjectRecord?
    /// `ifGenerationMatch` & co. from the request that started the session, checked at finalize.
    package var preconditions: [String: String]?
    /// Set when finalizing was refused after the bytes were sealed (a checksum mismatch): a
    /// repeated finalize answers the same.
    package var failure: Failure?

    /// Who started a Firebase session: only they (or the admin) may send its chunks, ask about
    /// it, finalize or cancel it. Absent in sessions started by older versions (not checked).
    package var starter: Starter?

    package struct Failure: Codable, Sendable {
        /// The HTTP status, as sessions written by older versions kept it (read by nothing now: the
        /// reason names the error, and each API's edge maps it to its status).
        package var status: Int?
        package var message: String
        package var reason: String

        /// The failure `error` left behind.
        package init(_ error: StorageError) {
            self.message = error.message
            self.reason = error.reason
        }
    }
    package var created: Int64

    /// A session just started: nothing finished, failed or recorded about its starter yet.
    package init(
        bucket: String, name: String, metadata: String, firebase: Bool, contentType: String?, total: Int64?,
        preconditions: [String: String]? = nil, created: Int64
    ) {
        self.bucket = bucket
        self.name = name
        self.metadata = metadata
        self.firebase = firebase
        self.contentType = contentType
        self.total = total
        self.preconditions = preconditions
        self.created = created
    }

    package func fields() throws -> ObjectFields {
        var fields = try ObjectFields(json: try JSONValue.parse(metadata))
        if fields.contentType == nil, let contentType { fields.contentType = .some(contentType) }
        return fields
    }
}
