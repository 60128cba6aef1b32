import AsyncHTTPClient
public import Foundation
import NIOCore
public import NIOHTTP1

#if canImport(Glibc)
import Glibc
#endif

/// The built `hearth` binary run as a subprocess, as a user would run it (found next to the test
/// binary, where `swift build --build-tests` puts both).
public final class HearthProcess: @unchecked Sendable {
    // Mutated only by the test that owns it, one step at a time.
    /// The child process (already running): read its `processIdentifier`, `isRunning` or `terminationStatus`.
    public let process = Process()
    private let stderr = Pipe()
    private let stdout = Pipe()
    /// The port the server announced; 0 until ``waitForPort(within:)`` has read it.
    public private(set) var port = 0

    /// The `hearth` executable in the test binary's folder or up to three folders above it; throws when it was not built.
    public static var binary: URL {
        get throws {
            let testBinary = URL(fileURLWithPath: CommandLine.arguments[0])
            var dir = testBinary.deletingLastPathComponent()
            for _ in 0..<4 {
                let candidate = dir.appendingPathComponent("hearth")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                dir = dir.deletingLastPathComponent()
            }
            throw HearthProcessError(message: "the hearth binary was not built next to the tests; run `swift build --build-tests` first")
        }
    }

    /// Runs `hearth` with `arguments` (HEARTH_PORT and HEARTH_ADMIN_TOKEN removed from its environment); throws when it cannot be started.
    public convenience init(_ arguments: [String]) throws {
        try self.init(executable: try Self.binary, arguments: arguments)
    }

    /// Runs another executable the same way (for testing this type against a child that is not `hearth`).
    public init(executable: URL, arguments: [String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.standardError = stderr
        process.standardOutput = stdout
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "HEARTH_PORT")
        env.removeValue(forKey: "HEARTH_ADMIN_TOKEN")
        process.environment = env
        try process.run()
        // Drop our copies of the write ends, so reads see end-of-file once the child exits.
        try stdout.fileHandleForWriting.close()
        try stderr.fileHandleForWriting.close()
    }

    /// A test that fails before it stopped its server must not leave the server running (it would keep
    /// its port, data folder and CPU after the test run ends).
    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Starts `hearth serve` on a free port and waits for its "listening" line.
    public static func serve(data: String, extra: [String] = []) async throws -> HearthProcess {
        let p = try HearthProcess(["serve", "--port", "0", "--data", data, "--dev"] + extra)
        try await p.waitForPort()
        return p
    }

    /// Waits until the child logs its "listening on" line; throws if it exits first or stays silent for `seconds`.
    public func waitForPort(within seconds: Double = 30) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        var text = ""
        let handle = stderr.fileHandleForReading
        while ContinuousClock.now < deadline {
            // `availableData` blocks until the child writes or exits; a child that stays up silently would
            // otherwise hang the test past its deadline (it did once, while logs went to the wrong stream).
            guard Self.hasInput(handle) else {
                if !process.isRunning { break }
                try await Task.sleep(for: .milliseconds(20))
                continue
            }
            let chunk = handle.availableData
            if chunk.isEmpty {
                if !process.isRunning { break }
                try await Task.sleep(for: .milliseconds(20))
                continue
            }
            text += String(decoding: chunk, as: UTF8.self)
            if let range = text.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                let match = text[range]
                port = Int(match.split(separator: ":").last!)!
                return
            }
        }
        throw HearthProcessError(message: "hearth did not start: \(text)")
    }

    /// True when a read of `handle` would not block: bytes are waiting, or the writer closed its end.
    private static func hasInput(_ handle: FileHandle) -> Bool {
        var descriptor = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) > 0
    }

    /// Sends signal `sig` to the child (`SIGTERM` for a graceful stop, `SIGKILL` for a crash).
    public func signal(_ sig: Int32) {
        kill(process.processIdentifier, sig)
    }

    /// Waits for exit (bounded) and returns the exit code.
    public func exitCode(within seconds: Double = 15) async throws -> Int32 {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                signal(SIGKILL)
                throw HearthProcessError(message: "hearth did not exit within \(seconds) s")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationStatus
    }

    /// What the child wrote to stderr since the last read (``waitForPort(within:)`` consumes the start-up lines). Blocks while the child runs and has written nothing: call it after exit or once output is expected.
    public var stderrText: String { String(decoding: stderr.fileHandleForReading.availableData, as: UTF8.self) }

    /// What the process wrote to stdout so far (call once the process printed what you expect).
    public var stdoutText: String { String(decoding: stdout.fileHandleForReading.availableData, as: UTF8.self) }

    /// Sends one HTTP request to the child at `path` (with its query) and returns the status and the body (at most 64 MiB). `token` goes in a Bearer header; the default `owner` is the `--dev` admin token, nil sends none. `contentType` is sent when given (callable functions need `application/json`).
    public func request(
        _ method: HTTPMethod, _ path: String, body: String? = nil, accept: String? = nil, contentType: String? = nil, token: String? = "owner"
    ) async throws -> (UInt, String) {
        var req = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        req.method = method
        if let token { req.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let accept { req.headers.add(name: "Accept", value: accept) }
        if let contentType { req.headers.add(name: "Content-Type", value: contentType) }
        if let body { req.body = .bytes(ByteBuffer(string: body)) }
        let response = try await HTTPClient.shared.execute(req, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        return (response.status.code, String(buffer: bytes))
    }
}

/// Why a ``HearthProcess`` could not be started, found or stopped in time.
public struct HearthProcessError: Error, CustomStringConvertible {
    /// What went wrong, with the child's output where it helps.
    public var message: String
    /// The message.
    public var description: String { message }
}

/// A new empty folder for a server's data.
public func temporaryDataFolder() -> String {
    let dir = NSTemporaryDirectory() + "hearth-proc-" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}
