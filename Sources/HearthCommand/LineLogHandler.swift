#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Logging

/// Writes one line per log record to standard error: text as swift-log's default handler does,
/// `<time> <level> <label> : <metadata> [<source>] <message>`, or one JSON object (`--log-format json`, see
/// `LineLogHandler+JSON.swift`).
///
/// swift-log's `StreamLogHandler` formats its whole metadata dictionary every time a key is set. Hummingbird sets
/// `hb.request.id` on a copy of the logger for every request, so that formatting ran on every request even though
/// almost none of them log anything: ~3 % of the server's CPU in a profile of small GETs. This handler formats
/// metadata only when a record is actually written.
struct LineLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    /// Text or JSON lines.
    let format: LogFormat
    private let descriptor: Int32

    init(label: String, format: LogFormat = .text, descriptor: Int32 = 2, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.format = format
        self.descriptor = descriptor
        self.metadataProvider = metadataProvider
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit = event.metadata { merged.merge(explicit) { _, new in new } }
        if let error = event.error { merged["error"] = "\(error)" }
        if format == .json {
            Self.writeAll(descriptor, jsonLine(event, merged))
            return
        }
        var text = Self.timestamp() + " \(event.level) \(label) :"
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            text += " \(key)=\(value)"
        }
        text += " [\(event.source)] \(event.message)\n"
        Self.writeAll(descriptor, text)
    }

    /// Local time as `2026-11-22T23:47:03+0000`.
    static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// One `write` per record keeps lines from concurrent tasks whole; retries on partial writes and EINTR.
    static func writeAll(_ descriptor: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        bytes.withUnsafeBytes { raw in
            while offset < raw.count {
                let n = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if n > 0 {
                    offset += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}
