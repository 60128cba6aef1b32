import Foundation
import Hearth
import HearthCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fails with `TimedOut` when `body` takes longer than `seconds`.
func withTimeout<R: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> R) async throws -> R {
    try await withThrowingTaskGroup(of: R.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw TimedOut(seconds: seconds)
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw TimedOut(seconds: seconds) }
        return first
    }
}

struct TimedOut: Error, CustomStringConvertible {
    var seconds: Double
    var description: String { "timed out after \(seconds) s" }
}


/// REST access to a live server as admin (what a test checks the SDK's effects with).
struct AdminREST: Sendable {
    let port: Int

    func get(_ path: String) async throws -> JSONValue {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/\(path).json")!)
        request.setValue("Bearer owner", forHTTPHeaderField: "Authorization")
        let (data, _) = try await URLSession.shared.data(for: request)
        return try JSONValue.parse(Array(data))
    }

    func put(_ path: String, _ json: String) async throws {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/\(path).json")!)
        request.httpMethod = "PUT"
        request.httpBody = Data(json.utf8)
        request.setValue("Bearer owner", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw AdminRESTError(message: String(decoding: data, as: UTF8.self))
        }
    }
}

struct AdminRESTError: Error { var message: String }

func appOptions(port: Int, persistence: URL? = nil) -> HearthOptions {
    HearthOptions(serverURL: URL(string: "http://127.0.0.1:\(port)")!, projectID: "demo", apiKey: "test-key", persistenceDirectory: persistence)
}
