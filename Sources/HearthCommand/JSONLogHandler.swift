#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Logging

/// Writes one JSON object per log record to standard error (`--log-format json`), for log collectors:
/// `{"time":"2026-11-29T08:54:47.123Z","level":"info","label":"hearth","message":"…","metadata":{…},"source":"…"}`.
///
/// `time` is UTC with milliseconds; `metadata` holds the logger's, the metadata provider's (the request id,
/// `hearth.request.id`) and the record's own, nested values as JSON arrays and objects. Like ``LineLogHandler`` it
/// formats nothing until a record is written.
struct JSONLogHandler: LogHandler {
    /// The logger's label.
    let label: String
    /// Records below this level are dropped.
    var logLevel: Logger.Level = .info
    /// The logger's own metadata.
    var metadata: Logger.Metadata = [:]
    /// Metadata read at each record (the current request's id).
    var metadataProvider: Logger.MetadataProvider?
    /// Where lines go.
    private let descriptor: Int32

    /// A handler writing to `descriptor` (standard error by default).
    init(label: String, descriptor: Int32 = 2, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.descriptor = descriptor
        self.metadataProvider = metadataProvider
    }

    /// One key of the logger's metadata.
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes the record as one line.
    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit = event.metadata { merged.merge(explicit) { _, new in new } }
        if let error = event.error { merged["error"] = "\(error)" }
        var line = "{\"time\":"
        Self.append(string: Self.timestamp(), to: &line)
        line += ",\"level\":"
        Self.append(string: event.level.rawValue, to: &line)
        line += ",\"label\":"
        Self.append(string: label, to: &line)
        line += ",\"message\":"
        Self.append(string: "\(event.message)", to: &line)
        line += ",\"metadata\":"
        Self.append(.dictionary(merged), to: &line)
        line += ",\"source\":"
        Self.append(string: event.source, to: &line)
        line += "}\n"
        LineLogHandler.writeAll(descriptor, line)
    }

    /// A metadata value as JSON; keys of objects sorted, so lines compare equal.
    static func append(_ value: Logger.Metadata.Value, to out: inout String) {
        switch value {
        case .string(let s): append(string: s, to: &out)
        case .stringConvertible(let c): append(string: c.description, to: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                append(item, to: &out)
            }
            out += "]"
        case .dictionary(let entries):
            out += "{"
            for (i, (key, item)) in entries.sorted(by: { $0.key < $1.key }).enumerated() {
                if i > 0 { out += "," }
                append(string: key, to: &out)
                out += ":"
                append(item, to: &out)
            }
            out += "}"
        }
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped.
    static func append(string: String, to out: inout String) {
        out += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// Now in UTC, as `2026-11-29T08:54:47.123Z`.
    static func timestamp() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = spec.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S", &parts)
        let millis = Int(spec.tv_nsec / 1_000_000)
        let fraction = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self) + ".\(fraction)Z"
    }
}

/// The log formats of `--log-format`.
enum LogFormat: String, CaseIterable {
    /// One line of text per record (``LineLogHandler``), the default.
    case text
    /// One JSON object per line (``JSONLogHandler``).
    case json

    /// A logger named `hearth` writing records at `level` or above in this format, with the current request's id.
    func logger(level: Logger.Level, metadataProvider: Logger.MetadataProvider?) -> Logger {
        var logger = Logger(label: "hearth") { label -> any LogHandler in
            switch self {
            case .text: LineLogHandler(label: label, metadataProvider: metadataProvider)
            case .json: JSONLogHandler(label: label, metadataProvider: metadataProvider)
            }
        }
        logger.logLevel = level
        return logger
    }
}
