import Foundation
import HearthTesting
import NIOHTTP1
import Testing

/// `hearth storage export|import`: a bucket into a folder and back, bytes and metadata kept.
@Suite("hearth storage export/import", .serialized)
struct DBExportStorageTests {
    @Test("a bucket exported to a folder and imported into a fresh server has the same bytes, content type and metadata")
    func roundTrip() async throws {
        let a = try await HearthProcess.serve(data: temporaryDataFolder())
        let b = try await HearthProcess.serve(data: temporaryDataFolder())
        let bucket = "/storage/v1/b/demo.appspot.com/o"
        let big = String(repeating: "0123456789abcdef", count: 200_000)  // 3.2 MB, several read chunks
        var (status, _) = try await a.request(
            .POST, "/upload/storage/v1/b/demo.appspot.com/o?uploadType=media&name=dir%2Fa%20b.bin", body: big, contentType: "image/png")
        #expect(status == 200)
        (status, _) = try await a.request(
            .PATCH, "\(bucket)/dir%2Fa%20b.bin", body: #"{"cacheControl":"max-age=60","contentDisposition":"inline","metadata":{"owner":"ann","firebaseStorageDownloadTokens":"tok-1"}}"#,
            contentType: "application/json")
        #expect(status == 200)
        (status, _) = try await a.request(.POST, "/upload/storage/v1/b/demo.appspot.com/o?uploadType=media&name=top.txt", body: "hello", contentType: "text/plain")
        #expect(status == 200)

        let folder = temporaryDataFolder() + "/bucket"
        for (command, server) in [("export", a), ("import", b)] {
            let p = try HearthProcess(["storage", command, "--url", "http://127.0.0.1:\(server.port)", folder])
            let code = try await p.exitCode(within: 60)
            #expect(code == 0, "\(p.stderrText)")
        }
        #expect(try String(contentsOfFile: folder + "/objects/top.txt", encoding: .utf8) == "hello")
        for name in ["dir%2Fa%20b.bin", "top.txt"] {
            let before = try JSONSerialization.jsonObject(with: Data(try await a.request(.GET, "\(bucket)/\(name)").1.utf8)) as? [String: Any]
            let after = try JSONSerialization.jsonObject(with: Data(try await b.request(.GET, "\(bucket)/\(name)").1.utf8)) as? [String: Any]
            for field in ["size", "md5Hash", "crc32c", "contentType", "cacheControl", "contentDisposition"] {
                #expect(after?[field] as? String == before?[field] as? String, "\(name) \(field)")
            }
            #expect(after?["metadata"] as? [String: String] == before?["metadata"] as? [String: String])
        }
        // The download token still opens the file through the Firebase API.
        let (got, body) = try await b.request(.GET, "/v0/b/demo.appspot.com/o/dir%2Fa%20b.bin?alt=media&token=tok-1", token: nil)
        #expect(got == 200)
        #expect(body == big)
        a.signal(SIGTERM)
        b.signal(SIGTERM)
    }
}
