import ArgumentParser
import AsyncHTTPClient
import Foundation
import HearthCore
import NIOCore
import NIOHTTP1

/// `hearth db export|import`: a database as Firebase's JSON export, against a running server over REST.
struct DBCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db", abstract: "Export or import a database as JSON (Firebase's format), through a running server.",
        subcommands: [Export.self, Import.self])
}

/// The server the `db` commands talk to, and as whom.
struct ServerConnection: ParsableArguments {
    @Option(help: "The server (HEARTH_URL; default http://127.0.0.1:9000).") var url: String?
    @Option(help: "Admin token (HEARTH_ADMIN_TOKEN; default: <--data>/admin-token, or owner for a --dev server).") var token: String?
    @Option(help: "Data folder to read admin-token from (HEARTH_DATA; default ./hearth-data).") var data: String?
    @Option(help: "Namespace (database) name; default the server's default.") var ns: String?

    /// The base URL without a trailing slash.
    var base: String {
        var u = url ?? ProcessInfo.processInfo.environment["HEARTH_URL"] ?? "http://127.0.0.1:9000"
        while u.hasSuffix("/") { u.removeLast() }
        return u
    }

    /// The credential sent as `Authorization: Bearer`.
    func credential() -> String {
        let env = ProcessInfo.processInfo.environment
        if let token, !token.isEmpty { return token }
        if let t = env["HEARTH_ADMIN_TOKEN"], !t.isEmpty { return t }
        let folder = data ?? env["HEARTH_DATA"] ?? "./hearth-data"
        if let d = FileManager.default.contents(atPath: folder + "/admin-token"),
            let t = String(data: d, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines), !t.isEmpty
        {
            return t
        }
        return "owner"
    }

    /// The URL of `path` (slash-separated keys, "" for the root) with `query` pairs.
    func address(_ path: String, _ query: [(String, String)] = []) -> String {
        let keys = path.split(separator: "/").map { $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#%;"))) ?? String($0) }
        var all = query
        if let ns { all.append(("ns", ns)) }
        let q = all.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0.1)" }.joined(separator: "&")
        return base + "/" + keys.joined(separator: "/") + ".json" + (q.isEmpty ? "" : "?" + q)
    }

    /// Sends one request and returns the body; a status other than 2xx stops the command with the server's message.
    func call(_ method: HTTPMethod, _ url: String, body: [UInt8]? = nil, token: String) async throws -> ByteBuffer {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response: HTTPClientResponse
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .seconds(300))
        } catch {
            throw fail("cannot reach \(base): \(error)")
        }
        let bytes = try await response.body.collect(upTo: 1 << 30)
        guard (200..<300).contains(response.status.code) else {
            let text = String(buffer: bytes)
            let message = (try? JSONValue.parse(text))?["error"]?.stringValue ?? text
            throw fail("\(method) \(url.components(separatedBy: "?")[0]): \(response.status.code) \(message)")
        }
        return bytes
    }
}

/// A buffered writer to standard output or a file.
final class OutputSink {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    /// Bytes written so far.
    private(set) var written = 0

    /// Standard output for `-`, else a new file at `path` (mode 0600).
    init(path: String) throws {
        if path == "-" {
            handle = .standardOutput
        } else {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
                let h = FileHandle(forWritingAtPath: path)
            else { throw fail("cannot write \(path)") }
            handle = h
        }
        buffer.reserveCapacity(1 << 16)
    }

    /// Appends `bytes`.
    func write(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Writes out what is buffered.
    func flush() {
        guard !buffer.isEmpty else { return }
        handle.write(Data(buffer))
        written += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }
}
