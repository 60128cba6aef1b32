import Synchronization

/// An in-memory ``LinkStore`` for tests and ephemeral servers.
public final class MemoryLinkStore: LinkStore {
    struct DedupeKey: Hashable {
        var longLink: String
        var option: LinkSuffixOption
        var inviter: String?
    }

    struct State {
        var bySuffix: [String: LinkRecord] = [:]
        var byLongLink: [DedupeKey: String] = [:]
        var counts: [LinkCounterKey: Int64] = [:]
    }

    private let state = Mutex(State())

    /// An empty store.
    public init() {}

    /// The link with this suffix (exact match).
    public func link(suffix: String) async throws -> LinkRecord? { state.withLock { $0.bySuffix[suffix] } }

    /// The link stored for this long link, option and inviter.
    public func link(longLink: String, option: LinkSuffixOption, inviter: String?) async throws -> LinkRecord? {
        state.withLock { s in
            s.byLongLink[DedupeKey(longLink: longLink, option: option, inviter: inviter)].flatMap { s.bySuffix[$0] }
        }
    }

    /// Stores the link unless the same one exists (`.duplicate`, checked first) or the suffix is taken.
    public func insert(_ record: LinkRecord) async throws -> LinkInsertResult {
        state.withLock { s in
            let key = DedupeKey(longLink: record.longLink, option: record.option, inviter: record.inviter)
            if let existing = s.byLongLink[key], let found = s.bySuffix[existing] { return .duplicate(found) }
            if s.bySuffix[record.suffix] != nil { return .suffixTaken }
            s.bySuffix[record.suffix] = record
            s.byLongLink[key] = record.suffix
            return .inserted
        }
    }

    /// Links in UTF-8 byte order of their suffixes, after `suffix`, at most `limit` (sorts every link: fine for tests).
    public func links(after suffix: String?, limit: Int) async throws -> [LinkRecord] {
        state.withLock { s in
            let sorted = s.bySuffix.values.sorted { $0.suffix.utf8.lexicographicallyPrecedes($1.suffix.utf8) }
            let start = suffix.map { after in sorted.firstIndex { after.utf8.lexicographicallyPrecedes($0.suffix.utf8) } ?? sorted.endIndex } ?? 0
            return Array(sorted[start...].prefix(max(0, limit)))
        }
    }

    /// Adds each increment to its cell.
    public func addCounts(_ increments: [LinkCounterKey: Int64]) async throws {
        state.withLock { s in
            for (key, n) in increments { s.counts[key, default: 0] += n }
        }
    }

    /// Non-zero cells of `suffix` from day `fromDay` on, by day, then platform and event names.
    public func counts(suffix: String, fromDay: Int64) async throws -> [LinkCount] {
        state.withLock { s in
            s.counts.filter { $0.key.suffix == suffix && $0.key.day >= fromDay && $0.value != 0 }
                .map { LinkCount(key: $0.key, count: $0.value) }
                .sorted { ($0.key.day, $0.key.platform.rawValue, $0.key.event.rawValue) < ($1.key.day, $1.key.platform.rawValue, $1.key.event.rawValue) }
        }
    }

    /// Removes the link, its dedupe entry and its counters; false when no link has this suffix.
    public func delete(suffix: String) async throws -> Bool {
        state.withLock { s in
            guard let record = s.bySuffix.removeValue(forKey: suffix) else { return false }
            s.byLongLink[DedupeKey(longLink: record.longLink, option: record.option, inviter: record.inviter)] = nil
            s.counts = s.counts.filter { $0.key.suffix != suffix }
            return true
        }
    }

    /// Does nothing: there is nothing to release.
    public func close() async throws {}
}
