#if canImport(FoundationNetworking)
import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif
public import HearthCore
public import HearthWire

/// Callable server functions (`POST /functions/NAME`, Firebase's callable protocol), called with the
/// signed-in user's ID token.
///
/// ```swift
/// struct Shake: Encodable { var context: String }
/// struct Coins: Decodable { var coins: Int }
/// let result = try await app.functions.call("shake", Shake(context: "cafe"), returning: Coins.self)
/// ```
public final class CloudFunctions: Sendable {
    /// Where the server is (calls go to `<serverURL>/functions/<name>`).
    public let options: HearthOptions
    /// Where ID tokens come from; nil calls functions without credentials (the function sees no user).
    public let auth: Auth?
    let session: URLSession

    /// Callable functions on `options.serverURL` (Firebase's `Functions.functions()`); ``HearthApp/functions`` is
    /// one made with the app's ``Auth``.
    public init(options: HearthOptions, auth: Auth? = nil, session: URLSession = .shared) {
        self.options = options
        self.auth = auth
        self.session = session
    }

    /// Calls `name` with `input` (encoded as the request's `data`) and decodes its `result`.
    /// Dates travel as milliseconds since 1970, as in the database.
    public func call<Input: Encodable & Sendable, Output: Decodable & Sendable>(
        _ name: String, _ input: Input, returning: Output.Type
    ) async throws(FunctionsCallError) -> Output {
        let data: JSONValue
        do {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .millisecondsSince1970
            data = try JSONValue.parse(Array(encoder.encode(input)))
        } catch {
            throw FunctionsCallError(code: .invalidArgument, message: "The input cannot be encoded as JSON: \(error)")
        }
        let result = try await call(name, data)
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .millisecondsSince1970
            return try decoder.decode(Output.self, from: Data(result.jsonBytes))
        } catch {
            throw FunctionsCallError(code: .internal, message: "The function's result does not decode as \(Output.self): \(error)")
        }
    }

    /// Calls `name` with raw JSON and returns its raw `result`.
    public func call(_ name: String, _ data: JSONValue) async throws(FunctionsCallError) -> JSONValue {
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }),
            let url = URL(string: "\(URLEncoding.base(options.serverURL))/functions/\(name)")
        else { throw FunctionsCallError(code: .invalidArgument, message: "Invalid function name \"\(name)\"") }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(JSONValue.object([JSONMember("data", data)]).jsonBytes)
        do {
            if let token = try await auth?.idToken() { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        } catch {
            throw FunctionsCallError(code: .unauthenticated, message: "No ID token could be obtained for the signed-in user: \(error)")
        }
        let body: Data
        let status: Int
        do {
            let (bytes, response) = try await session.data(for: request)
            body = bytes
            status = (response as? HTTPURLResponse)?.statusCode ?? 0
        } catch {
            throw FunctionsCallError(code: .unavailable, message: "The server could not be reached: \(error.localizedDescription)")
        }
        let json = try? JSONValue.parse(Array(body))
        if status == 200, let result = json?["result"] { return result }
        if let error = json?["error"], let statusText = error["status"]?.stringValue {
            throw FunctionsCallError(
                code: FunctionsCallError.Code(rawValue: statusText) ?? .unknown, message: error["message"]?.stringValue ?? statusText,
                details: error["details"])
        }
        throw FunctionsCallError(code: status == 200 ? .internal : .unknown, message: "Unexpected answer (HTTP \(status))")
    }
}

/// A callable function's error: the protocol's status, its message and optional details.
public struct FunctionsCallError: Error, Sendable, CustomStringConvertible {
    /// The callable protocol's status codes.
    public typealias Code = CallableStatus

    /// The callable status (`NOT_FOUND`, `PERMISSION_DENIED`, …); `.unavailable` when the server could not be
    /// reached, `.unauthenticated` when no ID token could be had (Firebase's `FunctionsErrorCode`).
    public var code: Code
    /// The function's message, or the SDK's own when the call did not reach the function.
    public var message: String
    /// The `details` the function threw with, as JSON (Firebase's `FunctionsErrorDetailsKey`).
    public var details: JSONValue?

    /// Makes an error, for instance to stand in for ``CloudFunctions`` in a test double.
    public init(code: Code, message: String, details: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.details = details
    }

    /// `<STATUS>: <message>`.
    public var description: String { "\(code.rawValue): \(message)" }
}
