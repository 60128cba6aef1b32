import Foundation
import HearthCore
import HearthWire

/// Bounds of what a database keeps on disk.
struct PersistenceLimits: Sendable, Hashable {
    /// The cache file's size cap. Past it only data under active listens is kept; if that is
    /// still too big, nothing is cached.
    var maxCacheBytes = 10 * 1024 * 1024
    /// At most this many writes wait for the server; more throw `writeQueueFull`.
    var maxPendingWrites = 10_000
    /// At most this many bytes of JSON wait for the server; more throw `writeQueueFull`.
    var maxPendingWriteBytes = 16 * 1024 * 1024
}

/// The on-disk cache and the durable queue of pending writes.
///
/// Two files in the database's directory, each replaced atomically (write to a temporary file,
/// then rename) and versioned so a future format can migrate or ignore them:
/// - `writes.json` — `{"format":"hearth.database.writes","version":1,"nextId":N,"writes":[W…]}` where
///   `W` is `{"id":7,"path":"/a/b","set":<json>}` or `{"id":8,"path":"/a","merge":{"x/y":<json>,…}}`,
///   the raw JSON as sent (server value placeholders unresolved), in write-id order.
/// - `cache.json` — `{"format":"hearth.database.cache","version":1,"tree":<export json>,
///   "complete":["/a",…],"queries":[{"path":"/x","query":<wire query>,"data":<export json>},…]}`:
///   the confirmed server data, the paths where it is complete, and the results of filtered queries.
/// A file with another format or version is moved aside (`<name>.unknown`) and ignored, so a newer
/// app's queue is never overwritten by an older one. Bounds: see ``PersistenceLimits``.
struct PersistenceStore: Sendable {
    static let version: Int64 = 1

    let directory: URL
    let limits: PersistenceLimits

    var writesURL: URL { directory.appendingPathComponent("writes.json") }
    var cacheURL: URL { directory.appendingPathComponent("cache.json") }

    struct StoredWrite: Sendable {
        var id: Int64
        var path: Path
        var operation: PendingWrite.Operation
    }

    struct StoredCache: Sendable {
        var tree: Node = .empty
        var complete = PathSet()
        var queries: [ListenSpec: Node] = [:]
    }

    private func read(_ url: URL, format: String) -> JSONValue? {
        guard let data = try? Data(contentsOf: url), let json = try? JSONValue.parse(Array(data)) else { return nil }
        guard json["format"]?.stringValue == format, json["version"] == .int(PersistenceStore.version) else {
            // Keep what we cannot read instead of silently overwriting it.
            let aside = url.appendingPathExtension("unknown")
            try? FileManager.default.removeItem(at: aside)
            try? FileManager.default.moveItem(at: url, to: aside)
            return nil
        }
        return json
    }

    private func write(_ json: JSONValue, to url: URL) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(json.jsonBytes).write(to: url, options: .atomic)
        } catch {
            // A cache that cannot be written is only a cache; a write queue that cannot be written
            // means writes are not durable across restarts, but they are still sent.
        }
    }

    func loadWrites() -> (nextID: Int64, writes: [StoredWrite]) {
        guard let json = read(writesURL, format: "hearth.database.writes") else { return (1, []) }
        var writes: [StoredWrite] = []
        if case .array(let items)? = json["writes"] {
            for item in items {
                guard case .int(let id)? = item["id"], let pathText = item["path"]?.stringValue,
                    let path = try? Path.validated(pathText)
                else { continue }
                if let data = item["set"] {
                    writes.append(StoredWrite(id: id, path: path, operation: .set(data)))
                } else if case .object(let members)? = item["merge"] {
                    writes.append(StoredWrite(id: id, path: path, operation: .merge(members)))
                }
            }
        }
        var next: Int64 = 1
        if case .int(let n)? = json["nextId"] { next = n }
        next = max(next, (writes.map(\.id).max() ?? 0) + 1)
        return (next, writes.sorted { $0.id < $1.id })
    }

    func saveWrites(_ writes: [PendingWrite], nextID: Int64) {
        var items: [JSONValue] = []
        for w in writes where w.durable && !w.acknowledged {
            var members = [JSONMember("id", .int(w.id)), JSONMember("path", .string(w.path.description))]
            switch w.operation {
            case .set(let data): members.append(JSONMember("set", data))
            case .merge(let data): members.append(JSONMember("merge", .object(data)))
            }
            items.append(.object(members))
        }
        write(
            .object([
                JSONMember("format", .string("hearth.database.writes")), JSONMember("version", .int(PersistenceStore.version)),
                JSONMember("nextId", .int(nextID)), JSONMember("writes", .array(items)),
            ]), to: writesURL)
    }

    func loadCache() -> StoredCache {
        guard let json = read(cacheURL, format: "hearth.database.cache") else { return StoredCache() }
        var cache = StoredCache()
        if let tree = json["tree"], let node = try? Node(json: tree) { cache.tree = node }
        if case .array(let paths)? = json["complete"] {
            for p in paths {
                if let text = p.stringValue, let path = try? Path.validated(text) { cache.complete.insert(path) }
            }
        }
        if case .array(let queries)? = json["queries"] {
            for q in queries {
                guard let text = q["path"]?.stringValue, let path = try? Path.validated(text), let wire = q["query"],
                    let query = try? Query(wireObject: wire), let data = q["data"], let node = try? Node(json: data)
                else { continue }
                cache.queries[ListenSpec(path: path, query: query)] = node
            }
        }
        return cache
    }

    /// Saves the cache, shrinking it to `activeRoots` (then to nothing) when it exceeds the bound.
    func saveCache(_ cache: StoredCache, activeRoots: [Path]) {
        var json = encode(cache)
        if json.jsonBytes.count > limits.maxCacheBytes {
            var smaller = StoredCache()
            smaller.complete = cache.complete.restricted(to: activeRoots)
            for p in smaller.complete.paths { smaller.tree = smaller.tree.setting(p, to: cache.tree.child(at: p)) }
            json = encode(smaller)
            if json.jsonBytes.count > limits.maxCacheBytes { json = encode(StoredCache()) }
        }
        write(json, to: cacheURL)
    }

    private func encode(_ cache: StoredCache) -> JSONValue {
        let queries: [JSONValue] = cache.queries.map { spec, node in
            .object([
                JSONMember("path", .string(spec.path.description)),
                JSONMember("query", spec.query?.wireObject ?? .object([])),
                JSONMember("data", DatabaseCoding.exportJSON(node)),
            ])
        }
        return .object([
            JSONMember("format", .string("hearth.database.cache")), JSONMember("version", .int(PersistenceStore.version)),
            JSONMember("tree", DatabaseCoding.exportJSON(cache.tree)),
            JSONMember("complete", .array(cache.complete.paths.map { .string($0.description) })),
            JSONMember("queries", .array(queries)),
        ])
    }
}
