/// Public: `HTTPClient` is in this file's public API.
public import AsyncHTTPClient
import Foundation
import NIOHTTP1

/// Reads and switches the items of a smart home (lights, heating, locks), for a function that turns a
/// listing's heating on, say.
///
/// Use the one the server is configured with, `context.services.smartHome`; tests inject a double
/// (`MemorySmartHome` in HearthTesting).
public protocol SmartHomeClient: Sendable {
    /// The item's current state as the smart home writes it (`"ON"`, `"OFF"`, `"21.5"`, `"NULL"` when unknown).
    /// Throws ``OutsideServiceError`` (status 404 for an item that does not exist).
    func state(of item: String) async throws -> String
    /// Sends `command` (`"ON"`, `"OFF"`, a number, …) to the item. Throws ``OutsideServiceError``.
    func send(_ command: String, to item: String) async throws
}

/// A ``SmartHomeClient`` on openHAB's REST API: `GET {baseURL}/rest/items/{item}/state` to read, `POST
/// {baseURL}/rest/items/{item}` with the command as `text/plain` to send, with `Authorization: Bearer {token}`
/// when an API token is given (create one in openHAB's profile page).
///
/// Item names are checked before anything is sent: letters, digits and `_`, as openHAB allows.
public struct OpenHABClient: SmartHomeClient {
    let transport: ServiceTransport
    let token: String?

    /// A client that calls the openHAB server at `baseURL` (`http://openhab.local:8080`) through `httpClient`
    /// (in a function: `context.httpClient`). Throws ``OutsideServiceError`` when `baseURL` is not an http(s) URL.
    public init(baseURL: String, token: String?, httpClient: HTTPClient, options: OutsideServiceOptions = .init()) throws {
        let token = token?.trimmingCharacters(in: .whitespacesAndNewlines)
        self.token = token?.isEmpty == false ? token : nil
        transport = ServiceTransport(
            service: "openHAB", baseURL: try ServiceTransport.checkedBaseURL(baseURL, service: "openHAB"), httpClient: httpClient,
            options: options, secrets: self.token.map { [$0] } ?? [])
    }

    /// True for a name openHAB accepts: ASCII letters, digits and `_`, not starting with a digit.
    public static func isValidItemName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first), name.utf8.count <= 256 else { return false }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
    }

    /// The item's state, from `GET /rest/items/{item}/state`.
    public func state(of item: String) async throws -> String {
        let answer = try await transport.send(.GET, try itemPath(item) + "/state", headers: headers(["Accept": "text/plain"]))
        try check(answer, item: item)
        return answer.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Sends `command` with `POST /rest/items/{item}`.
    public func send(_ command: String, to item: String) async throws {
        let command = command.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !command.isEmpty, command.utf8.count <= 1024, !command.contains(where: \.isNewline) else {
            throw OutsideServiceError(service: "openHAB", message: "a command is one non-empty line of at most 1024 bytes")
        }
        let path = try itemPath(item)
        let answer = try await transport.send(
            .POST, path, headers: headers(["Content-Type": "text/plain", "Accept": "application/json"]), body: Array(command.utf8))
        try check(answer, item: item)
    }

    private func itemPath(_ item: String) throws -> String {
        guard Self.isValidItemName(item) else {
            throw OutsideServiceError(service: "openHAB", message: "invalid item name \"\(item.prefix(64))\" (letters, digits and _ only)")
        }
        return "/rest/items/" + (item.addingPercentEncoding(withAllowedCharacters: ServiceTransport.queryValueAllowed) ?? item)
    }

    private func headers(_ extra: KeyValuePairs<String, String>) -> [(String, String)] {
        var all = extra.map { ($0.key, $0.value) }
        if let token { all.append(("Authorization", "Bearer \(token)")) }
        return all
    }

    private func check(_ answer: ServiceTransport.Answer, item: String) throws {
        switch answer.status {
        case 200...299: return
        case 404: throw OutsideServiceError(service: "openHAB", message: "no item named \(item)", status: 404)
        case 401, 403: throw transport.statusError(answer, "refused the request: check the API token")
        default: throw transport.statusError(answer, "answered HTTP \(answer.status)")
        }
    }
}
