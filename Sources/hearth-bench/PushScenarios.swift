import Crypto
import Foundation
import HearthTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Scenarios {
    // MARK: push-fanout

    /// A topic with `--push-devices` subscribers (default 10,000): each registered as its own user (an unsigned dev ID
    /// token) with an APNs token and subscribed over HTTP, then one `POST /.hearth/messaging/send` to the topic. The
    /// server's APNs client talks HTTP/2 over TLS to an APNs double in this process (`APNsDouble`, HearthTesting),
    /// which checks every request as APNs does; the double shares the machine's cores with the server, so the rate
    /// is what this box does with both, a lower bound for a server whose APNs is elsewhere.
    static func pushFanout(_ c: BenchConfig) throws -> [MetricRow] {
        let name = "push-fanout"
        let devices = c.pushDevices
        let key = P256.Signing.PrivateKey()
        let apns = try APNsDouble(teamID: "TEAM123456", keyID: "KEY1234567", key: key.publicKey, topics: ["com.example.bench"])
        let started = DispatchSemaphore(value: 0)
        let startError = LockedBox<(any Error)?>(nil)
        Task {
            do { try await apns.start() } catch { startError.set(error) }
            started.signal()
        }
        started.wait()
        if let error = startError.get() { throw error }
        defer {
            let stopped = DispatchSemaphore(value: 0)
            Task {
                await apns.stop()
                stopped.signal()
            }
            stopped.wait()
        }
        let secrets = c.scratch + "/push-secrets"
        try FileManager.default.createDirectory(atPath: secrets, withIntermediateDirectories: true)
        try key.pemRepresentation.write(toFile: secrets + "/apns.p8", atomically: true, encoding: .utf8)
        try apns.authority.rootPEM.write(toFile: secrets + "/ca.pem", atomically: true, encoding: .utf8)
        let server = try HearthServerProcess(
            binary: c.serverBinary, scratch: c.scratch, label: "push",
            extraArguments: [
                "--apns-key", secrets + "/apns.p8", "--apns-key-id", "KEY1234567", "--apns-team-id", "TEAM123456",
                "--apns-bundle-id", "com.example.bench", "--apns-url", apns.baseURL, "--push-ca-file", secrets + "/ca.pem",
            ])
        defer { _ = server.stop() }
        try server.waitUntilReady()
        let conn = try HTTPConnection(port: server.port, timeout: 60)
        let setupStart = nowNanos()
        for n in 0..<devices {
            let bearer = "Bearer " + unsignedDevIDToken(uid: "push-u\(n)")
            let token = String(format: "%064x", n + 1)
            try conn.expect(200, "POST", "/.hearth/messaging/devices", body: #"{"token":"\#(token)","service":"APNS"}"#, authorization: bearer, "registering")
            try conn.expect(200, "PUT", "/.hearth/messaging/devices/\(token)/topics/bench", authorization: bearer, "subscribing")
        }
        let setupSeconds = Double(nowNanos() - setupStart) / 1e9
        let rssBefore = server.rssMB
        let peakBefore = server.peakRSSMB
        let cpuBefore = server.cpuSeconds
        let sendStart = nowNanos()
        let answer = try conn.expect(
            200, "POST", "/.hearth/messaging/send", body: #"{"target":{"topic":"bench"},"notification":{"title":"Bench","body":"fan-out"}}"#,
            "sending to the topic")
        let seconds = Double(nowNanos() - sendStart) / 1e9
        let cpuAfter = server.cpuSeconds
        let cpu: Double? = if let cpuAfter, let cpuBefore { cpuAfter - cpuBefore } else { nil }
        guard let json = try answer.json() as? [String: Any], let delivered = json["delivered"] as? Int else {
            throw BenchError("send answered \(answer.text.prefix(300))")
        }
        return [
            MetricRow(name, "devices registered and subscribed", Double(devices), note: "\(formatNumber(setupSeconds)) s over one HTTP connection"),
            MetricRow(name, "delivered (the double accepted \(apns.received.count))", Double(delivered), target: .equals(Double(devices))),
            MetricRow(name, "sends/s (one topic send)", Double(delivered) / seconds, unit: "/s", note: "\(formatNumber(seconds)) s for the whole fan-out"),
            MetricRow(name, "provider tokens made", Double(apns.providerTokens.count), target: .equals(1)),
            MetricRow(name, "server RSS before the send", rssBefore, unit: "MB"),
            MetricRow(name, "server peak RSS (VmHWM) after the send", server.peakRSSMB, unit: "MB", note: peakBefore.map { "before: \(formatNumber($0)) MB" }),
            MetricRow(name, "server CPU for the send", cpu, unit: "s"),
        ]
    }
}

/// A value behind a lock, for handing a result across a task boundary to synchronous code.
final class LockedBox<T>: @unchecked Sendable {
    private var value: T
    private let lock = NSLock()
    init(_ value: T) { self.value = value }
    func set(_ new: T) { lock.withLock { value = new } }
    func get() -> T { lock.withLock { value } }
}
