import Foundation
import HearthAuth
import HearthCore
import HearthServer
import Hummingbird
import NIOCore
import HummingbirdTesting
import Synchronization
import Testing

/// Identity providers' key sets fetched over HTTP: kept for the provider's `max-age`, fetched again fresh at most once
/// a minute, and refused when they are not a key set.
@Suite("Identity provider keys over HTTP")
struct ProviderKeysTests {
    /// A clock the test moves.
    final class TestClock: Sendable {
        private let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        func advance(_ seconds: TimeInterval) { now.withLock { $0 += seconds } }
        var date: Date { now.withLock { $0 } }
    }

    @Test func keySetsAreKeptForTheirMaxAgeAndRefetchedFreshAtMostOnceAMinute() async throws {
        let hits = Mutex(0)
        let router = Router()
        router.get("keys") { _, _ -> Response in
            let n = hits.withLock { count in
                count += 1
                return count
            }
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.cacheControl] = "public, max-age=300, must-revalidate"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"keys":[{"kid":"k\#(n)"}]}"#)))
        }
        router.get("broken") { _, _ in "not a key set" }
        router.get("missing") { _, _ -> Response in Response(status: .notFound) }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let url = "http://127.0.0.1:\(port)/keys"
            let clock = TestClock()
            let keys = ProviderKeys(clock: { clock.date })
            func kid(fresh: Bool) async throws -> String? {
                guard case .array(let set)? = try await keys.keySet(at: url, fresh: fresh)["keys"] else { return nil }
                return set.first?["kid"]?.stringValue
            }

            #expect(try await kid(fresh: false) == "k1")
            clock.advance(30)
            #expect(try await kid(fresh: true) == "k1", "a fresh fetch within a minute of the last one is not made")
            clock.advance(269)
            #expect(try await kid(fresh: false) == "k1", "kept for max-age")
            clock.advance(2)
            #expect(try await kid(fresh: false) == "k2", "fetched again after max-age")
            clock.advance(61)
            #expect(try await kid(fresh: true) == "k3", "an unknown key id fetches fresh once the minute is over")
            let fetches = hits.withLock { $0 }
            #expect(fetches == 3)

            for path in ["broken", "missing"] {
                await #expect(throws: (any Error).self, "\(path)") { _ = try await keys.keySet(at: "http://127.0.0.1:\(port)/\(path)", fresh: false) }
            }
        }
    }

    @Test func concurrentRequestsShareOneFetchAndAFailureIsRememberedForAMinute() async throws {
        let hits = Mutex(["slow": 0, "failing": 0])
        let router = Router()
        router.get("slow") { _, _ -> Response in
            hits.withLock { $0["slow", default: 0] += 1 }
            try await Task.sleep(for: .milliseconds(300))
            return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"keys":[]}"#)))
        }
        router.get("failing") { _, _ -> Response in
            hits.withLock { $0["failing", default: 0] += 1 }
            return Response(status: .internalServerError)
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let clock = TestClock()
            let keys = ProviderKeys(clock: { clock.date })
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<20 { group.addTask { _ = try await keys.keySet(at: "http://127.0.0.1:\(port)/slow", fresh: true) } }
                try await group.waitForAll()
            }
            let failing = "http://127.0.0.1:\(port)/failing"
            for _ in 0..<5 {
                await #expect(throws: (any Error).self) { _ = try await keys.keySet(at: failing, fresh: false) }
            }
            clock.advance(61)
            await #expect(throws: (any Error).self) { _ = try await keys.keySet(at: failing, fresh: false) }
            let counted = hits.withLock { $0 }
            #expect(counted["slow"] == 1, "twenty requests at once made one fetch")
            #expect(counted["failing"] == 2, "a failure answers for a minute without a new call")
        }
    }
}
