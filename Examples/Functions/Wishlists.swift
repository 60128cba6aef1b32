import HearthCore
import HearthFunctions
import HearthStore
import Logging

/// The gift wishlist app: `/topGifts/{gift}` counts how many wishlists hold each gift, so the
/// ranking is one ordered query (`orderByChild("count")`, `limitToLast(10)`).
enum Wishlists {
    static func register(in functions: inout Functions) throws {
        try functions.onValueWritten("/wishlists/{owner}/{wish}") { event, context in
            let old = event.before["title"]?.stringValue.flatMap(giftKey)
            let new = event.after["title"]?.stringValue.flatMap(giftKey)
            guard old != new else { return }
            var changes: [String: JSONValue] = [:]
            if let old { changes["topGifts/\(old)/count"] = .increment(-1) }
            if let new {
                changes["topGifts/\(new)/count"] = .increment(1)
                changes["topGifts/\(new)/title"] = .string(event.after["title"]?.stringValue ?? new)
            }
            try await context.database.update("/", changes, idempotencyKey: event.id)
        }
    }

    /// The same gift written differently counts once: lower-cased, trimmed, inner spaces as `-`,
    /// characters a key cannot hold dropped.
    static func giftKey(_ title: String) -> String? {
        let words = title.lowercased().split(whereSeparator: \.isWhitespace)
        let key = words.joined(separator: "-").filter { !".#$[]/".contains($0) }
        return key.isEmpty ? nil : String(key.prefix(200))
    }
}
