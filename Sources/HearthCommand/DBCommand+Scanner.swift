import Foundation
import HearthCore

/// Where a streamed JSON file goes, one event at a time: ``JSONStreamScanner`` calls it as it reads.
protocol JSONStreamSink: AnyObject {
    /// An object or array starts; `key` is its key in the parent (an array index as text), nil at the top.
    func begin(key: String?) async throws
    /// A string, number, `true`, `false` or `null`, as its exact bytes in the file.
    func primitive(key: String?, raw: [UInt8]) async throws
    /// The innermost open object or array ends.
    func end() async throws
}

/// Why a file is not importable, with the byte offset (from 0) where reading stopped.
struct JSONStreamError: Error, CustomStringConvertible {
    /// Bytes before the problem.
    var offset: Int
    /// What is wrong there.
    var message: String
    /// `byte <offset>: <message>`.
    var description: String { "byte \(offset): \(message)" }
}

/// A JSON reader over a file handle that never holds more than one read buffer (1 MiB) of the file,
/// plus the primitive being read: objects and arrays are reported to a ``JSONStreamSink`` as they open
/// and close. It checks the keys as the database would (no `. $ # [ ] /` or control characters, at
/// most 768 bytes; `.priority` and `.value` allowed), so a file that passes writes without a key error.
final class JSONStreamScanner {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var index = 0
    private var base = 0
    /// Called after every buffer read with the bytes read so far.
    var onRead: ((Int) -> Void)?
    /// The largest primitive accepted (an import batch must hold it).
    var maxPrimitive = Int.max

    /// Reads `handle` from its current position.
    init(handle: FileHandle) { self.handle = handle }

    /// Bytes consumed so far.
    var offset: Int { base + index }

    /// Reads one JSON value (the whole file) into `sink`; only whitespace may follow it.
    func scan(into sink: (any JSONStreamSink)?) async throws {
        skipSpace()
        guard peek() != nil else { throw error("the file is empty") }
        try await value(key: nil, depth: 0, sink: sink)
        skipSpace()
        if peek() != nil { throw error("unexpected text after the JSON value") }
    }

    private func error(_ message: String) -> JSONStreamError { JSONStreamError(offset: offset, message: message) }

    private func peek() -> UInt8? {
        if index == buffer.count {
            base += buffer.count
            buffer = Array(handle.readData(ofLength: 1 << 20))
            index = 0
            onRead?(base + buffer.count)
        }
        return index < buffer.count ? buffer[index] : nil
    }

    private func skipSpace() {
        while let b = peek(), b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { index += 1 }
    }

    private func expect(_ byte: UInt8, _ what: String) throws {
        skipSpace()
        guard peek() == byte else { throw error(peek() == nil ? "the file ends inside a value (expected \(what))" : "expected \(what)") }
        index += 1
    }

    private func value(key: String?, depth: Int, sink: (any JSONStreamSink)?) async throws {
        skipSpace()
        guard let b = peek() else { throw error("the file ends where a value was expected") }
        guard depth < 512 else { throw error("nested deeper than 512 levels") }
        switch b {
        case 0x7B:  // {
            index += 1
            try await sink?.begin(key: key)
            skipSpace()
            if peek() == 0x7D { index += 1 } else {
                while true {
                    skipSpace()
                    guard peek() == 0x22 else { throw error("expected a key in double quotes") }
                    let at = offset
                    let name = try keyName()
                    try checkKey(name, at: at)
                    try expect(0x3A, "':' after the key")
                    try await value(key: name, depth: depth + 1, sink: sink)
                    skipSpace()
                    if peek() == 0x2C { index += 1; continue }
                    try expect(0x7D, "',' or '}'")
                    break
                }
            }
            try await sink?.end()
        case 0x5B:  // [
            index += 1
            try await sink?.begin(key: key)
            skipSpace()
            if peek() == 0x5D { index += 1 } else {
                var i = 0
                while true {
                    try await value(key: String(i), depth: depth + 1, sink: sink)
                    i += 1
                    skipSpace()
                    if peek() == 0x2C { index += 1; continue }
                    try expect(0x5D, "',' or ']'")
                    break
                }
            }
            try await sink?.end()
        default:
            let at = offset
            let raw = try primitive()
            if raw.count > maxPrimitive { throw JSONStreamError(offset: at, message: "a value of \(raw.count) bytes is larger than one batch (--batch-bytes)") }
            try await sink?.primitive(key: key, raw: raw)
        }
    }

    /// A string, number or literal, as its bytes.
    private func primitive() throws -> [UInt8] {
        guard let b = peek() else { throw error("the file ends where a value was expected") }
        if b == 0x22 { return try string().raw }
        var raw: [UInt8] = []
        while let c = peek(), (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x2B || c == 0x2E || c == 0x45 {
            raw.append(c)
            index += 1
        }
        switch raw {
        case Array("true".utf8), Array("false".utf8), Array("null".utf8): return raw
        default:
            // The number grammar is checked by the JSON reader the server uses.
            if raw.isEmpty || !(raw[0] == 0x2D || (raw[0] >= 0x30 && raw[0] <= 0x39)) {
                throw JSONStreamError(offset: offset - raw.count, message: "expected a value")
            }
            guard case .some = try? JSONValue.parse(raw) else {
                throw JSONStreamError(offset: offset - raw.count, message: "invalid number \(String(decoding: raw, as: UTF8.self))")
            }
            return raw
        }
    }

    /// A key's text, decoded.
    private func keyName() throws -> String {
        let (raw, plain) = try string()
        if plain { return String(decoding: raw.dropFirst().dropLast(), as: UTF8.self) }
        guard case .string(let s) = try? JSONValue.parse(raw) else { throw error("invalid key") }
        return s
    }

    /// A string with its quotes, checked (escapes, no raw control characters, valid UTF-8); `plain` when it has no escapes.
    private func string() throws -> (raw: [UInt8], plain: Bool) {
        let start = offset
        var raw: [UInt8] = [0x22]
        index += 1
        var plain = true
        while true {
            guard let c = peek() else { throw JSONStreamError(offset: start, message: "a string that starts here never ends") }
            index += 1
            raw.append(c)
            if c == 0x22 { break }
            if c < 0x20 { throw JSONStreamError(offset: offset - 1, message: "a control character inside a string (escape it)") }
            if c == 0x5C {
                plain = false
                guard let e = peek() else { throw JSONStreamError(offset: start, message: "a string that starts here never ends") }
                index += 1
                raw.append(e)
                switch e {
                case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74: break
                case 0x75:
                    for _ in 0..<4 {
                        guard let h = peek(), (h >= 0x30 && h <= 0x39) || (h | 0x20 >= 0x61 && h | 0x20 <= 0x66) else {
                            throw error("invalid \\u escape")
                        }
                        index += 1
                        raw.append(h)
                    }
                default: throw JSONStreamError(offset: offset - 2, message: "invalid escape")
                }
            }
        }
        guard String(validating: raw, as: UTF8.self) != nil else { throw JSONStreamError(offset: start, message: "a string that is not valid UTF-8") }
        return (raw, plain)
    }

    private func checkKey(_ key: String, at: Int) throws {
        if key == ".priority" || key == ".value" { return }
        if key.isEmpty { throw JSONStreamError(offset: at, message: "an empty key") }
        if key.utf8.count > 768 { throw JSONStreamError(offset: at, message: "a key longer than 768 bytes") }
        if let bad = key.unicodeScalars.first(where: { ".$#[]/".unicodeScalars.contains($0) || $0.value < 0x20 || $0.value == 0x7F }) {
            throw JSONStreamError(offset: at, message: "key \(quoted(key)) contains \(quoted(String(bad))), which a database key cannot")
        }
    }
}

/// `text` as a JSON string literal.
func quoted(_ text: String) -> String { String(decoding: JSONValue.string(text).jsonBytes, as: UTF8.self) }
