import Foundation
import HTTPTypes
import HearthCore
import HearthServer
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Which revision of an object a request acts on (generation selectors and source preconditions),
/// finalized resumable sessions, and conditional and ranged downloads.
@Suite("Storage revisions and conditional requests")
struct StorageRevisionTests {
    static let bucket = "demo.appspot.com"
    static let objects = "/storage/v1/b/demo.appspot.com/o"

    /// A GCS media upload; returns the new object's generation.
    func put(_ client: any TestClientProtocol, _ name: String, _ body: String) async throws -> String {
        let (status, text, _) = try await client.send(
            .post, "/upload/storage/v1/b/\(Self.bucket)/o?uploadType=media&name=\(name)", body, headers: StorageRouterTests.admin)
        #expect(status == .ok, "\(text)")
        return try #require(try JSONValue.parse(text)["generation"]?.stringValue)
    }

    @Test("a request naming an old generation gets 404 and leaves the newer object alone")
    func staleGenerationsAreGone() async throws {
        try await withRouterClient(storage: try await StorageRouterTests.storage()) { client in
            let old = try await put(client, "doc", "first")
            let new = try await put(client, "doc", "second")
            #expect(old != new)
            let admin = StorageRouterTests.admin
            #expect(try await client.send(.get, Self.objects + "/doc?generation=\(old)", headers: admin).0 == .notFound)
            #expect(try await client.send(.get, Self.objects + "/doc?generation=\(new)", headers: admin).0 == .ok)
            #expect(try await client.send(.get, "/download/storage/v1/b/\(Self.bucket)/o/doc?alt=media&generation=\(old)", headers: admin).0 == .notFound)
            let (patched, _, _) = try await client.send(.patch, Self.objects + "/doc?generation=\(old)", #"{"metadata":{"k":"v"}}"#, headers: admin)
            #expect(patched == .notFound)
            #expect(try await client.send(.delete, Self.objects + "/doc?generation=\(old)", headers: admin).0 == .notFound)
            #expect(try await client.send(.get, Self.objects + "/doc?generation=abc", headers: admin).0 == .badRequest)

            let (_, current, _) = try await client.send(.get, Self.objects + "/doc", headers: admin)
            let resource = try JSONValue.parse(current)
            #expect(resource["generation"] == .string(new))
            #expect(resource["metadata"] == nil, "the stale PATCH changed nothing")
            #expect(try await client.send(.get, Self.objects + "/doc?alt=media", headers: admin).1 == "second")
            #expect(try await client.send(.delete, Self.objects + "/doc?generation=\(new)", headers: admin).0 == .noContent)
        }
    }

    @Test("copy and rewrite check the source's preconditions and generation")
    func copyChecksTheSource() async throws {
        try await withRouterClient(storage: try await StorageRouterTests.storage()) { client in
            let generation = try #require(Int64(try await put(client, "src", "bytes")))
            let admin = StorageRouterTests.admin
            let copyTo = Self.objects + "/src/copyTo/b/\(Self.bucket)/o/dst"
            let rewriteTo = Self.objects + "/src/rewriteTo/b/\(Self.bucket)/o/dst"
            #expect(try await client.send(.post, copyTo + "?ifSourceGenerationMatch=\(generation + 1)", "{}", headers: admin).0 == .preconditionFailed)
            #expect(try await client.send(.post, copyTo + "?ifSourceGenerationNotMatch=\(generation)", "{}", headers: admin).0 == .preconditionFailed)
            #expect(try await client.send(.post, rewriteTo + "?ifSourceMetagenerationMatch=99", "{}", headers: admin).0 == .preconditionFailed)
            #expect(try await client.send(.post, copyTo + "?sourceGeneration=1", "{}", headers: admin).0 == .notFound)
            #expect(try await client.send(.get, Self.objects + "/dst", headers: admin).0 == .notFound, "no refused copy wrote anything")
            #expect(try await client.send(.post, copyTo + "?ifSourceGenerationMatch=\(generation)&sourceGeneration=\(generation)", "{}", headers: admin).0 == .ok)
            #expect(try await client.send(.get, Self.objects + "/dst?alt=media", headers: admin).1 == "bytes")

            let compose = #"{"sourceObjects":[{"name":"src","objectPreconditions":{"ifGenerationMatch":"\#(generation + 1)"}}]}"#
            #expect(try await client.send(.post, Self.objects + "/joined/compose", compose, headers: admin).0 == .preconditionFailed)
        }
    }

    @Test("a finalized v0 session answers final to every command, even after its object was replaced")
    func finalizedSessionsStayFinal() async throws {
        try await withRouterClient(dev: true, storage: try await StorageRouterTests.storage()) { client in
            let session = try await startResumable(client, name: "f/x.txt", declaring: nil)
            #expect(try await session.command("upload, finalize", offset: 0, "hello").0 == .ok)

            let (late, _, lateHeaders) = try await session.command("upload", offset: 5, "more")
            #expect(late == .ok)
            #expect(lateHeaders[Self.status] == "final", "bytes after finalizing are not accepted as if the upload went on")

            // Another upload replaces the object; the session still reports what it stored.
            let (_, _) = try await StorageRouterTests().upload(client, "f/x.txt", "replaced!", headers: StorageRouterTests.admin)
            let (queried, text, headers) = try await session.command("query")
            #expect(queried == .ok)
            #expect(headers[Self.status] == "final")
            #expect(headers[HTTPField.Name("X-Goog-Upload-Size-Received")!] == "5")
            #expect(try JSONValue.parse(text)["size"] == .string("5"))
            let (again, _, againHeaders) = try await session.command("finalize")
            #expect(again == .ok)
            #expect(againHeaders[Self.status] == "final")
            #expect(try await client.send(.get, "/v0/b/\(Self.bucket)/o/f%2Fx.txt?alt=media").1 == "replaced!")
        }
    }

    @Test("finalizing before the declared size arrived is refused and the session can still finish")
    func shortFinalizeIsRefused() async throws {
        try await withRouterClient(dev: true, storage: try await StorageRouterTests.storage()) { client in
            let session = try await startResumable(client, name: "short.txt", declaring: 10)
            let (refused, _, headers) = try await session.command("upload, finalize", offset: 0, "01234")
            #expect(refused == .badRequest)
            #expect(headers[Self.status] == "active")
            #expect(headers[HTTPField.Name("X-Goog-Upload-Size-Received")!] == "5")
            #expect(try await client.send(.get, "/v0/b/\(Self.bucket)/o/short.txt").0 == .notFound, "nothing was stored")
            let (done, text, _) = try await session.command("upload, finalize", offset: 5, "56789")
            #expect(done == .ok)
            #expect(try JSONValue.parse(text)["size"] == .string("10"))
        }
    }

    @Test("downloads: HEAD has the length, ETags make requests conditional, unusable ranges are ignored")
    func conditionalAndRangedDownloads() async throws {
        try await withRouterClient(dev: true, storage: try await StorageRouterTests.storage()) { client in
            #expect(try await StorageRouterTests().upload(client, "d.txt", "0123456789", headers: StorageRouterTests.admin).0 == .ok)
            let media = "/v0/b/\(Self.bucket)/o/d.txt?alt=media"
            func get(_ uri: String, _ extra: HTTPFields) async throws -> (HTTPResponse.Status, String, HTTPFields) {
                var h = StorageRouterTests.admin
                h.append(contentsOf: extra)
                return try await client.send(.get, uri, headers: h)
            }
            let (headStatus, headBody, head) = try await client.send(.head, media)
            #expect(headStatus == .ok)
            #expect(head[.contentLength] == "10")
            #expect(headBody.isEmpty)
            let etag = try #require(head[.eTag])

            #expect(try await get(media, [.ifNoneMatch: etag]).0 == .notModified)
            #expect(try await get(media, [.ifNoneMatch: "\"other\", W/\(etag)"]).0 == .notModified)
            #expect(try await get(media, [.ifNoneMatch: "\"other\""]).1 == "0123456789")
            #expect(try await get(media, [.ifMatch: "\"other\""]).0 == .preconditionFailed)
            #expect(try await get(media, [.ifMatch: etag]).1 == "0123456789")

            for ignored in ["items=0-3", "bytes=abc", "bytes=0-1,4-5", "bytes=5-2"] {
                let (status, body, _) = try await get(media, [.range: ignored])
                #expect(status == .ok, "\(ignored)")
                #expect(body == "0123456789", "\(ignored)")
            }
            let (partial, slice, sliced) = try await get(media, [.range: "bytes=2-4"])
            #expect(partial == .partialContent)
            #expect(slice == "234")
            #expect(sliced[.contentRange] == "bytes 2-4/10")
            #expect(try await get(media, [.range: "bytes=-3"]).1 == "789")
            let (huge, tail, _) = try await get(media, [.range: "bytes=7-99999999999999999999"])
            #expect(huge == .partialContent, "a last position past Int64 is clamped to the end")
            #expect(tail == "789")
            #expect(try await get(media, [.range: "bytes=10-"]).0 == .rangeNotSatisfiable)
            #expect(try await get(media, [.range: "bytes=-0"]).0 == .rangeNotSatisfiable)
        }
    }

    @Test("a GCS multipart upload is stored under ?name= when the metadata names another object")
    func queryNameWins() async throws {
        try await withRouterClient(storage: try await StorageRouterTests.storage()) { client in
            let body = "--b\r\nContent-Type: application/json\r\n\r\n{\"name\":\"json-name\"}\r\n--b\r\nContent-Type: text/plain\r\n\r\nhi\r\n--b--\r\n"
            var h = StorageRouterTests.admin
            h[.contentType] = "multipart/related; boundary=b"
            let (status, text, _) = try await client.send(.post, "/upload/storage/v1/b/\(Self.bucket)/o?uploadType=multipart&name=query-name", body, headers: h)
            #expect(status == .ok)
            #expect(try JSONValue.parse(text)["name"] == .string("query-name"))
            #expect(try await client.send(.get, Self.objects + "/json-name", headers: StorageRouterTests.admin).0 == .notFound)
        }
    }

    @Test("PUT to a signed upload URL stores the object, with the admin credential outside --dev")
    func signedURLUploads() async throws {
        try await withRouterClient(storage: try await StorageRouterTests.storage()) { client in
            _ = try await put(client, "seed", "x")  // the bucket exists
            let url = "/\(Self.bucket)/up/signed.txt?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Signature=00"
            #expect(try await client.send(.put, url, "nope", headers: [.contentType: "text/plain"]).0 == .unauthorized)
            var h = StorageRouterTests.admin
            h[.contentType] = "text/plain"
            h[HTTPField.Name("x-goog-meta-colour")!] = "blue"
            let (status, body, headers) = try await client.send(.put, url, "signed bytes", headers: h)
            #expect(status == .ok)
            #expect(body.isEmpty)
            // The XML API's ETag is the hex MD5 (this one from `md5sum`).
            #expect(headers[.eTag] == "\"e742f58c0984bbd5dd1069da3484ae46\"")
            let (_, text, _) = try await client.send(.get, Self.objects + "/up%2Fsigned.txt", headers: StorageRouterTests.admin)
            let resource = try JSONValue.parse(text)
            #expect(resource["contentType"] == .string("text/plain"))
            #expect(resource["metadata"]?["colour"] == .string("blue"))
            #expect(try await client.send(.get, "/\(Self.bucket)/up/signed.txt", headers: StorageRouterTests.admin).1 == "signed bytes")
        }
    }

    // MARK: Support

    static let status = HTTPField.Name("X-Goog-Upload-Status")!

    struct Resumable {
        let client: any TestClientProtocol
        let path: String

        func command(_ name: String, offset: Int? = nil, _ body: String? = nil) async throws -> (HTTPResponse.Status, String, HTTPFields) {
            var h = StorageRouterTests.admin
            h[HTTPField.Name("X-Goog-Upload-Command")!] = name
            if let offset { h[HTTPField.Name("X-Goog-Upload-Offset")!] = String(offset) }
            return try await client.send(.post, path, body, headers: h)
        }
    }

    func startResumable(_ client: any TestClientProtocol, name: String, declaring total: Int?) async throws -> Resumable {
        var start = StorageRouterTests.admin
        start[HTTPField.Name("X-Goog-Upload-Protocol")!] = "resumable"
        start[HTTPField.Name("X-Goog-Upload-Command")!] = "start"
        start[HTTPField.Name("X-Goog-Upload-Header-Content-Type")!] = "text/plain"
        if let total { start[HTTPField.Name("X-Goog-Upload-Header-Content-Length")!] = String(total) }
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let (status, _, headers) = try await client.send(.post, "/v0/b/\(Self.bucket)/o?name=\(encoded)", "{}", headers: start)
        #expect(status == .ok)
        let url = try #require(headers[HTTPField.Name("X-Goog-Upload-URL")!])
        return Resumable(client: client, path: String(url[try #require(url.range(of: "/v0/")).lowerBound...]))
    }
}
