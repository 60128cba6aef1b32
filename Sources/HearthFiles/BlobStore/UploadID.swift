/// The opaque name of a resumable upload session (same shape as ``BlobID``: 32 hex digits).
///
/// The HTTP layer may put it in session URLs (`upload_id=`); it is validated on parse, so it can
/// never name a file outside the uploads folder.
public struct UploadID: Sendable, Hashable, Comparable, LosslessStringConvertible {
    /// The 32 hexadecimal digits.
    public let rawValue: String

    /// Parses an id from a request; nil unless it is exactly 32 lowercase hexadecimal digits.
    public init?(_ description: String) {
        guard BlobID.isValid(description) else { return nil }
        rawValue = description
    }

    /// A new random id.
    public static func random() -> UploadID {
        UploadID(BlobID.random().rawValue)!
    }

    /// A new id drawn from `generator`.
    public static func random(using generator: inout some RandomNumberGenerator) -> UploadID {
        UploadID(BlobID.random(using: &generator).rawValue)!
    }

    /// The 32 lowercase hex digits.
    public var description: String { rawValue }

    /// The blob a finalized session becomes: the same 32 digits, which makes finalize idempotent.
    public var blobID: BlobID { BlobID(rawValue)! }

    /// Orders ids by their digits.
    public static func < (lhs: UploadID, rhs: UploadID) -> Bool { lhs.rawValue < rhs.rawValue }
}
