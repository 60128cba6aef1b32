import HearthCore
import HearthStore

extension ObjectRecord {
    /// The object's ETag as both APIs and the rules show it: `"md5/generation/metageneration"`.
    package var etag: String { "\"\(md5Hash)/\(generation)/\(metageneration)\"" }

    /// Custom metadata as a JSON object with its keys sorted.
    package static func metadataJSON(_ entries: [String: String]) -> JSONValue {
        .object(entries.keys.sorted().map { JSONMember($0, .string(entries[$0]!)) })
    }
}
