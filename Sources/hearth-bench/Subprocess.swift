import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Children still running, so a SIGINT/SIGTERM to the bench can stop them too (read from a signal handler).
nonisolated(unsafe) private var liveChildren = [pid_t](repeating: 0, count: 64)

private func trackChild(_ pid: pid_t, alive: Bool) {
    for i in liveChildren.indices where liveChildren[i] == (alive ? 0 : pid) {
        liveChildren[i] = alive ? pid : 0
        return
    }
}

/// On SIGINT/SIGTERM: SIGTERM every child we started, then exit.
func installSignalCleanup() {
    let handler: @convention(c) (Int32) -> Void = { sig in
        liveChildren.withUnsafeBufferPointer { buffer in
            for pid in buffer where pid > 0 { kill(pid, SIGTERM) }
        }
        _exit(128 + sig)
    }
    signal(SIGINT, handler)
    signal(SIGTERM, handler)
}

/// A child process started with posix_spawn, stdout and stderr sent to a file.
final class Subprocess {
    let pid: pid_t
    let outputPath: String
    /// Monotonic time just before posix_spawn.
    let spawnedAt: UInt64
    private(set) var exitStatus: Int32?

    init(executable: String, arguments: [String], outputPath: String, environment: [String: String]? = nil) throws {
        self.outputPath = outputPath
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let env = environment ?? ProcessInfo.processInfo.environment
        let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        spawnedAt = nowNanos()
        let rc = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard rc == 0 else { throw BenchError("cannot start \(executable): \(String(cString: strerror(rc)))") }
        self.pid = pid
        trackChild(pid, alive: true)
    }

    /// True while the child has not exited (reaps it when it has).
    var isRunning: Bool {
        if exitStatus != nil { return false }
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        if r == pid {
            exitStatus = status
            trackChild(pid, alive: false)
            return false
        }
        return r == 0
    }

    /// Waits up to `timeout` seconds; returns false if still running.
    @discardableResult
    func wait(timeout: Double) -> Bool {
        let deadline = nowNanos() + UInt64(timeout * 1e9)
        while isRunning {
            if nowNanos() > deadline { return false }
            usleep(2_000)
        }
        return true
    }

    func signal(_ sig: Int32) {
        if isRunning { kill(pid, sig) }
    }

    /// SIGTERM, then SIGKILL after `grace` seconds. Returns a description of how it ended.
    @discardableResult
    func terminate(grace: Double = 10) -> String {
        if !isRunning { return describeExit() }
        kill(pid, SIGTERM)
        if !wait(timeout: grace) {
            kill(pid, SIGKILL)
            wait(timeout: 5)
            return "did not stop within \(Int(grace)) s of SIGTERM; killed"
        }
        return describeExit()
    }

    func describeExit() -> String {
        guard let s = exitStatus else { return "running" }
        let sig = s & 0x7f
        if sig == 0 { return "exit \((s >> 8) & 0xff)" }
        return "killed by signal \(sig)"
    }

    /// Exit code when it exited normally.
    var exitCode: Int32? {
        guard let s = exitStatus, s & 0x7f == 0 else { return nil }
        return (s >> 8) & 0xff
    }

    var output: String {
        (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }

    /// Runs a command to completion (bounded) and returns its combined output.
    static func run(_ executable: String, _ arguments: [String], timeout: Double, scratch: String) throws -> (String, Int32?) {
        let out = scratch + "/cmd-\(UInt32.random(in: 0...UInt32.max)).out"
        let p = try Subprocess(executable: executable, arguments: arguments, outputPath: out)
        if !p.wait(timeout: timeout) {
            p.terminate(grace: 2)
            throw BenchError("\(executable) did not finish within \(Int(timeout)) s")
        }
        let text = p.output
        try? FileManager.default.removeItem(atPath: out)
        return (text, p.exitCode)
    }
}
