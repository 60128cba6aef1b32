import Foundation
import HTTPTypes
import HearthAuth
import HearthCore
import HearthFiles
import HearthServer
import HearthStorage
import HearthStore
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Firebase Storage v0 and the Cloud Storage JSON API through the router: rules, tokens,
/// resumable sessions, and what a client can and cannot reach.
@Suite("Storage over HTTP")
struct StorageRouterTests {
    static func storage() async throws -> StorageService {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-storage-\(UUID().uuidString)").path
        var configuration = LocalDiskBlobStore.Configuration()
        configuration.durable = false
        return StorageService(
            catalog: MemoryObjectCatalog(), blobs: try await LocalDiskBlobStore(folder: folder, configuration: configuration),
            defaultBucket: "demo.appspot.com")
    }

    static let admin: HTTPFields = [.authorization: "Bearer owner"]

    func idToken(_ client: any TestClientProtocol, _ email: String) async throws -> String {
        let (_, text, _) = try await client.send(
            .post, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", #"{"email":"\#(email)","password":"secret1","returnSecureToken":true}"#,
            headers: [:])
        return try #require(try JSONValue.parse(text)["idToken"]?.stringValue)
    }

    func upload(
        _ client: any TestClientProtocol, _ name: String, _ body: String, type: String = "text/plain", headers: HTTPFields
    ) async throws -> (HTTPResponse.Status, JSONValue) {
        var h = headers
        h[.contentType] = type
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let (status, text, _) = try await client.send(.post, "/v0/b/demo.appspot.com/o?name=\(encoded)", body, headers: h)
        return (status, try JSONValue.parse(text))
    }

    @Test func ownerOnlyRulesDecideUploadsAndReads() async throws {
        let auth = AuthRouterTests.service()
        try await withRouterClient(auth: auth, storage: try await Self.storage()) { client in
            let rules = """
                rules_version = '2';
                service firebase.storage {
                  match /b/{bucket}/o {
                    match /users/{uid}/{file} {
                      allow read: if request.auth != null;
                      allow write: if request.auth.uid == uid && request.resource.size < 16 && request.resource.contentType.matches('text/.*');
                    }
                  }
                }
                """
            let setRules = JSONValue.object([JSONMember("rules", .object([JSONMember("files", .array([.object([
                JSONMember("name", .string("storage.rules")), JSONMember("content", .string(rules)),
            ])]))]))])
            #expect(try await client.send(.put, "/internal/setRules", String(decoding: setRules.jsonBytes, as: UTF8.self), headers: Self.admin).0 == .ok)

            let ann = try await idToken(client, "ann@x.io")
            let annUID = try #require(auth.verifiedClaims(ann)?["user_id"]?.stringValue)
            let bob = try await idToken(client, "bob@x.io")
            let annHeaders: HTTPFields = [.authorization: "Firebase \(ann)"]
            let bobHeaders: HTTPFields = [.authorization: "Bearer \(bob)"]

            let (ok, object) = try await upload(client, "users/\(annUID)/note.txt", "hello", headers: annHeaders)
            #expect(ok == .ok)
            #expect(object["size"] == .string("5"))
            let token = try #require(object["downloadTokens"]?.stringValue)
            #expect(try await upload(client, "users/\(annUID)/note.txt", "hello", headers: bobHeaders).0 == .forbidden, "not the owner")
            #expect(try await upload(client, "users/\(annUID)/big.txt", String(repeating: "x", count: 16), headers: annHeaders).0 == .forbidden)
            #expect(try await upload(client, "users/\(annUID)/pic.png", "png", type: "image/png", headers: annHeaders).0 == .forbidden)
            let (denied, deniedBody) = try await upload(client, "elsewhere/x.txt", "x", headers: annHeaders)
            #expect(denied == .forbidden)
            #expect(deniedBody["error"]?["message"] == .string("Permission denied. No WRITE permission."))

            let path = "/v0/b/demo.appspot.com/o/users%2F\(annUID)%2Fnote.txt"
            #expect(try await client.send(.get, path + "?alt=media", nil, headers: bobHeaders).1 == "hello", "any signed-in user reads")
            #expect(try await client.send(.get, path + "?alt=media", nil, headers: [:]).0 == .forbidden, "signed out")
            #expect(try await client.send(.get, path + "?alt=media&token=\(token)", nil, headers: [:]).1 == "hello", "a download token")
            #expect(try await client.send(.get, path + "?alt=media&token=wrong", nil, headers: [:]).0 == .forbidden)
            let (forged, _, _) = try await client.send(.get, path, nil, headers: [.authorization: "Firebase not-a-token"])
            #expect(forged == .unauthorized, "a bad token is refused, never treated as signed out")

            // A rules file that does not compile is refused with its position; the old rules stay.
            let broken = JSONValue.object([JSONMember("rules", .object([JSONMember("files", .array([.object([
                JSONMember("content", .string("rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o { allow read: if ; }\n}")),
            ])]))]))])
            let (bad, badText, _) = try await client.send(.put, "/internal/setRules", String(decoding: broken.jsonBytes, as: UTF8.self), headers: Self.admin)
            #expect(bad == .badRequest && badText.contains("line 3, column 40"), "\(badText)")
            #expect(try await upload(client, "users/\(annUID)/again.txt", "ok", headers: annHeaders).0 == .ok)
        }
    }

    @Test func resumableUploadAcrossChunksQueryAndFinalize() async throws {
        try await withRouterClient(dev: true, storage: try await Self.storage()) { client in
            var start = Self.admin
            start[HTTPField.Name("X-Goog-Upload-Protocol")!] = "resumable"
            start[HTTPField.Name("X-Goog-Upload-Command")!] = "start"
            start[HTTPField.Name("X-Goog-Upload-Header-Content-Type")!] = "application/x-test"
            let (status, _, headers) = try await client.send(.post, "/v0/b/demo.appspot.com/o?name=up%2Ffile.bin", #"{"metadata":{"a":"b"}}"#, headers: start)
            #expect(status == .ok)
            #expect(headers[HTTPField.Name("X-Goog-Upload-Status")!] == "active")
            let url = try #require(headers[HTTPField.Name("X-Goog-Upload-URL")!])
            let path = String(url[try #require(url.range(of: "/v0/")).lowerBound...])

            func command(_ name: String, offset: Int? = nil, _ body: String? = nil) async throws -> (HTTPResponse.Status, String, HTTPFields) {
                var h = Self.admin
                h[HTTPField.Name("X-Goog-Upload-Command")!] = name
                if let offset { h[HTTPField.Name("X-Goog-Upload-Offset")!] = String(offset) }
                return try await client.send(.post, path, body, headers: h)
            }
            #expect(try await command("upload", offset: 0, "hello ").0 == .ok)
            let (_, _, queried) = try await command("query")
            #expect(queried[HTTPField.Name("X-Goog-Upload-Size-Received")!] == "6")
            // A resent chunk that overlaps what arrived is trimmed, not duplicated.
            #expect(try await command("upload", offset: 3, "lo world").0 == .ok)
            let (done, text, final) = try await command("upload, finalize", offset: 11, "!")
            #expect(done == .ok)
            #expect(final[HTTPField.Name("X-Goog-Upload-Status")!] == "final")
            let object = try JSONValue.parse(text)
            #expect(object["size"] == .string("12"))
            #expect(object["contentType"] == .string("application/x-test"))
            #expect(object["metadata"]?["a"] == .string("b"))
            #expect(try await client.send(.get, "/v0/b/demo.appspot.com/o/up%2Ffile.bin?alt=media", nil, headers: Self.admin).1 == "hello world!")
            #expect(try await command("finalize").0 == .ok, "finalizing again answers the same object")
            // The session belongs to the credential that started it (the admin's): a caller without one is refused.
            #expect(try await client.send(.post, path, nil, headers: [HTTPField.Name("X-Goog-Upload-Command")!: "query"]).0 == .unauthorized)
        }
    }

    @Test func namesCannotEscapeAndRangesAreChecked() async throws {
        try await withRouterClient(dev: true, storage: try await Self.storage()) { client in
            for name in ["..", "."] {
                let (status, _) = try await upload(client, name, "x", headers: Self.admin)
                #expect(status == .badRequest, "\(name)")
            }
            let (ok, _) = try await upload(client, "../../etc/passwd", "just a name", headers: Self.admin)
            #expect(ok == .ok, "a name with .. segments is only a name: the bytes live under a generated id")
            let path = "/v0/b/demo.appspot.com/o/..%2F..%2Fetc%2Fpasswd?alt=media"
            #expect(try await client.send(.get, path, nil, headers: Self.admin).1 == "just a name")
            let (partial, body, headers) = try await client.send(.get, path, nil, headers: [.authorization: "Bearer owner", .range: "bytes=-4"])
            #expect(partial == .partialContent && body == "name" && headers[.contentRange] == "bytes 7-10/11")
            let (unsatisfiable, _, rangeHeaders) = try await client.send(.get, path, nil, headers: [.authorization: "Bearer owner", .range: "bytes=11-"])
            #expect(unsatisfiable == .rangeNotSatisfiable && rangeHeaders[.contentRange] == "bytes */11")
            let (badList, _, _) = try await client.send(.get, "/v0/b/demo.appspot.com/o?prefix=etc", nil, headers: Self.admin)
            #expect(badList == .badRequest, "a v0 prefix must end with /")
        }
    }
}

extension StorageRouterTests {
    @Test func aDownloadTokenAlsoOpensTheMetadata() async throws {
        try await withRouterClient(auth: AuthRouterTests.service(), storage: try await Self.storage()) { client in
            let rules = """
                rules_version = '2';
                service firebase.storage {
                  match /b/{bucket}/o {
                    match /{all=**} { allow read: if request.auth != null; }
                  }
                }
                """
            let setRules = JSONValue.object([JSONMember("rules", .object([JSONMember("files", .array([.object([
                JSONMember("name", .string("storage.rules")), JSONMember("content", .string(rules)),
            ])]))]))])
            #expect(try await client.send(.put, "/internal/setRules", String(decoding: setRules.jsonBytes, as: UTF8.self), headers: Self.admin).0 == .ok)
            let (uploaded, object) = try await upload(client, "r/p.png", "png", type: "image/png", headers: Self.admin)
            #expect(uploaded == .ok)
            let token = try #require(object["downloadTokens"]?.stringValue)

            let path = "/v0/b/demo.appspot.com/o/r%2Fp.png"
            let (status, text, _) = try await client.send(.get, path + "?token=\(token)", nil, headers: [:])
            #expect(status == .ok, "\(text)")
            #expect(try JSONValue.parse(text)["name"] == .string("r/p.png"))
            #expect(try await client.send(.get, path, nil, headers: [:]).0 == .forbidden, "no token, signed out")
            #expect(try await client.send(.get, path + "?token=wrong", nil, headers: [:]).0 == .forbidden, "an unknown token falls back to the rules")
        }
    }
}

extension StorageRouterTests {
    @Test func listingLeavesOutPrefixesWithEmptySegments() async throws {
        try await withRouterClient(storage: try await Self.storage()) { client in
            for name in ["dir//x", "dir/sub/y", "dir/a"] {
                #expect(try await upload(client, name, "x", headers: Self.admin).0 == .ok, "\(name)")
            }
            let (status, text, _) = try await client.send(.get, "/v0/b/demo.appspot.com/o?prefix=dir%2F&delimiter=%2F", nil, headers: Self.admin)
            #expect(status == .ok)
            let listing = try JSONValue.parse(text)
            #expect(listing["prefixes"] == .array([.string("dir/sub/")]))
            #expect(listing["items"]?.arrayCount == 1)
            #expect(listing["items"]?[0]?["name"] == .string("dir/a"))
        }
    }
}

extension StorageRouterTests {
    /// A gzip member holding `text` in one stored (uncompressed) deflate block.
    static func gzip(_ text: String) -> [UInt8] {
        let data = Array(text.utf8)
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        let n = UInt16(data.count)
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        return [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF, 1, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8(~n >> 8)]
            + data + le32(crc) + le32(UInt32(data.count))
    }

    @Test func gzipObjectsAreInflatedUnlessTheClientAcceptsGzip() async throws {
        try await withRouterClient(storage: try await Self.storage()) { client in
            let stored = Self.gzip("hello, gzip")
            var h = Self.admin
            h[.contentType] = "text/plain"
            let status = try await client.execute(
                uri: "/v0/b/demo.appspot.com/o?name=g.txt", method: .post, headers: h, body: ByteBuffer(bytes: stored)
            ) { $0.status }
            #expect(status == .ok)
            #expect(try await client.send(.patch, "/v0/b/demo.appspot.com/o/g.txt", #"{"contentEncoding":"gzip"}"#, headers: Self.admin).0 == .ok)

            let path = "/v0/b/demo.appspot.com/o/g.txt?alt=media"
            let (plain, plainBody, plainHeaders) = try await client.send(.get, path, nil, headers: Self.admin)
            #expect(plain == .ok)
            #expect(plainBody == "hello, gzip", "no Accept-Encoding: inflated")
            #expect(plainHeaders[.contentEncoding] == nil)

            for accept in ["identity", "*"] {
                var identity = Self.admin
                identity[.acceptEncoding] = accept
                #expect(try await client.send(.get, path, nil, headers: identity).1 == "hello, gzip", "\(accept)")
            }

            var gzipHeaders = Self.admin
            gzipHeaders[.acceptEncoding] = "gzip, deflate"
            let (raw, rawHeaders) = try await client.execute(uri: path, method: .get, headers: gzipHeaders) {
                (Array($0.body.readableBytesView), $0.headers)
            }
            #expect(raw == stored, "the client accepts gzip: the stored bytes")
            #expect(rawHeaders[.contentEncoding] == "gzip")
        }
    }
}

extension StorageRouterTests {
    /// Public and signed object URLs (`/{bucket}/{name}`) are the Cloud Storage XML API: their errors are `<Error>`
    /// documents with the XML API's codes, not the JSON API's `{"error": …}`.
    @Test func publicURLErrorsAreXMLDocuments() async throws {
        try await withRouterClient(storage: try await Self.storage()) { client in
            #expect(try await upload(client, "p/a&b.txt", "hello", headers: Self.admin).0 == .ok)
            let url = "/demo.appspot.com/p/a%26b.txt"
            func expectXML(_ answer: (HTTPResponse.Status, String, HTTPFields), _ status: HTTPResponse.Status, code: String, details: String) {
                #expect(answer.0 == status)
                #expect(answer.2[.contentType] == "application/xml; charset=UTF-8")
                #expect(answer.1.hasPrefix("<?xml version='1.0' encoding='UTF-8'?><Error><Code>\(code)</Code><Message>"), "\(answer.1)")
                #expect(answer.1.hasSuffix("<Details>\(details)</Details></Error>"), "\(answer.1)")
            }
            expectXML(try await client.send(.get, url, nil, headers: [:]), .unauthorized, code: "AuthenticationRequired", details: "Missing admin credentials.")
            #expect(try await client.send(.get, url, nil, headers: Self.admin).1 == "hello")
            expectXML(
                try await client.send(.get, "/demo.appspot.com/p/none.txt", nil, headers: Self.admin), .notFound, code: "NoSuchKey",
                details: "No such object: demo.appspot.com/p/none.txt")
            let beyond = try await client.send(.get, url, nil, headers: [.authorization: "Bearer owner", .range: "bytes=9-"])
            expectXML(beyond, .rangeNotSatisfiable, code: "InvalidRange", details: "bytes=9-")
            #expect(beyond.2[.contentRange] == "bytes */5")
            var exists = Self.admin
            exists[HTTPField.Name("x-goog-if-generation-match")!] = "0"
            expectXML(
                try await client.send(.put, url, "again", headers: exists), .preconditionFailed, code: "PreconditionFailed",
                details: "At least one of the pre-conditions you specified did not hold.")
            // A HEAD answer carries the status and no document.
            let head = try await client.send(.head, "/demo.appspot.com/p/none.txt", nil, headers: Self.admin)
            #expect(head.0 == .notFound && head.1.isEmpty)
            // The name in the details is escaped.
            expectXML(
                try await client.send(.get, "/demo.appspot.com/p/%3Cb%3E", nil, headers: Self.admin), .notFound, code: "NoSuchKey",
                details: "No such object: demo.appspot.com/p/&lt;b&gt;")
        }
    }
}

extension StorageRouterTests {
    /// Issue 30 §4: an object keeps at most `ObjectRecord.maxDownloadTokens` download tokens, and adding
    /// them is linear in what is sent (a scan of the list per new token was O(old × new)).
    @Test func downloadTokensAreCappedAndMergedLinearly() async throws {
        try await withRouterClient(storage: try await Self.storage()) { client in
            let (uploaded, object) = try await upload(client, "t/cap.txt", "x", headers: Self.admin)
            #expect(uploaded == .ok)
            let first = try #require(object["downloadTokens"]?.stringValue)
            let path = "/v0/b/demo.appspot.com/o/t%2Fcap.txt"
            func tokens() async throws -> [String] {
                let (_, text, _) = try await client.send(.get, path, nil, headers: Self.admin)
                return (try JSONValue.parse(text)["downloadTokens"]?.stringValue ?? "").split(separator: ",").map(String.init)
            }
            func patch(_ tokens: [String]) async throws -> (HTTPResponse.Status, String) {
                let body = JSONValue.object([JSONMember("downloadTokens", .string(tokens.joined(separator: ",")))])
                let (status, text, _) = try await client.send(.patch, path, String(decoding: body.jsonBytes, as: UTF8.self), headers: Self.admin)
                return (status, text)
            }
            let cap = ObjectRecord.maxDownloadTokens
            // Up to the cap (repeats and the one already there count once), then nothing more is added.
            let upToCap = (1..<cap).map { "t\($0)" }
            #expect(try await patch(upToCap + upToCap + [first]).0 == .ok)
            #expect(try await tokens() == [first] + upToCap)
            let (refused, message) = try await patch(["one-more"])
            #expect(refused == .badRequest)
            #expect(message.contains("at most \(cap) download tokens"))
            #expect(try await client.send(.post, path + "?create_token=true", nil, headers: Self.admin).0 == .badRequest)
            #expect(try await patch(["t1", first]).0 == .ok, "tokens it already has add nothing")
            #expect(try await tokens().count == cap)
            // A token still opens the object; deleting one makes room.
            #expect(try await client.send(.get, path + "?token=t7", nil, headers: [:]).0 == .ok)
            #expect(try await client.send(.post, path + "?delete_token=t1", nil, headers: Self.admin).0 == .ok)
            #expect(try await client.send(.post, path + "?create_token=true", nil, headers: Self.admin).0 == .ok)
            #expect(try await tokens().count == cap)

            // 100,000 new tokens in one request (just under the 1 MiB metadata limit): refused after one pass over them, not 100,000 scans of the list.
            let many = (0..<100_000).map { "m\($0)" }
            #expect(try await patch(many).0 == .badRequest)
            #expect(try await tokens().count == cap)
        }
    }
}
