import AsyncHTTPClient
import Foundation
public import HearthAuth
public import HearthCore
import NIOCore
import NIOHTTP1
import Synchronization

/// Identity providers' key sets (Apple's, Google's) over HTTPS, kept for as long as the provider's
/// `Cache-Control: max-age` says (an hour when it says nothing). A token naming a key the kept set
/// lacks makes one fresh fetch, at most once a minute per URL, so forged key ids cannot make the
/// server hammer the provider.
public final class ProviderKeys: ProviderKeySource {
    private struct Entry {
        var keys: JSONValue
        var fetched: Date
        var maxAge: TimeInterval
    }

    private let client: HTTPClient
    private let entries = Mutex<[String: Entry]>([:])
    private let clock: @Sendable () -> Date
    static let largestKeySet = 1 << 20
    static let freshFetchInterval: TimeInterval = 60

    public init(client: HTTPClient = .shared, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.client = client
        self.clock = clock
    }

    public func keySet(at url: String, fresh: Bool) async throws -> JSONValue {
        let now = clock()
        if let entry = entries.withLock({ $0[url] }) {
            let age = now.timeIntervalSince(entry.fetched)
            if fresh ? age < Self.freshFetchInterval : age < entry.maxAge { return entry.keys }
        }
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        let response = try await client.execute(request, timeout: .seconds(10))
        guard response.status == .ok else { throw Failure(description: "\(url) answered \(response.status.code)") }
        let body = try await response.body.collect(upTo: Self.largestKeySet)
        guard let keys = try? JSONValue.parse(Array(body.readableBytesView)), case .array? = keys["keys"] else {
            throw Failure(description: "\(url) did not answer a JSON Web Key Set")
        }
        let maxAge = response.headers.first(name: "Cache-Control").flatMap(Self.maxAge) ?? 3600
        entries.withLock { $0[url] = Entry(keys: keys, fetched: now, maxAge: maxAge) }
        return keys
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
