import Foundation
import HTTPTypes
import HearthStore
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import Testing

@testable import HearthServer

/// `/metrics`, `/healthz`, `/readyz` and request ids through the real responder (docs/operations.md).
@Suite("Metrics and health")
struct MetricsTests {
    /// A server with the admin credential `owner` and, when given, a metrics token.
    func withServer(metricsToken: String? = nil, _ body: @Sendable (HearthServer, any TestClientProtocol) async throws -> Void) async throws {
        var configuration = ServerConfiguration(port: 0, adminToken: "owner")
        configuration.metricsToken = metricsToken
        let server = HearthServer(
            configuration: configuration, stores: MemoryStoreFactory(), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await server.application().test(.router) { client in try await body(server, client) }
        await server.shutdown()
    }

    /// The value of the sample `line` (name and labels exactly as written), 0 when absent.
    static func value(_ page: String, _ sample: String) -> Double {
        for line in page.split(separator: "\n") where line.hasPrefix(sample + " ") {
            return Double(line.dropFirst(sample.count + 1)) ?? -1
        }
        return 0
    }

    @Test("/metrics needs the admin credential or the metrics token; the token opens nothing else")
    func metricsNeedCredentials() async throws {
        try await withServer(metricsToken: "scrape-me") { _, client in
            #expect(try await client.send(.get, "/metrics", headers: [:]).0 == .unauthorized)
            #expect(try await client.send(.get, "/metrics", headers: [.authorization: "Bearer scrape-mf"]).0 == .unauthorized)
            #expect(try await client.send(.get, "/metrics", headers: [.authorization: "Bearer scrape-me-too"]).0 == .unauthorized)
            let (status, body, headers) = try await client.send(.get, "/metrics", headers: [.authorization: "Bearer scrape-me"])
            #expect(status == .ok)
            #expect(headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
            #expect(body.contains("# TYPE hearth_http_requests_total counter"))
            #expect(try await client.send(.get, "/metrics").0 == .ok)
            // The metrics token is not the admin's: the locked database refuses it.
            #expect(try await client.send(.put, "/a.json", "1", headers: [.authorization: "Bearer scrape-me"]).0 == .unauthorized)
        }
        try await withServer { _, client in
            // Without a token configured, an empty bearer is no way in.
            let status = try await client.send(.get, "/metrics", headers: [.authorization: "Bearer "]).0
            #expect(status == .unauthorized)
        }
    }

    @Test("requests are counted by route and status class, with a latency histogram; writes move")
    func countersMove() async throws {
        try await withServer { _, client in
            let before = try await client.send(.get, "/metrics").1
            for i in 0..<3 { #expect(try await client.send(.put, "/items/\(i).json", "\(i)").0 == .ok) }
            for _ in 0..<2 { #expect(try await client.send(.get, "/items.json", headers: [:]).0 == .unauthorized) }
            #expect(try await client.send(.get, "/.hearth/overview", headers: [:]).0 == .unauthorized)
            let after = try await client.send(.get, "/metrics").1
            func delta(_ sample: String) -> Double { Self.value(after, sample) - Self.value(before, sample) }
            #expect(delta(#"hearth_http_requests_total{route="database",status="2xx"}"#) == 3)
            #expect(delta(#"hearth_http_requests_total{route="database",status="4xx"}"#) == 2)
            #expect(delta(#"hearth_http_requests_total{route="admin",status="4xx"}"#) == 1)
            #expect(delta(#"hearth_http_requests_total{route="operations",status="2xx"}"#) == 1)
            #expect(delta(#"hearth_http_request_duration_seconds_count{route="database"}"#) == 5)
            #expect(delta(#"hearth_http_request_duration_seconds_bucket{route="database",le="+Inf"}"#) == 5)
            #expect(Self.value(after, #"hearth_http_request_duration_seconds_sum{route="database"}"#) > 0)
            #expect(delta("hearth_database_writes_total") >= 3)
            #expect(Self.value(after, "hearth_realtime_connections") == 0)
            #if os(Linux)
            #expect(Self.value(after, "process_resident_memory_bytes") > 1_000_000)
            #expect(Self.value(after, "process_open_fds") > 2)
            #endif
        }
    }

    @Test("health checks answer without credentials; /readyz turns 503 once shutdown begins")
    func health() async throws {
        try await withServer { server, client in
            let alive = try await client.send(.get, "/healthz", headers: [:])
            #expect(alive.0 == .ok && alive.1 == "ok\n")
            let ready = try await client.send(.get, "/readyz", headers: [:])
            #expect(ready.0 == .ok && ready.1 == "ready\n")
            server.metrics.operations.shuttingDown.store(true, ordering: .relaxed)
            let stopping = try await client.send(.get, "/readyz", headers: [:])
            #expect(stopping.0 == .serviceUnavailable && stopping.1 == "shutting down\n")
            #expect(try await client.send(.get, "/healthz", headers: [:]).0 == .ok)
        }
    }

    @Test("the readiness watcher sets the flag when graceful shutdown begins, not before")
    func watcherFlipsOnShutdown() async throws {
        let endpoints = OperationsEndpoints()
        let group = ServiceGroup(
            configuration: .init(services: [ReadinessWatcher(endpoints: endpoints)], logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await Task.sleep(for: .milliseconds(50))
            let early = endpoints.shuttingDown.load(ordering: .relaxed)
            #expect(!early)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        let late = endpoints.shuttingDown.load(ordering: .relaxed)
        #expect(late)
    }

    @Test("a sane X-Request-Id is returned as sent; others are replaced by a new id, unique per request")
    func requestIDs() async throws {
        try await withServer { _, client in
            let kept = try await client.send(.get, "/healthz", headers: [RequestID.header: "lb-7f3a:01/x"])
            #expect(kept.2[RequestID.header] == "lb-7f3a:01/x")
            var seen: Set<String> = []
            for bad in ["has space", String(repeating: "a", count: 129), "quote\"", ""] {
                let answer = try await client.send(.get, "/items.json", headers: [RequestID.header: bad])
                let id = try #require(answer.2[RequestID.header])
                #expect(id != bad && RequestID.isSane(id))
                seen.insert(id)
            }
            let plain = try await client.send(.put, "/x.json", "1")
            seen.insert(try #require(plain.2[RequestID.header]))
            #expect(seen.count == 5)
        }
    }

    @Test("log records written while a request is answered carry its id")
    func logMetadata() async throws {
        #expect(HearthServer.logMetadataProvider.get().isEmpty)
        let inside = RequestID.$current.withValue("req-1") { HearthServer.logMetadataProvider.get() }
        #expect(inside == [RequestID.metadataKey: "req-1"])
    }

    @Test("the exposition format: escaped label values, integers without a fraction, +Inf")
    func exposition() {
        var page = PrometheusText()
        page.family("x_total", "Things.", type: "counter")
        page.sample("x_total", ["route": "a\"b\\c\nd"], 3)
        page.sample("x_seconds", ["le": PrometheusText.number(.infinity)], 0.25)
        #expect(page.text == "# HELP x_total Things.\n# TYPE x_total counter\nx_total{route=\"a\\\"b\\\\c\\nd\"} 3\nx_seconds{le=\"+Inf\"} 0.25\n")
    }

    @Test("a latency lands in the first bucket whose bound it does not exceed; classes by hundreds")
    func buckets() {
        let counters = RouteCounters(name: "t")
        counters.record(status: 204, elapsed: 500_000)  // exactly 0.5 ms: the 0.0005 bucket
        counters.record(status: 503, elapsed: 2_000_000)  // 2 ms: the 0.0025 bucket
        counters.record(status: 404, elapsed: 60_000_000_000)  // a minute: only +Inf
        let (cumulative, sum, count) = counters.histogram
        #expect(cumulative[0] == 1 && cumulative[1] == 1 && cumulative[2] == 2 && cumulative[14] == 2 && cumulative[15] == 3)
        #expect(count == 3 && abs(sum - 60.0025) < 1e-9)
        #expect(counters.byClass.map(\.0) == ["2xx", "4xx", "5xx"])
    }
}
