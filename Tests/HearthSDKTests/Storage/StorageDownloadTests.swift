import Foundation
@testable import Hearth
import class HearthStorage.StorageService
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `data(maxSize:onProgress:)` and `write(toFile:onProgress:)`: downloads an app can show a
/// progress bar for, and downloads into a file that never hold the object in memory.
@Suite("Storage downloads with progress")
struct StorageDownloadTests {
    typealias ProgressLog = StorageProgressTests.ProgressLog

    /// A fresh folder for downloaded files; removed by the caller.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-download-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func contents(of folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    /// Uploads `count` random bytes to `path`.
    static func stored(_ storage: Storage, _ path: String, count: Int) async throws -> Data {
        let bytes = StorageResumableTests.randomBytes(count)
        try await storage.reference(path).putData(bytes)
        return bytes
    }

    @Test func dataReportsItsBytesAsTheyArrive() async throws {
        try await withAuthStorageServer { server in
            let storage = try await StorageObjectTests.signedIn(server)
            let bytes = try await Self.stored(storage, "photos/big.jpg", count: 3 * 1024 * 1024 + 17)
            let log = ProgressLog()
            let data = try await storage.reference("photos/big.jpg").data(maxSize: 4 * 1024 * 1024, onProgress: log.handler)
            #expect(data == bytes)
            let atReturn = log.all.count
            StorageProgressTests.checkShape(log, total: bytes.count)
            // The bytes arrive in many pieces, and each one is reported.
            #expect(atReturn > 10, "\(log.completed)")
            #expect(log.all.last?.fractionCompleted == 1)
            try await Task.sleep(nanoseconds: 200_000_000)
            #expect(log.all.count == atReturn, "nothing is reported after data(maxSize:) returned")
        }
    }

    @Test func anObjectOverTheLimitFailsWithoutAFinalReport() async throws {
        try await withAuthStorageServer { server in
            let storage = try await StorageObjectTests.signedIn(server)
            let bytes = try await Self.stored(storage, "photos/huge.jpg", count: 2 * 1024 * 1024)
            let log = ProgressLog()
            let error = await #expect(throws: StorageError.self) {
                try await storage.reference("photos/huge.jpg").data(maxSize: 100_000, onProgress: log.handler)
            }
            #expect(error?.code == .downloadSizeExceeded)
            #expect(error?.message == "The object is larger than the 100000 bytes allowed.")
            // The download stopped as soon as more than maxSize bytes came; the object's size is known from the answer.
            #expect(log.completed.first == 0)
            #expect((log.completed.last ?? .max) <= 100_000, "\(log.completed)")
            #expect(Set(log.all.map(\.totalBytes)) == [Int64(bytes.count)])
            let negative = await #expect(throws: StorageError.self) {
                try await storage.reference("photos/huge.jpg").data(maxSize: -1, onProgress: log.handler)
            }
            #expect(negative?.code == .invalidArgument)
        }
    }

    @Test func aDownloadWithoutAHandlerIsUnchanged() async throws {
        try await withAuthStorageServer { server in
            let storage = try await StorageObjectTests.signedIn(server)
            let bytes = try await Self.stored(storage, "notes.txt", count: 1000)
            #expect(try await storage.reference("notes.txt").data(maxSize: 1000) == bytes)
            let error = await #expect(throws: StorageError.self) { try await storage.reference("notes.txt").data(maxSize: 999) }
            #expect(error?.code == .downloadSizeExceeded)
        }
    }

    @Test func errorsAreTypedAndReportNothing() async throws {
        try await withAuthStorageServer { server in
            let storage = try await StorageObjectTests.signedIn(server)
            let log = ProgressLog()
            let missing = await #expect(throws: StorageError.self) {
                try await storage.reference("nothing.bin").data(maxSize: 1000, onProgress: log.handler)
            }
            #expect(missing?.code == .objectNotFound)
            // Signed out: the default rules refuse the read.
            _ = try await Self.stored(storage, "private.bin", count: 10)
            let outsider = Storage(options: server.options(), auth: server.auth())
            let refused = await #expect(throws: StorageError.self) {
                try await outsider.reference("private.bin").data(maxSize: 1000, onProgress: log.handler)
            }
            #expect(refused?.code == .unauthenticated || refused?.code == .unauthorized, "\(String(describing: refused))")
            #expect(log.all.isEmpty, "\(log.completed)")
        }
    }

    @Test func anEmptyObjectReportsOnceAsComplete() async throws {
        try await withAuthStorageServer { server in
            let storage = try await StorageObjectTests.signedIn(server)
            try await storage.reference("empty.txt").putData(Data())
            let log = ProgressLog()
            #expect(try await storage.reference("empty.txt").data(maxSize: 10, onProgress: log.handler).isEmpty)
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = try await storage.reference("empty.txt").write(toFile: folder.appendingPathComponent("empty.txt"), onProgress: log.handler)
            #expect(try Data(contentsOf: file).isEmpty)
            // The ranged GET of an empty object is a 416 (no byte 0), and the file download a 200 of 0 bytes: each
            // reports 0 of 0 once.
            #expect(log.all == [StorageProgress(completedBytes: 0, totalBytes: 0), StorageProgress(completedBytes: 0, totalBytes: 0)])
        }
    }

    @Test func writeToFileStreamsTheObjectIntoPlace() async throws {
        try await withAuthStorageServer { server in
            let storage = try await StorageObjectTests.signedIn(server)
            let bytes = try await Self.stored(storage, "listings/1/photo.jpg", count: 5 * 1024 * 1024 + 3)
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let destination = folder.appendingPathComponent("photo.jpg")
            let log = ProgressLog()
            let written = try await storage.reference("listings/1/photo.jpg").write(toFile: destination, onProgress: log.handler)
            #expect(written == destination)
            #expect(try Data(contentsOf: destination) == bytes)
            #expect(try Self.contents(of: folder) == ["photo.jpg"], "no partial file is left")
            StorageProgressTests.checkShape(log, total: bytes.count)
            #expect(log.all.count > 10, "\(log.completed)")
        }
    }

    @Test func aFailedDownloadLeavesTheFileAsItWas() async throws {
        try await withAuthStorageServer { server in
            let storage = try await StorageObjectTests.signedIn(server)
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let destination = folder.appendingPathComponent("avatar.jpg")
            try Data("old avatar".utf8).write(to: destination)
            let error = await #expect(throws: StorageError.self) {
                try await storage.reference("users/none/avatar.jpg").write(toFile: destination)
            }
            #expect(error?.code == .objectNotFound)
            #expect(try Data(contentsOf: destination) == Data("old avatar".utf8))
            #expect(try Self.contents(of: folder) == ["avatar.jpg"], "no partial file is left")
            // A download that succeeds replaces it.
            let bytes = try await Self.stored(storage, "users/me/avatar.jpg", count: 40_000)
            try await storage.reference("users/me/avatar.jpg").write(toFile: destination)
            #expect(try Data(contentsOf: destination) == bytes)
            #expect(try Self.contents(of: folder) == ["avatar.jpg"])
        }
    }

    @Test func aDestinationThatCannotBeWrittenIsAnInvalidArgument() async throws {
        try await withAuthStorageServer { server in
            let storage = try await StorageObjectTests.signedIn(server)
            _ = try await Self.stored(storage, "a.bin", count: 10)
            let nowhere = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-no-such-folder-\(UUID().uuidString)/a.bin")
            let error = await #expect(throws: StorageError.self) { try await storage.reference("a.bin").write(toFile: nowhere) }
            #expect(error?.code == .localFile)
            let web = await #expect(throws: StorageError.self) {
                try await storage.reference("a.bin").write(toFile: URL(string: "https://example.com/a.bin")!)
            }
            #expect(web?.code == .invalidArgument)
        }
    }

    /// Starts `download` in a task whose progress handler logs each report to `log` and cancels the task at
    /// the first report of at least `atOrAbove` bytes.
    static func cancelledFromItsHandler<T: Sendable>(
        log: ProgressLog, atOrAbove: Int64,
        _ download: @escaping @Sendable (@escaping @Sendable (StorageProgress) -> Void) async throws -> T
    ) -> Task<T, any Error> {
        let slot = Mutex<Task<T, any Error>?>(nil)
        let handler: @Sendable (StorageProgress) -> Void = { progress in
            log.handler(progress)
            if progress.completedBytes >= atOrAbove { slot.withLock { $0 }?.cancel() }
        }
        // Held until the task is stored, so the handler can always find it.
        return slot.withLock { stored in
            let task = Task { try await download(handler) }
            stored = task
            return task
        }
    }

    /// Cancelling from the progress handler itself, the way an app's "stop" inside the handler would,
    /// at the first report (0, when the answer's head came) or once bytes arrived: the download stops
    /// with `.cancelled`, no report follows, and no file is left. URLSession may still deliver a body
    /// that had already arrived; the download must not succeed with it.
    @Test(arguments: [Int64(0), 1])
    func cancellingADownloadStopsItAndLeavesNoFile(cancelAtOrAbove: Int64) async throws {
        try await withAuthStorageServer { server in
            let storage = try await StorageObjectTests.signedIn(server)
            let bytes = try await Self.stored(storage, "big.bin", count: 6 * 1024 * 1024)
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let destination = folder.appendingPathComponent("big.bin")
            for round in 0..<3 {
                let log = ProgressLog()
                let task = Self.cancelledFromItsHandler(log: log, atOrAbove: cancelAtOrAbove) { handler in
                    try await storage.reference("big.bin").write(toFile: destination, onProgress: handler)
                }
                let error = await #expect(throws: StorageError.self, "round \(round)") { try await task.value }
                #expect(error?.code == .cancelled)
                let atThrow = log.completed
                #expect((atThrow.last ?? .max) < Int64(bytes.count), "\(atThrow)")
                try await Task.sleep(nanoseconds: 100_000_000)
                #expect(log.completed == atThrow, "nothing is reported after the download threw")
                #expect(try Self.contents(of: folder).isEmpty, "neither the file nor a partial file exists")
            }
            // The same for a download into memory.
            let log = ProgressLog()
            let task = Self.cancelledFromItsHandler(log: log, atOrAbove: cancelAtOrAbove) { handler in
                try await storage.reference("big.bin").data(maxSize: 10 << 20, onProgress: handler)
            }
            let error = await #expect(throws: StorageError.self) { try await task.value }
            #expect(error?.code == .cancelled)
        }
    }

    @Test func aDownloadCancelledBeforeItStartsLeavesNoFile() async throws {
        try await withAuthStorageServer { server in
            let storage = try await StorageObjectTests.signedIn(server)
            _ = try await Self.stored(storage, "small.bin", count: 1000)
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let log = ProgressLog()
            let task = Task {
                try await storage.reference("small.bin").write(toFile: folder.appendingPathComponent("small.bin"), onProgress: log.handler)
            }
            task.cancel()
            let error = await #expect(throws: StorageError.self) { try await task.value }
            #expect(error?.code == .cancelled)
            #expect(try Self.contents(of: folder).isEmpty)
            #expect(log.all.isEmpty, "\(log.completed)")
        }
    }

    /// Partial files a crash left behind are removed by the next download to the same file once
    /// they are an hour old; a fresh one (a download in progress) and files that only look alike stay.
    @Test func partialFilesLeftByACrashAreRemovedLater() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("photo.jpg")
        let names = [
            ".photo.jpg.\(UUID().uuidString).partial",  // old: removed
            ".photo.jpg.\(UUID().uuidString).partial",  // fresh: kept
            ".photo.jpg.not-a-uuid.partial",  // not one of ours: kept
            ".other.jpg.\(UUID().uuidString).partial",  // another destination's: kept
        ]
        for name in names { try Data("x".utf8).write(to: folder.appendingPathComponent(name)) }
        let old = Date().addingTimeInterval(-2 * StorageReference.stalePartialAge)
        for index in [0, 2, 3] {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: folder.appendingPathComponent(names[index]).path)
        }
        StorageReference.removeStalePartials(of: destination)
        #expect(try Self.contents(of: folder) == names.dropFirst().sorted())
    }

    /// Bytes that do not match the MD5 the server sent (`x-goog-hash`) fail the download, and the
    /// file is not replaced. The server never sends such bytes, so a stub answers here.
    @Test func bytesThatDoNotMatchTheirMD5AreRefused() async throws {
        let body = Data("corrupted in transit".utf8)
        let wrong = MD5.base64(Data("the stored bytes".utf8))
        StubStorageProtocol.answer(
            "/v0/b/demo.appspot.com/o/bad.bin",
            status: 200, headers: ["x-goog-hash": "crc32c=AAAAAA==,md5=\(wrong)", "Content-Length": "\(body.count)"], body: body)
        let storage = Storage(options: HearthOptions(serverURL: URL(string: "http://stub.invalid")!, projectID: "demo"), session: StubStorageProtocol.session)
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("bad.bin")
        try Data("kept".utf8).write(to: destination)
        let log = ProgressLog()
        let error = await #expect(throws: StorageError.self) { try await storage.reference("bad.bin").write(toFile: destination, onProgress: log.handler) }
        #expect(error?.code == .checksumMismatch)
        #expect(try Data(contentsOf: destination) == Data("kept".utf8))
        #expect(try Self.contents(of: folder) == ["bad.bin"], "no partial file is left")
        let inMemory = await #expect(throws: StorageError.self) { try await storage.reference("bad.bin").data(maxSize: 100, onProgress: log.handler) }
        #expect(inMemory?.code == .checksumMismatch)
        // With the right hash, the same bytes are taken.
        StubStorageProtocol.answer(
            "/v0/b/demo.appspot.com/o/good.bin",
            status: 200, headers: ["x-goog-hash": "md5=\(MD5.base64(body))", "Content-Length": "\(body.count)"], body: body)
        try await storage.reference("good.bin").write(toFile: destination)
        #expect(try Data(contentsOf: destination) == body)
    }

    /// An object stored gzip-compressed comes compressed to a client that accepts gzip: its size
    /// after inflation is not known until the end, so the reports say -1 until the last one.
    @Test func aCompressedDownloadLearnsItsSizeAtTheEnd() async throws {
        try await withAuthStorageServer { server in
            let storage = try await StorageObjectTests.signedIn(server)
            let text = Data(String(repeating: "a wish list entry, ", count: 3000).utf8)
            try await storage.reference("lists/wishes.txt").putData(
                Gzip.stored(text), metadata: StorageMetadata(contentType: "text/plain", contentEncoding: "gzip"))
            let log = ProgressLog()
            let data = try await storage.reference("lists/wishes.txt").data(maxSize: 1 << 20, onProgress: log.handler)
            #expect(data == text)
            #expect(log.all.first == StorageProgress(completedBytes: 0, totalBytes: -1))
            #expect(log.all.first?.fractionCompleted == 0)
            #expect(log.all.last == StorageProgress(completedBytes: Int64(text.count), totalBytes: Int64(text.count)))
            let totalsBeforeTheLast = Set(log.all.dropLast().map(\.totalBytes))
            #expect(totalsBeforeTheLast == [-1], "\(log.all)")
        }
    }

    @Test func theReporterLearnsAnUnknownSizeAtTheEnd() {
        let log = ProgressLog()
        let reporter = ProgressReporter(totalBytes: -1, handler: log.handler)
        reporter.report(0)
        reporter.report(700)
        reporter.report(5000)
        reporter.finish(at: 5000)
        reporter.report(6000)
        #expect(log.all.map(\.totalBytes) == [-1, -1, -1, 5000])
        #expect(log.completed == [0, 700, 5000, 5000])
        #expect(log.all.map(\.fractionCompleted) == [0, 0, 0, 1])
    }
}

/// Answers requests to `http://stub.invalid` with what a test set for the URL's path.
final class StubStorageProtocol: URLProtocol {
    private struct Answer {
        var status: Int
        var headers: [String: String]
        var body: Data
    }

    private static let answers = Mutex<[String: Answer]>([:])

    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StubStorageProtocol.self]
        return URLSession(configuration: configuration)
    }()

    static func answer(_ path: String, status: Int, headers: [String: String], body: Data) {
        answers.withLock { $0[path] = Answer(status: status, headers: headers, body: body) }
    }

    override class func canInit(with request: URLRequest) -> Bool { request.url?.host == "stub.invalid" }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let url = request.url, let answer = Self.answers.withLock({ $0[url.path] }),
            let response = HTTPURLResponse(url: url, statusCode: answer.status, httpVersion: "HTTP/1.1", headerFields: answer.headers)
        else {
            client?.urlProtocol(self, didFailWithError: URLError(.fileDoesNotExist))
            return
        }
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: answer.body)
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}
}

/// A gzip member with the data in stored (uncompressed) deflate blocks: valid gzip without a compressor.
enum Gzip {
    static func stored(_ data: Data) -> Data {
        var out = Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF])
        let bytes = [UInt8](data)
        var offset = 0
        repeat {
            let count = min(65_535, bytes.count - offset)
            let last: UInt8 = offset + count == bytes.count ? 1 : 0
            out.append(last)
            out.append(contentsOf: [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)])
            out.append(contentsOf: bytes[offset..<(offset + count)])
            offset += count
        } while offset < bytes.count
        for value in [crc32(bytes), UInt32(truncatingIfNeeded: bytes.count)] {
            out.append(contentsOf: (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
        }
        return out
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
