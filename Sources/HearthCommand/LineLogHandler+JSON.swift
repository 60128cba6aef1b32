#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Logging

extension LineLogHandler {
    /// One JSON object per log record (`--log-format json`), for log collectors:
    /// `{"time":"2026-11-29T08:54:47.123Z","level":"info","label":"hearth","message":"…","metadata":{…},"source":"…"}`.
    ///
    /// `time` is UTC with milliseconds; `metadata` holds the logger's, the metadata provider's (the request id,
    /// `hearth.request.id`) and the record's own, nested values as JSON arrays and objects.
    func jsonLine(_ event: LogEvent, _ merged: Logger.Metadata) -> String {
        var line = "{\"time\":"
        Self.append(string: Self.utcTimestamp(), to: &line)
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
        return line
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
    static func utcTimestamp() -> String {
        let now = Date().timeIntervalSince1970
        var seconds = time_t(now.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S", &parts)
        let millis = min(999, Int((now - now.rounded(.down)) * 1000))
        let fraction = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self) + ".\(fraction)Z"
    }
}

/// The log formats of `--log-format`.
enum LogFormat: String, CaseIterable {
    /// One line of text per record, the default.
    case text
    /// One JSON object per line.
    case json

    /// A logger named `hearth` writing records at `level` or above in this format, with the current request's id.
    func logger(level: Logger.Level, metadataProvider: Logger.MetadataProvider?) -> Logger {
        var logger = Logger(label: "hearth") { LineLogHandler(label: $0, format: self, metadataProvider: metadataProvider) }
        logger.logLevel = level
        return logger
    }
}
