/// A committed blob: its id and the digests of its bytes.
public struct BlobInfo: Sendable, Hashable {
    /// The new blob's id, to record in the object-metadata table.
    public var id: BlobID
    /// Size, MD5 and CRC-32C of its bytes.
    public var digests: BlobDigests

    /// A blob with these digests (for other backends).
    public init(id: BlobID, digests: BlobDigests) {
        self.id = id
        self.digests = digests
    }
}
