import ArgumentParser
import Foundation
import HearthCore
import NIOCore
import NIOHTTP1

extension DBCommand {
    /// `hearth db export [PATH] [-o FILE]`: the database (or a location) as Firebase's JSON export, written as it is read.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a location (default: the whole database) as JSON, read a page of keys at a time while the server keeps serving.",
            discussion: """
                The output is what Firebase's console export writes: plain JSON, keys in key order, objects never \
                turned into arrays. `hearth db import` reads it back; so does Firebase's console. Each page of keys is \
                read consistently, the export as a whole is not a snapshot: writes during the export may or may not be in it \
                (stop writes, or use `hearth backup`, for a point in time).
                """)
        @OptionGroup var server: ServerConnection
        @Argument(help: "The location to export, e.g. /users (default: everything).") var path = "/"
        @Option(name: [.short, .long], help: "Output file (default: standard output).") var output = "-"
        @Option(help: "Keys read per request (1...10000).") var pageSize = 1000
        @Flag(help: "Show the progress line even when standard error is not a terminal.") var progress = false

        func validate() throws {
            guard (1...10000).contains(pageSize) else { throw ArgumentParser.ValidationError("--page-size is between 1 and 10000") }
        }

        func run() async throws {
            let out = try OutputSink(path: output)
            let walker = ExportWalker(server: server, token: server.credential(), out: out, pageSize: pageSize, progress: TransferProgress(forced: progress))
            let root = path.split(separator: "/").joined(separator: "/")
            try await walker.node(root)
            out.write([0x0A])
            out.flush()
            walker.progress.report("exported", bytes: out.written, force: true)
            walker.progress.finish()
        }
    }
}

/// Writes a location depth first: one `shallow=values` request per page of keys, leaves written from it,
/// object children visited in turn. Memory holds one page per level, never a subtree.
final class ExportWalker {
    private let server: ServerConnection
    private let token: String
    private let out: OutputSink
    private let pageSize: Int
    /// The progress line.
    let progress: TransferProgress
    /// `shallow=values` answers an object child as this.
    private static let objectMark = Array("{}".utf8)

    /// A walker writing to `out`.
    init(server: ServerConnection, token: String, out: OutputSink, pageSize: Int, progress: TransferProgress) {
        self.server = server
        self.token = token
        self.out = out
        self.pageSize = pageSize
        self.progress = progress
    }

    /// Writes the value at `path` ("" for the root).
    func node(_ path: String) async throws {
        var after: String?
        var opened = false
        while true {
            var query = [("shallow", "values"), ("orderBy", "\"$key\""), ("limitToFirst", String(pageSize))]
            if let after { query.append(("startAfter", quoted(after))) }
            let body = try await server.call(.GET, server.address(path, query), token: token)
            let value: JSONValue
            do { value = try JSONValue.parse(body.readableBytesView) } catch { throw fail("the server's answer for /\(path) is not JSON: \(error)") }
            guard case .object(let members) = value else {
                // A leaf, or nothing (null); after a first page, a node emptied meanwhile.
                if !opened { out.write(value == .null ? Array("null".utf8) : value.jsonBytes) } else { out.write([0x7D]) }
                return
            }
            if members.isEmpty {
                out.write(opened ? [0x7D] : Array("null".utf8))
                return
            }
            if !opened, members.count < pageSize, let length = Self.arrayLength(members.map(\.key)) {
                try await array(members, length: length, at: path)
                return
            }
            for m in members {
                out.write([opened ? 0x2C : 0x7B])
                opened = true
                out.write(quoted(m.key).utf8)
                out.write([0x3A])
                try await child(m, of: path)
            }
            progress.report("exported", bytes: out.written)
            if members.count < pageSize {
                out.write([0x7D])
                return
            }
            after = members.last?.key
        }
    }

    /// Writes a listed child: a leaf as it is, an object (`{}`) by visiting it.
    private func child(_ m: JSONMember, of path: String) async throws {
        if case .object(let inner) = m.value, inner.isEmpty {
            try await node(path.isEmpty ? m.key : path + "/" + m.key)
        } else {
            out.write(m.value.jsonBytes)
        }
    }

    /// Writes a node whose keys all fit in one page as an array, as Firebase renders it (gaps as `null`).
    private func array(_ members: [JSONMember], length: Int, at path: String) async throws {
        out.write([0x5B])
        var next = 0
        for m in members {
            let index = Int(m.key)!
            while next < index {
                out.write(next == 0 ? Array("null".utf8) : Array(",null".utf8))
                next += 1
            }
            if next > 0 { out.write([0x2C]) }
            try await child(m, of: path)
            next += 1
        }
        out.write([0x5D])
        precondition(next == length)
    }

    /// Firebase's rule for showing an object as an array: every key a canonical non-negative integer, and the
    /// largest below twice the count. Nil when the keys say object.
    static func arrayLength(_ keys: [String]) -> Int? {
        var largest = -1
        for k in keys {
            guard let v = Int(k), v >= 0, String(v) == k else { return nil }
            largest = max(largest, v)
        }
        guard largest >= 0, largest < 2 * keys.count else { return nil }
        return largest + 1
    }
}
