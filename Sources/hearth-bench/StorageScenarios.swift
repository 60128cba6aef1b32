import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// File storage: a 1 GiB upload and download over loopback (throughput and the server's RSS
/// growth while they run) and many 10 KB uploads (objects per second), against the Cloud Storage
/// JSON API, which `--dev` serves without credentials.
extension Scenarios {
    static let storageBucket = "bench-files"

    /// The same 1 MiB of random bytes `count` times.
    struct RepeatedChunk: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        let chunk: ByteBuffer
        let count: Int

        struct AsyncIterator: AsyncIteratorProtocol {
            let chunk: ByteBuffer
            var left: Int
            mutating func next() async -> ByteBuffer? {
                guard left > 0 else { return nil }
                left -= 1
                return chunk
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunk: chunk, left: count) }
    }

    /// Samples the server's RSS every 20 ms while `body` runs; returns the body's result, seconds and the peak RSS in kB.
    static func whileSamplingRSS<T: Sendable>(
        _ server: HearthServerProcess, _ body: @escaping @Sendable () async throws -> T
    ) throws -> (T, Double, Int) {
        let peak = Locked(0)
        let done = Locked(false)
        let pid = server.pid
        let sampler = Thread {
            while !done.withLock({ $0 }) {
                if let kb = statusKB(pid: pid, "VmRSS") { peak.withLock { $0 = max($0, kb) } }
                usleep(20_000)
            }
        }
        sampler.start()
        let t0 = nowNanos()
        defer { done.withLock { $0 = true } }
        let result = try runBlocking(body)
        let seconds = Double(nowNanos() - t0) / 1e9
        return (result, seconds, peak.withLock { $0 })
    }

    static func statusKB(pid: pid_t, _ field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }

    static func storageLarge(_ c: BenchConfig, server: HearthServerProcess) throws -> [MetricRow] {
        let mib = c.quick ? 256 : 1024
        var random = SystemRandomNumberGenerator()
        let chunk = ByteBuffer(bytes: (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) })
        let base = "http://127.0.0.1:\(server.port)"
        let conn = try HTTPConnection(port: server.port, timeout: 30)
        _ = try conn.request("POST", "/storage/v1/b?project=bench", body: Array(#"{"name":"\#(storageBucket)"}"#.utf8), authorization: nil)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { try? client.syncShutdown() }

        let rssBefore = server.statusKB("VmRSS") ?? 0
        let (uploadStatus, uploadSeconds, uploadPeak) = try whileSamplingRSS(server) {
            var request = HTTPClientRequest(url: "\(base)/upload/storage/v1/b/\(storageBucket)/o?uploadType=media&name=big.bin")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/octet-stream")
            request.body = .stream(RepeatedChunk(chunk: chunk, count: mib), length: .known(Int64(mib) << 20))
            let response = try await client.execute(request, timeout: .seconds(900))
            _ = try await response.body.collect(upTo: 1 << 20)
            return response.status.code
        }
        guard uploadStatus == 200 else { throw BenchError("the upload answered \(uploadStatus)") }
        let (received, downloadSeconds, downloadPeak) = try whileSamplingRSS(server) {
            let request = HTTPClientRequest(url: "\(base)/download/storage/v1/b/\(storageBucket)/o/big.bin?alt=media")
            let response = try await client.execute(request, timeout: .seconds(900))
            var bytes = 0
            for try await part in response.body { bytes += part.readableBytes }
            return bytes
        }
        guard received == mib << 20 else { throw BenchError("downloaded \(received) bytes of \(mib << 20)") }
        let mb = Double(mib) * 1.048576
        let note = "\(mib) MiB, one request each way; RSS before \(rssBefore / 1024) MB"
        return [
            MetricRow("storage-large", "upload throughput", mb / uploadSeconds, unit: "MB/s", target: .atLeast(300), note: note),
            MetricRow("storage-large", "download throughput", mb / downloadSeconds, unit: "MB/s", target: .atLeast(300)),
            MetricRow("storage-large", "server RSS growth during upload", Double(max(0, uploadPeak - rssBefore)) / 1024, unit: "MB", target: .atMost(50)),
            MetricRow("storage-large", "server RSS growth during download", Double(max(0, downloadPeak - rssBefore)) / 1024, unit: "MB", target: .atMost(50)),
        ]
    }

    static func storageSmall(_ c: BenchConfig, server: HearthServerProcess) throws -> [MetricRow] {
        let conn = try HTTPConnection(port: server.port, timeout: 30)
        _ = try conn.request("POST", "/storage/v1/b?project=bench", body: Array(#"{"name":"\#(storageBucket)-small"}"#.utf8), authorization: nil)
        let payload = String(repeating: "0123456789", count: 1024)  // 10 KB
        let boundary = "hearth-bench-boundary"
        // 1,000 distinct names cycled by the writers (after the first thousand, uploads replace objects).
        let bodies = (0..<1000).map { i in
            "--\(boundary)\r\nContent-Type: application/json\r\n\r\n{\"name\":\"small/\(i).txt\"}\r\n"
                + "--\(boundary)\r\nContent-Type: text/plain\r\n\r\n\(payload)\r\n--\(boundary)--\r\n"
        }
        let request = LoadRequest.post(
            "/upload/storage/v1/b/\(storageBucket)-small/o?uploadType=multipart", bodies: bodies,
            contentType: "multipart/related; boundary=\(boundary)", name: "small-uploads")
        let sample = try conn.request("POST", request.postTarget, body: Array(bodies[0].utf8), authorization: nil, contentType: request.contentType)
        guard sample.status == 200 else {
            throw BenchError("a small upload answered \(sample.status): \(String(decoding: sample.body.prefix(200), as: UTF8.self))")
        }
        let result = try load(c, server: server, request: request)
        return loadRows("storage-small", result, rateMetric: "10 KB uploads/s (multipart, durable)", target: .atLeast(1000))
    }
}
