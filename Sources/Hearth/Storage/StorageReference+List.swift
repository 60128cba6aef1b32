import Foundation

/// One page of a folder listing.
public struct StorageListResult: Sendable, Hashable {
    /// The objects directly in the folder, sorted by name.
    public var items: [StorageReference]
    /// The sub-folders (names that continue with a `/`).
    public var prefixes: [StorageReference]
    /// Pass to ``StorageReference/list(maxResults:pageToken:)`` for the next page; nil on the last.
    public var pageToken: String?

    /// A page, for previews and tests; ``StorageReference/list(maxResults:pageToken:)`` makes its own.
    public init(items: [StorageReference], prefixes: [StorageReference], pageToken: String?) {
        self.items = items
        self.prefixes = prefixes
        self.pageToken = pageToken
    }
}

extension StorageReference {
    /// One page of the objects and folders directly below this path (at most `maxResults`,
    /// 1–1000).
    public func list(maxResults: Int = 1000, pageToken: String? = nil) async throws -> StorageListResult {
        guard (1...1000).contains(maxResults) else {
            throw StorageError(code: .invalidArgument, message: "maxResults must be between 1 and 1000.")
        }
        let prefix = fullPath.isEmpty ? "" : fullPath + "/"
        var query = "prefix=\(URLEncoding.component(prefix))&delimiter=%2F&maxResults=\(maxResults)"
        if let pageToken { query += "&pageToken=\(URLEncoding.component(pageToken))" }
        let answer = try await storage.send("GET", storage.objectsURL(bucket: bucket) + "?" + query)
        struct Wire: Decodable {
            struct Item: Decodable {
                var name: String
                var bucket: String?
            }

            var prefixes: [String]?
            var items: [Item]?
            var nextPageToken: String?
        }
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: answer.body)
        } catch {
            throw StorageError.invalidResponse(status: answer.status)
        }
        return StorageListResult(
            items: (wire.items ?? []).map { StorageReference(storage: storage, bucket: $0.bucket ?? bucket, path: $0.name) },
            prefixes: (wire.prefixes ?? []).map { StorageReference(storage: storage, bucket: bucket, path: $0) },
            pageToken: wire.nextPageToken.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// Every object and folder directly below this path, following all pages.
    public func listAll() async throws -> StorageListResult {
        var all = StorageListResult(items: [], prefixes: [], pageToken: nil)
        var token: String?
        repeat {
            let page = try await list(maxResults: 1000, pageToken: token)
            all.items += page.items
            all.prefixes += page.prefixes
            token = page.pageToken
        } while token != nil
        return all
    }
}
