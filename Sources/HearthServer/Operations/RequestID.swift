import HTTPTypes
import Logging
import Synchronization

/// The id of one HTTP request: taken from a sane incoming `X-Request-Id` (so a proxy's id follows the request), or
/// made here; returned in the response's `X-Request-Id` and put in every log line written while the request is
/// answered (metadata key `hearth.request.id`, through ``RequestID/metadataProvider``).
enum RequestID {
    /// The header that carries it both ways.
    static let header = HTTPField.Name("X-Request-Id")!
    /// The log metadata key.
    static let metadataKey = "hearth.request.id"
    /// Longest incoming id kept; longer ones are replaced.
    static let maxLength = 128

    /// The id of the request being answered by the current task (nil outside a request).
    @TaskLocal static var current: String?

    /// Adds ``current`` to log records, for loggers whose handler asks (see `HearthServer.logMetadataProvider`).
    static let metadataProvider = Logger.MetadataProvider {
        guard let id = current else { return [:] }
        return [metadataKey: .string(id)]
    }

    /// Whether an incoming id may be kept: 1 to ``maxLength`` characters of letters, digits and `-_.:+=/@`, so it
    /// can go into a header and a log line unchanged.
    static func isSane(_ id: String) -> Bool {
        let utf8 = id.utf8
        guard !utf8.isEmpty, utf8.count <= maxLength else { return false }
        return utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || "-_.:+=/@".utf8.contains(c)
        }
    }

    /// The id for a request with `headers`: its own when sane, otherwise a new one from `generator`.
    static func of(_ headers: HTTPFields, generator: Generator) -> String {
        if let given = headers[header], isSane(given) { return given }
        return generator.next()
    }

    /// Makes ids unique within the process and unlikely to repeat across restarts: a random prefix chosen at start,
    /// then a counter (one atomic add per id, no system call).
    final class Generator: Sendable {
        /// Eight hex digits chosen when the generator is made.
        private let prefix: String
        /// The last number handed out.
        private let counter = Atomic<UInt64>(0)

        /// A generator with a random prefix (or `prefix`, for tests).
        init(prefix: String? = nil) {
            self.prefix = prefix ?? String(UInt32.random(in: .min ... .max), radix: 16)
        }

        /// A new id, `<prefix>-<number in hex>`.
        func next() -> String {
            let n = counter.add(1, ordering: .relaxed).newValue
            return prefix + "-" + String(n, radix: 16)
        }
    }
}
