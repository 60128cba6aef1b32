/// Which upload sessions are in use, and the running digests of recently used ones.
///
/// An actor: it owns the in-process lock per session (one append or finalize at a time) and a
/// bounded cache, for the life of the store. Losing the cache (restart, eviction) only costs a
/// re-read of the session file.
actor UploadSessions {
    private let capacity: Int
    private var busy: Set<UploadID> = []
    private var digests: [UploadID: BlobDigester] = [:]

    init(capacity: Int) {
        self.capacity = max(capacity, 0)
    }

    /// Locks a session for one operation and hands over its cached digests, if any.
    func checkOut(_ id: UploadID) throws -> BlobDigester? {
        guard busy.insert(id).inserted else {
            throw BlobStoreError(.uploadBusy, "another request is using this upload session")
        }
        return digests.removeValue(forKey: id)
    }

    /// Unlocks a session, keeping `digester` if it matches the session file's bytes.
    func checkIn(_ id: UploadID, digester: BlobDigester?) {
        busy.remove(id)
        guard let digester, capacity > 0 else { return }
        if digests.count >= capacity, let victim = digests.keys.first {
            digests[victim] = nil
        }
        digests[id] = digester
    }

    /// Drops the cached digests of a session that ended.
    func forget(_ id: UploadID) {
        digests[id] = nil
    }

    /// Sessions locked right now.
    var busySessions: Set<UploadID> { busy }
}
