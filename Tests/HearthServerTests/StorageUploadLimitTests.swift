import Foundation
import HTTPTypes
import HearthAuth
import HearthCore
import AsyncHTTPClient
import HearthServer
import HearthTesting
import Hummingbird
import NIOCore
import NIOHTTP1
import HummingbirdTesting
import Testing

/// Resumable sessions belong to whoever started them, and the rules' size bound stops uploads
/// whose length was not declared.
@Suite("Storage upload limits")
struct StorageUploadLimitTests {
    static let rules = """
        rules_version = '2';
        service firebase.storage {
          match /b/{bucket}/o {
            match /users/{uid}/{file} {
              allow read: if request.auth != null;
              allow write: if request.auth != null && request.resource.size < 1000;
            }
          }
        }
        """

    func setRules(_ client: any TestClientProtocol) async throws {
        let body = JSONValue.object([JSONMember("rules", .object([JSONMember("files", .array([.object([
            JSONMember("name", .string("storage.rules")), JSONMember("content", .string(Self.rules)),
        ])]))]))])
        #expect(try await client.send(.put, "/internal/setRules", String(decoding: body.jsonBytes, as: UTF8.self), headers: StorageRouterTests.admin).0 == .ok)
    }

    /// Starts a Firebase resumable session for `name` with `headers`; returns its path.
    func start(_ client: any TestClientProtocol, _ name: String, headers: HTTPFields) async throws -> String {
        var h = headers
        h[HTTPField.Name("X-Goog-Upload-Protocol")!] = "resumable"
        h[HTTPField.Name("X-Goog-Upload-Command")!] = "start"
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let (status, _, answer) = try await client.send(.post, "/v0/b/demo.appspot.com/o?name=\(encoded)", "{}", headers: h)
        #expect(status == .ok)
        let url = try #require(answer[HTTPField.Name("X-Goog-Upload-URL")!])
        return String(url[try #require(url.range(of: "/v0/")).lowerBound...])
    }

    func command(
        _ client: any TestClientProtocol, _ path: String, _ name: String, offset: Int? = nil, _ body: String? = nil, headers: HTTPFields
    ) async throws -> HTTPResponse.Status {
        var h = headers
        h[HTTPField.Name("X-Goog-Upload-Command")!] = name
        if let offset { h[HTTPField.Name("X-Goog-Upload-Offset")!] = String(offset) }
        return try await client.send(.post, path, body, headers: h).0
    }

    @Test("a session's chunks, queries, finalize and cancel are for its starter and the admin: 403 for another user, 401 signed out")
    func sessionBelongsToItsStarter() async throws {
        let auth = AuthRouterTests.service()
        try await withRouterClient(auth: auth, storage: try await StorageRouterTests.storage()) { client in
            try await setRules(client)
            let test = StorageRouterTests()
            let ann = try await test.idToken(client, "ann@x.io")
            let annUID = try #require(auth.verifiedClaims(ann)?["user_id"]?.stringValue)
            let bob = try await test.idToken(client, "bob@x.io")
            let annHeaders: HTTPFields = [.authorization: "Firebase \(ann)"]
            let bobHeaders: HTTPFields = [.authorization: "Firebase \(bob)"]
            let path = try await start(client, "users/\(annUID)/a.txt", headers: annHeaders)

            #expect(try await command(client, path, "upload", offset: 0, "evil", headers: bobHeaders) == .forbidden)
            #expect(try await command(client, path, "upload", offset: 0, "evil", headers: [:]) == .unauthorized)
            #expect(try await command(client, path, "query", headers: bobHeaders) == .forbidden)
            #expect(try await command(client, path, "cancel", headers: bobHeaders) == .forbidden)
            #expect(try await command(client, path, "upload", offset: 0, "hello ", headers: annHeaders) == .ok)
            #expect(try await command(client, path, "upload", offset: 6, "world", headers: StorageRouterTests.admin) == .ok)
            #expect(try await command(client, path, "finalize", headers: bobHeaders) == .forbidden)
            #expect(try await command(client, path, "finalize", headers: annHeaders) == .ok)
            let read = try await client.send(.get, "/v0/b/demo.appspot.com/o/users%2F\(annUID)%2Fa.txt?alt=media", nil, headers: annHeaders)
            #expect(read.1 == "hello world")
        }
    }

    @Test("a resumable chunk past the rules' size bound is refused with their 403, though the session declared no size")
    func resumableChunkBound() async throws {
        let auth = AuthRouterTests.service()
        try await withRouterClient(auth: auth, storage: try await StorageRouterTests.storage()) { client in
            try await setRules(client)
            let ann = try await StorageRouterTests().idToken(client, "ann@x.io")
            let annUID = try #require(auth.verifiedClaims(ann)?["user_id"]?.stringValue)
            let annHeaders: HTTPFields = [.authorization: "Firebase \(ann)"]
            let path = try await start(client, "users/\(annUID)/big.bin", headers: annHeaders)
            #expect(try await command(client, path, "upload", offset: 0, String(repeating: "a", count: 900), headers: annHeaders) == .ok)
            #expect(try await command(client, path, "upload", offset: 900, String(repeating: "b", count: 200), headers: annHeaders) == .forbidden)
            // The session ended refused: a finalize repeats the 403 instead of storing the first 900 bytes.
            #expect(try await command(client, path, "upload, finalize", offset: 900, String(repeating: "b", count: 99), headers: annHeaders) == .forbidden)
            let stored = try await client.send(.get, "/v0/b/demo.appspot.com/o/users%2F\(annUID)%2Fbig.bin", nil, headers: StorageRouterTests.admin)
            #expect(stored.0 == .notFound)
        }
    }

    @Test("an upload without a length is answered 403 at the first byte past the rules' bound, before its body ends")
    func chunkedUploadStopsEarly() async throws {
        let auth = AuthRouterTests.service()
        let server = LiveServer(dev: false, auth: auth, storage: try await StorageRouterTests.storage())
        let port = try await server.start()
        do {
            try await chunkedUpload(port: port, auth: auth)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    func chunkedUpload(port: Int, auth: AuthService) async throws {
        func send(_ method: HTTPRequest.Method, _ path: String, _ body: String, admin: Bool = false) async throws -> String {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
            request.method = .init(rawValue: method.rawValue)
            if admin { request.headers.add(name: "Authorization", value: "Bearer owner") }
            request.body = .bytes(ByteBuffer(string: body))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            return String(buffer: try await response.body.collect(upTo: 1 << 20))
        }
        let rules = JSONValue.object([JSONMember("rules", .object([JSONMember("files", .array([.object([
            JSONMember("name", .string("storage.rules")), JSONMember("content", .string(Self.rules)),
        ])]))]))])
        _ = try await send(.put, "/internal/setRules", String(decoding: rules.jsonBytes, as: UTF8.self), admin: true)
        let signUp = try await send(
            .post, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", #"{"email":"ann@x.io","password":"secret1","returnSecureToken":true}"#)
        let token = try #require(try JSONValue.parse(signUp)["idToken"]?.stringValue)
        let uid = try #require(auth.verifiedClaims(token)?["user_id"]?.stringValue)

        let client = try await RawClient(port: port)
        try await client.send(
            "POST /v0/b/demo.appspot.com/o?name=users%2F\(uid)%2Fs.bin HTTP/1.1\r\nHost: x\r\nAuthorization: Firebase \(token)\r\n"
                + "Content-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
        // 2,000 bytes, and the body never ends: only a check while streaming can answer.
        try await client.send("7d0\r\n" + String(repeating: "q", count: 2000) + "\r\n")
        let deadline = ContinuousClock.now + .seconds(10)
        while !client.text.contains("\r\n\r\n"), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(client.text.hasPrefix("HTTP/1.1 403"), "\(client.text.prefix(80))")
        await client.close()
    }
}
