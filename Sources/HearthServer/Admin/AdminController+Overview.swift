import Foundation
import HearthCore
import HearthDatabase
import HearthFiles
import HearthStorage
import Hummingbird

extension AdminController {
    /// `GET /.hearth/overview`: the server's load and sizes, for the console's overview.
    ///
    /// `{"connections","listeners","requestsPerSecond","writesPerSecond","databaseBytes","storageBytes",
    /// "namespaces":[{"name","bytes"}],"history":[{"t","requests","writes","connections"}]}`:
    /// - `connections`: realtime (WebSocket) connections open now; `listeners`: database listeners (realtime and SSE).
    /// - `requestsPerSecond`, `writesPerSecond`: over about the last 10 seconds. Writes are database commits that
    ///   changed something, from REST, realtime and functions alike (counted per process: servers sharing a process
    ///   count each other's).
    /// - `databaseBytes`: the sum of `namespaces[].bytes`, each namespace's files (SQLite) or rows (PostgreSQL);
    ///   `storageBytes`: the stored files on disk, null without storage. Sizes are measured at most every 10 seconds.
    /// - `history`: the last hour in 10-second buckets, oldest first: `t` the bucket's start (milliseconds since
    ///   1970), `requests` and `writes` counted in it, `connections` the most seen in it. It covers the time since the
    ///   server started.
    func overview(_ request: Request) async throws -> Response {
        guard request.method == .get else { throw AdminError(.methodNotAllowed, "\(request.method) is not allowed here") }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        metrics.sample(now: now)
        let sizes = try await measuredSizes(now: now)
        let rates = metrics.rates()
        let namespaces: [JSONValue] = sizes.namespaces.sorted { $0.key < $1.key }.map {
            .object([JSONMember("name", .string($0.key)), JSONMember("bytes", .int($0.value))])
        }
        let history: [JSONValue] = metrics.history.map {
            .object([
                JSONMember("t", .int($0.t)), JSONMember("requests", .int(Int64($0.requests))), JSONMember("writes", .int(Int64($0.writes))),
                JSONMember("connections", .int(Int64($0.connections))),
            ])
        }
        return ConsoleController.json(.object([
            JSONMember("connections", .int(Int64(metrics.connections()))), JSONMember("listeners", .int(Int64(metrics.listeners()))),
            JSONMember("requestsPerSecond", .double(Self.rounded(rates.requests))),
            JSONMember("writesPerSecond", .double(Self.rounded(rates.writes))),
            JSONMember("databaseBytes", .int(sizes.namespaces.values.reduce(0, +))),
            JSONMember("storageBytes", sizes.storage.map { .int($0) } ?? .null),
            JSONMember("namespaces", .array(namespaces)), JSONMember("history", .array(history)),
        ]))
    }

    /// Two decimals are plenty for a rate.
    private static func rounded(_ x: Double) -> Double { (x * 100).rounded() / 100 }

    /// The stores' sizes, measured again when the cached ones are 10 seconds old.
    private func measuredSizes(now: Int64) async throws -> SizeCache.Entry {
        if let fresh = metrics.sizes.fresh(now: now, maxAge: 10_000) { return fresh }
        var namespaces = try await database.registry.namespaceSizes()
        // A backend that cannot measure still lists its namespaces.
        for name in database.registry.names where namespaces[name] == nil { namespaces[name] = 0 }
        var storageBytes: Int64?
        if let blobs = storage?.service.blobs as? LocalDiskBlobStore {
            let folder = blobs.folder
            storageBytes = await Task.detached { Self.folderBytes(folder) }.value
        }
        let entry = SizeCache.Entry(at: now, namespaces: namespaces, storage: storageBytes)
        metrics.sizes.store(entry)
        return entry
    }

    /// The bytes of every regular file under `folder` (0 when it does not exist).
    private static func folderBytes(_ folder: String) -> Int64 {
        guard let walker = FileManager.default.enumerator(
            at: URL(fileURLWithPath: folder), includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey], options: [])
        else { return 0 }
        var total: Int64 = 0
        for case let url as URL in walker {
            guard let values = try? url.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey]), values.isRegularFile == true else { continue }
            total += Int64(values.fileSize ?? 0)
        }
        return total
    }
}
