import Foundation
@testable import Hearth
import class HearthStorage.StorageService
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `putData(_:metadata:onProgress:)`: what an app's upload progress bar sees.
@Suite("Storage upload progress")
struct StorageProgressTests {
    /// Every report a handler received, in order.
    final class ProgressLog: Sendable {
        private let reports = Mutex<[StorageProgress]>([])

        var handler: @Sendable (StorageProgress) -> Void {
            { [self] progress in reports.withLock { $0.append(progress) } }
        }

        var all: [StorageProgress] { reports.withLock { $0 } }
        var completed: [Int64] { all.map(\.completedBytes) }
    }

    /// Reports start at 0, never go back, never pass the total, and end at the total.
    static func checkShape(_ log: ProgressLog, total: Int) {
        let completed = log.completed
        #expect(completed.first == 0)
        #expect(completed.last == Int64(total))
        let forward = zip(completed, completed.dropFirst()).allSatisfy(<)
        #expect(forward, "reports move forward: \(completed)")
        #expect(Set(log.all.map(\.totalBytes)) == [Int64(total)])
    }

    @Test func aMultipartUploadReportsItsBytesAsTheyGo() async throws {
        try await withAuthStorageServer { server in
            let storage = try await StorageObjectTests.signedIn(server)
            let bytes = StorageResumableTests.randomBytes(3 * 1024 * 1024)
            let log = ProgressLog()
            let metadata = try await storage.reference("photos/big.jpg").putData(bytes, onProgress: log.handler)
            #expect(metadata.size == Int64(bytes.count))
            let atReturn = log.all.count
            Self.checkShape(log, total: bytes.count)
            #expect(log.all.last?.fractionCompleted == 1)
            try await Task.sleep(nanoseconds: 200_000_000)
            #expect(log.all.count == atReturn, "nothing is reported after putData returned")
        }
    }

    @Test func aResumableUploadReportsAcrossItsChunks() async throws {
        try await withAuthStorageServer { server in
            let auth = server.auth()
            try await auth.signInAnonymously()
            let storage = Storage(options: server.options(), auth: auth, session: .shared, resumableThreshold: 1000, initialChunkSize: 256 * 1024)
            let bytes = StorageResumableTests.randomBytes(1536 * 1024 + 99)
            let log = ProgressLog()
            let metadata = try await storage.reference("chunks.bin").putData(bytes, onProgress: log.handler)
            #expect(metadata.md5Hash == MD5.base64(bytes))
            Self.checkShape(log, total: bytes.count)
            // Chunks of 256 KiB, then 512 KiB, then the rest: each chunk's end is passed exactly.
            #expect(log.completed.contains(256 * 1024), "\(log.completed)")
            #expect(log.completed.contains(768 * 1024), "\(log.completed)")
        }
    }

    /// URLSession's sent-bytes reports reach the reporter. They come on URLSession's delegate queue and
    /// may arrive after the answer, when `putData` drops them (in one full test run a 700 KiB upload's
    /// handler saw only 0 and the total), so the live uploads above cannot insist on seeing them; this
    /// waits for them.
    @Test func aChunkRequestPassesURLSessionsSentBytesOn() async throws {
        try await withAuthStorageServer { server in
            let storage = try await StorageObjectTests.signedIn(server)
            let bytes = StorageResumableTests.randomBytes(1024 * 1024 + 5)
            let log = ProgressLog()
            let reporter = ProgressReporter(totalBytes: Int64(bytes.count), handler: log.handler)
            let upload = try ResumableUpload(
                reference: storage.reference("sent.bin"), data: bytes, metadata: StorageMetadata(), md5: MD5.base64(bytes), progress: reporter)
            let session = try await upload.start()
            #expect(try await upload.sendChunk(session: session, range: 0..<(256 * 1024), command: "upload") == nil)
            await expectEventually("\(log.completed)") { log.completed.last == 256 * 1024 }
            #expect(try await upload.sendChunk(session: session, range: 256 * 1024..<(768 * 1024), command: "upload") == nil)
            // The second chunk's bytes, placed at its offset.
            await expectEventually("\(log.completed)") { log.completed.last == 768 * 1024 }
            let outside = log.completed.filter { $0 > 768 * 1024 }
            #expect(outside.isEmpty, "\(log.completed)")
        }
    }

    /// The same for a multipart upload: the reports reach the data's size (the metadata part before
    /// it does not count).
    @Test func aMultipartRequestPassesURLSessionsSentBytesOn() async throws {
        try await withAuthStorageServer { server in
            let storage = try await StorageObjectTests.signedIn(server)
            let bytes = StorageResumableTests.randomBytes(2 * 1024 * 1024)
            let log = ProgressLog()
            let reporter = ProgressReporter(totalBytes: Int64(bytes.count), handler: log.handler)
            let metadata = try await storage.reference("multipart.bin").multipartUpload(
                bytes, metadata: StorageMetadata(contentType: "application/octet-stream"), md5: MD5.base64(bytes), progress: reporter)
            #expect(metadata.size == Int64(bytes.count))
            await expectEventually("\(log.completed)") { log.completed.last == Int64(bytes.count) }
        }
    }

    @Test func aFailedUploadReportsNothingAfterItThrows() async throws {
        try await withAuthStorageServer { server in
            // Signed out: the default rules refuse the upload after its bytes were sent.
            let storage = Storage(options: server.options(), auth: server.auth())
            let log = ProgressLog()
            await #expect(throws: StorageError.self) {
                try await storage.reference("refused.bin").putData(StorageResumableTests.randomBytes(1024 * 1024), onProgress: log.handler)
            }
            let atThrow = log.completed
            #expect(atThrow.first == 0)
            try await Task.sleep(nanoseconds: 300_000_000)
            #expect(log.completed == atThrow, "nothing is reported after putData threw")
        }
    }

    @Test func anEmptyUploadReportsOnceAsComplete() async throws {
        try await withAuthStorageServer { server in
            let storage = try await StorageObjectTests.signedIn(server)
            let log = ProgressLog()
            try await storage.reference("empty.txt").putData(Data(), onProgress: log.handler)
            #expect(log.all == [StorageProgress(completedBytes: 0, totalBytes: 0)])
            #expect(log.all.first?.fractionCompleted == 1)
        }
    }

    @Test func putFileReportsProgressToo() async throws {
        try await withAuthStorageServer { server in
            let storage = try await StorageObjectTests.signedIn(server)
            let bytes = StorageResumableTests.randomBytes(700 * 1024)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-progress-\(UUID().uuidString).bin")
            try bytes.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            // As the documentation shows it: reports through a stream, in order, to a consumer.
            let (updates, sink) = AsyncStream.makeStream(of: StorageProgress.self)
            let consumer = Task {
                let log = ProgressLog()
                for await p in updates { log.handler(p) }
                return log
            }
            try await storage.reference("files/upload.bin").putFile(from: file) { sink.yield($0) }
            sink.finish()
            let log = await consumer.value
            Self.checkShape(log, total: bytes.count)
        }
    }

    @Test func theReporterDropsRepeatsClampsAndStopsAtFinish() {
        let log = ProgressLog()
        let reporter = ProgressReporter(totalBytes: 1000, handler: log.handler)
        reporter.confirm(0)
        reporter.report(0)
        // A multipart body: 100 bytes of metadata part, then the data, then the closing boundary.
        let sent = reporter.requestSent(from: 0, after: 100)
        sent(50)
        sent(600)
        sent(550)  // from a concurrent delegate queue, out of order: dropped
        sent(1150)
        // The server had only 400 after a failure: progress moves back; the next chunk goes on from there.
        reporter.confirm(400)
        reporter.requestSent(from: 400)(100)
        reporter.confirm(700)
        // A report of the 400... chunk that URLSession delivers after its answer: not past 700, dropped.
        reporter.requestSent(from: 400)(250)
        reporter.requestSent(from: 400)(300)
        reporter.finish()
        // And after the end.
        reporter.report(1000)
        reporter.confirm(300)
        reporter.finish()
        #expect(log.completed == [0, 500, 1000, 400, 500, 700, 1000])
    }

    @Test func aClosedReporterReportsNothing() {
        let log = ProgressLog()
        let reporter = ProgressReporter(totalBytes: 10, handler: log.handler)
        reporter.confirm(0)
        reporter.report(4)
        reporter.close()
        reporter.report(8)
        reporter.confirm(9)
        reporter.finish()
        #expect(log.completed == [0, 4])
    }
}
