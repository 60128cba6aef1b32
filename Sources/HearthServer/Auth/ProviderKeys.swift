import AsyncHTTPClient
import Foundation
public import HearthAuth
public import HearthCore
import NIOCore
import NIOHTTP1
import Synchronization

/// Identity providers' key sets (Apple's, Google's) over HTTPS, kept for as long as the provider's
/// `Cache-Control: max-age` says (an hour when it says nothing).
///
/// Anyone can send a token, so a token must not be able to make the server call out at will:
/// requests that need a set at the same time share one fetch; a token naming a key the kept set
/// lacks makes one fresh fetch at most once a minute per URL; a failed fetch is remembered for a
/// minute; a fetch has 10 s in all and follows no redirects.
public final class ProviderKeys: ProviderKeySource {
    private struct State {
        var keys: JSONValue?
        var fetched = Date.distantPast
        var maxAge: TimeInterval = 0
        var failed: (at: Date, error: Failure)?
        var inFlight: Task<JSONValue, any Error>?
    }

    /// Its own client: it follows no redirects (a key set is served where it is published) and is never shut down,
    /// like `HTTPClient.shared`.
    public static let client = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(10))))
    static let largestKeySet = 1 << 20
    static let retryInterval: TimeInterval = 60
    static let deadline: Duration = .seconds(10)

    private let client: HTTPClient
    private let states = Mutex<[String: State]>([:])
    private let clock: @Sendable () -> Date

    /// Fetches with `client`; `clock` decides when a cached key set is stale.
    public init(client: HTTPClient = ProviderKeys.client, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.client = client
        self.clock = clock
    }

    /// The JWKS document at `url`, from the cache while it is fresh (as its `Cache-Control` says); `fresh`
    /// refetches (a token named a key the cached set lacks), at most once a minute per URL.
    public func keySet(at url: String, fresh: Bool) async throws -> JSONValue {
        let now = clock()
        enum Next {
            case answer(JSONValue)
            case failure(Failure)
            case wait(Task<JSONValue, any Error>)
        }
        let next: Next = states.withLock { states in
            var state = states[url] ?? State()
            if let keys = state.keys {
                let age = now.timeIntervalSince(state.fetched)
                if fresh ? age < Self.retryInterval : age < state.maxAge { return .answer(keys) }
            }
            if let task = state.inFlight { return .wait(task) }
            if let failed = state.failed, now.timeIntervalSince(failed.at) < Self.retryInterval {
                // A set kept from before still answers; otherwise the failure does, without a new call.
                if let keys = state.keys { return .answer(keys) }
                return .failure(failed.error)
            }
            let task = Task { try await self.fetch(url) }
            state.inFlight = task
            states[url] = state
            return .wait(task)
        }
        switch next {
        case .answer(let keys): return keys
        case .failure(let error): throw error
        case .wait(let task): return try await task.value
        }
    }

    /// One fetch; its outcome is recorded for the requests that come after it.
    private func fetch(_ url: String) async throws -> JSONValue {
        do {
            let (keys, maxAge) = try await withDeadline { try await self.download(url) }
            let now = clock()
            states.withLock { states in
                states[url] = State(keys: keys, fetched: now, maxAge: maxAge)
            }
            return keys
        } catch {
            let failure = error as? Failure ?? Failure(description: "\(url): \(error)")
            let now = clock()
            states.withLock { states in
                states[url]?.inFlight = nil
                states[url]?.failed = (now, failure)
            }
            throw failure
        }
    }

    private func download(_ url: String) async throws -> (JSONValue, TimeInterval) {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        let response = try await client.execute(request, timeout: .seconds(10))
        guard response.status == .ok else { throw Failure(description: "\(url) answered \(response.status.code)") }
        let body = try await response.body.collect(upTo: Self.largestKeySet)
        guard let keys = try? JSONValue.parse(Array(body.readableBytesView)), case .array? = keys["keys"] else {
            throw Failure(description: "\(url) did not answer a JSON Web Key Set")
        }
        return (keys, response.headers.first(name: "Cache-Control").flatMap(Self.maxAge) ?? 3600)
    }

    /// `body`'s result, or a failure once `deadline` has passed (the read timeout alone would let a server that
    /// trickles its body hold the fetch for long).
    private func withDeadline<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: Self.deadline)
                throw Failure(description: "no key set within \(Self.deadline)")
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw Failure(description: "no key set") }
            return first
        }
    }

    /// `max-age=N` of a `Cache-Control` value.
    static func maxAge(_ cacheControl: String) -> TimeInterval? {
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "max-age", let seconds = Int(parts[1]), seconds >= 0 { return TimeInterval(seconds) }
        }
        return nil
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }
}
