import Foundation
import HearthCore

/// Turns a streamed JSON file into bounded writes: small subtrees are kept whole, and whenever the bytes
/// held reach `limit`, every finished child is sent as one multi-path `PATCH` (`{"a/b": …}`) and forgotten.
/// An object part of which was sent is completed child by child afterwards, never overwritten whole.
final class ImportBatcher: JSONStreamSink {
    /// An object or array being read.
    private struct Open {
        /// Its path below the import location ("" at the top).
        var path: String
        /// Finished children not sent yet: key and JSON bytes.
        var members: [(key: String, raw: [UInt8])] = []
        /// Some children were already sent.
        var flushed = false
    }

    private var stack: [Open] = []
    private var pending: [(path: String, raw: [UInt8])] = []
    private var held = 0
    private let limit: Int
    private let send: ([(path: String, raw: [UInt8])]) async throws -> Void
    /// Writes sent.
    private(set) var batches = 0

    /// `send` gets the paths (relative to the import location; "" is the location itself) and values of one write.
    init(limit: Int, send: @escaping ([(path: String, raw: [UInt8])]) async throws -> Void) {
        self.limit = limit
        self.send = send
    }

    func begin(key: String?) async throws {
        let parent = stack.last.map(\.path) ?? ""
        stack.append(Open(path: key.map { parent.isEmpty ? $0 : parent + "/" + $0 } ?? ""))
    }

    func primitive(key: String?, raw: [UInt8]) async throws {
        guard let key else {
            pending.append(("", raw))
            return
        }
        if raw == Array("null".utf8) { return }
        try await add(key: key, raw: raw)
    }

    func end() async throws {
        let open = stack.removeLast()
        if open.flushed {
            pending += open.members.map { (open.path.isEmpty ? $0.key : open.path + "/" + $0.key, $0.raw) }
            return
        }
        guard !open.members.isEmpty else { return }  // {} and [] store nothing
        var raw: [UInt8] = [0x7B]
        for (i, m) in open.members.enumerated() {
            if i > 0 { raw.append(0x2C) }
            raw += Array(quoted(m.key).utf8)
            raw.append(0x3A)
            raw += m.raw
        }
        raw.append(0x7D)
        if stack.isEmpty {
            pending.append(("", raw))
        } else {
            held += 2
            try await add(key: String(open.path.split(separator: "/").last ?? ""), raw: raw, counted: true)
        }
    }

    private func add(key: String, raw: [UInt8], counted: Bool = false) async throws {
        stack[stack.count - 1].members.append((key, raw))
        if !counted { held += raw.count + key.utf8.count + 4 }
        if held >= limit { try await flush() }
    }

    /// Sends every finished child held (and all still pending); called when the bytes held reach the limit and at the end.
    func flush() async throws {
        for i in stack.indices where !stack[i].members.contains(where: { $0.key == ".value" }) {
            let path = stack[i].path
            pending += stack[i].members.map { (path.isEmpty ? $0.key : path + "/" + $0.key, $0.raw) }
            stack[i].members = []
            stack[i].flushed = true
        }
        guard !pending.isEmpty else { return }
        try await send(pending)
        batches += 1
        pending = []
        held = 0
    }
}
