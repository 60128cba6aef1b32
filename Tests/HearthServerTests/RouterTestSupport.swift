import HTTPTypes
import HearthAuth
import HearthCore
import HearthDatabase
import HearthLinks
import HearthServer
import HearthStorage
import HearthStore
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore

let admin: HTTPFields = [.authorization: "Bearer owner"]

func withRouterClient(
    indexPolicy: IndexPolicy = .enforce, dev: Bool = false, auth: AuthService? = nil, publicURL: String? = nil,
    storage: StorageService? = nil, links: LinkService? = nil,
    _ body: @Sendable (any TestClientProtocol) async throws -> Void
) async throws {
    let server = HearthServer(
        configuration: ServerConfiguration(port: 0, adminToken: "owner", indexPolicy: indexPolicy, dev: dev, publicURL: publicURL),
        stores: MemoryStoreFactory(),
        logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
        auth: auth, storage: storage, links: links)
    try await server.application().test(.router) { client in try await body(client) }
    await server.shutdown()
}

extension TestClientProtocol {
    /// Sends a request and returns (status, body text, headers).
    func send(
        _ method: HTTPRequest.Method, _ uri: String, _ body: String? = nil, headers: HTTPFields = admin
    ) async throws -> (HTTPResponse.Status, String, HTTPFields) {
        try await execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) { response in
            (response.status, String(buffer: response.body), response.headers)
        }
    }
}
