import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `hearth serve --dev` process on 127.0.0.1, with its own fresh data folder.
final class HearthServerProcess {
    let binary: String
    let port: Int
    let dataDir: String
    let process: Subprocess

    /// Starts the server; returns immediately after spawning.
    /// - Parameter dataDir: a data folder to share with another node (default: a new one of its own).
    init(binary: String, scratch: String, label: String, extraArguments: [String] = [], dataDir: String? = nil) throws {
        self.binary = binary
        self.dataDir = dataDir ?? scratch + "/data-\(label)"
        try FileManager.default.createDirectory(atPath: self.dataDir, withIntermediateDirectories: true)
        port = try freeLocalPort()
        process = try Subprocess(
            executable: binary,
            arguments: ["serve", "--host", "127.0.0.1", "--port", String(port), "--data", self.dataDir, "--dev"] + extraArguments,
            outputPath: scratch + "/server-\(label).log")
    }

    var pid: pid_t { process.pid }
    var isRunning: Bool { process.isRunning }

    /// Polls `GET /.json` (admin) until it answers 200; returns seconds from spawn to that first response.
    @discardableResult
    func waitUntilReady(timeout: Double = 30) throws -> Double {
        let deadline = process.spawnedAt + UInt64(timeout * 1e9)
        while nowNanos() < deadline {
            guard process.isRunning else {
                throw BenchError("server exited during start-up (\(process.describeExit())):\n\(logTail())")
            }
            if let conn = try? HTTPConnection(port: port, timeout: 5), let r = try? conn.get("/.json"), r.status == 200 {
                return Double(nowNanos() - process.spawnedAt) / 1e9
            }
            usleep(500)
        }
        throw BenchError("server not ready after \(Int(timeout)) s:\n\(logTail())")
    }

    /// A field of /proc/PID/status in kB (VmRSS, VmHWM, …).
    func statusKB(_ field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }

    var rssMB: Double? { statusKB("VmRSS").map { Double($0) / 1024 } }
    var peakRSSMB: Double? { statusKB("VmHWM").map { Double($0) / 1024 } }
    var threads: Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first { $0.hasPrefix("Threads:") }
            .flatMap { Int($0.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "") }
    }

    /// Open sockets of the server (its /proc/PID/fd entries that link to `socket:[…]`), leaving out the ones it
    /// opened itself to other servers (a `--postgres` node's pool grows with load): only the listening socket and the
    /// connections clients made to its port count.
    var openSockets: Int? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { return nil }
        let inodes = entries.compactMap { entry -> Substring? in
            guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(entry)"),
                link.hasPrefix("socket:[")
            else { return nil }
            return link.dropFirst("socket:[".count).dropLast()
        }
        let outgoing = outgoingSocketInodes()
        return inodes.filter { !outgoing.contains($0) }.count
    }

    /// Inodes of the process's TCP sockets whose local port is not the server's (/proc/PID/net/tcp and tcp6: the
    /// local address is field 2, as HEX_ADDRESS:HEX_PORT; the inode is field 10).
    private func outgoingSocketInodes() -> Set<Substring> {
        var out = Set<Substring>()
        for table in ["tcp", "tcp6"] {
            // Read to the end: the file reports size 0, and a read sized by it stops after the first page.
            guard let data = FileHandle(forReadingAtPath: "/proc/\(pid)/net/\(table)")?.readDataToEndOfFile() else { continue }
            let text = String(decoding: data, as: UTF8.self)
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 9, let colon = fields[1].lastIndex(of: ":"),
                    let localPort = Int(fields[1][fields[1].index(after: colon)...], radix: 16)
                else { continue }
                if localPort != port { out.insert(fields[9]) }
            }
        }
        return out
    }

    /// User + system CPU seconds the server has used so far (from /proc/PID/stat).
    var cpuSeconds: Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the command name: state is field 3, utime 14, stime 15 (1-based in proc(5)).
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func logTail(lines: Int = 20) -> String {
        process.output.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    /// Lines of the server log at error level or worse.
    func errorLines() -> [String] {
        process.output.split(separator: "\n").filter {
            $0.contains(" error ") || $0.contains(" critical ") || $0.contains("Fatal error") || $0.contains("fatal")
        }.map(String.init)
    }

    @discardableResult
    func stop() -> String {
        process.terminate(grace: 10)
    }
}
