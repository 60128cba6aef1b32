import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
import HearthWire
#endif

/// Sends Identity Toolkit and Secure Token requests to a Hearth server and turns error
/// envelopes into ``AuthError``s. Holds no state.
struct IdentityToolkitClient: Sendable {
    let serverURL: URL
    let apiKey: String
    let session: URLSession

    /// `<server>/identitytoolkit.googleapis.com/v1/accounts:<method>?key=<apiKey>`.
    func accountsURL(_ method: String) -> URL {
        URL(string: "\(URLEncoding.base(serverURL))/identitytoolkit.googleapis.com/v1/accounts:\(method)?key=\(URLEncoding.component(apiKey))")!
    }

    /// `<server>/securetoken.googleapis.com/v1/token?key=<apiKey>`.
    var tokenURL: URL {
        URL(string: "\(URLEncoding.base(serverURL))/securetoken.googleapis.com/v1/token?key=\(URLEncoding.component(apiKey))")!
    }

    /// POSTs a JSON body to `accounts:<method>` and decodes the answer.
    func call<Response: Decodable>(
        _ method: String, _ body: some Encodable & Sendable, as type: Response.Type = Response.self
    ) async throws -> Response {
        let data = try JSONEncoder().encode(body)
        let request = URLRequest(url: accountsURL(method), method: "POST", headers: ["Content-Type": "application/json"], body: data)
        return try await send(request)
    }

    /// Exchanges a refresh token for a new ID token (`grant_type=refresh_token`, form-encoded).
    func refresh(_ refreshToken: String) async throws -> IdentityToolkit.RefreshTokenResponse {
        let form = "grant_type=refresh_token&refresh_token=\(URLEncoding.component(refreshToken))"
        let request = URLRequest(
            url: tokenURL, method: "POST", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(form.utf8))
        return try await send(request)
    }

    private func send<Response: Decodable>(_ request: URLRequest) async throws -> Response {
        let answer: HTTPExchange
        do {
            answer = try await session.exchange(request)
        } catch let error as CancellationError {
            throw error
        } catch {
            if (error as? URLError)?.code == .cancelled, Task.isCancelled { throw CancellationError() }
            throw AuthError.network(error)
        }
        guard answer.isSuccess else { throw Self.error(from: answer) }
        do {
            return try JSONDecoder().decode(Response.self, from: answer.body.isEmpty ? Data("{}".utf8) : answer.body)
        } catch {
            throw AuthError.invalidResponse(status: answer.status)
        }
    }

    static func error(from answer: HTTPExchange) -> AuthError {
        guard let envelope = try? JSONDecoder().decode(AuthWire.ErrorEnvelope.self, from: answer.body), let message = envelope.error.message else {
            return AuthError(code: .server, message: "The auth server refused the request (HTTP \(answer.status)).", status: answer.status)
        }
        return AuthError(serverMessage: message, status: answer.status)
    }
}
