import Foundation
import Hearth
import HearthCore
import HearthSQLite
import HearthTesting
import Testing

/// Observers and one-off reads around cancellation and an unreachable server.
@Suite("Observer lifecycle (live)")
struct ObserverLifecycleTests {
    /// Cancel an observer and observe the same location again right away (a view re-appearing):
    /// the second observer must keep working.
    @Test func resubscribeRightAfterCancelKeepsTheNewObserver() async throws {
        try await withAuthStorageServer { live in
            let rest = AdminREST(port: live.port)
            try await rest.put("room/title", #""hello""#)
            let app = HearthApp(name: "resub", options: live.options())
            defer { Task { await app.close() } }
            let ref = app.database.reference("room/title")
            // Make sure the connection is up first.
            _ = try await withTimeout(10) { try await app.database.reference("warm").getSnapshot() }
            let firstStream = ref.snapshots()
            let first = Task { for try await _ in firstStream {} }
            await Task.yield()
            first.cancel()
            let second = EventRecorder(ref.snapshots())
            let events = await second.wait(for: 1)
            #expect(events.first?.value == .string("hello"))
            try await Task.sleep(for: .milliseconds(500))
            #expect(second.error == nil, "second observer failed: \(String(describing: second.error))")
            #expect(!second.isFinished)
            try await rest.put("room/title", #""changed""#)
            #expect(await eventually { second.all.last?.value == .string("changed") })
        }
    }

    /// A one-off read while the server cannot be reached and nothing is cached should fail
    /// (Firebase: "Client is offline"), not hang forever.
    @Test func readWhileServerUnreachableWithoutCacheDoesNotHang() async throws {
        let dataFolder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dataFolder) }
        let server = LiveServer(stores: SQLiteStoreFactory(folder: dataFolder.path))
        let port = try await server.start()
        await server.stop()
        let app = HearthApp(name: "unreachable", options: appOptions(port: port))
        defer { Task { await app.close() } }
        let read = Task { () -> Result<DataSnapshot, DatabaseError> in
            do { return .success(try await app.database.reference("never/seen").getSnapshot()) } catch { return .failure(error as! DatabaseError) }
        }
        let done = await eventually(timeout: .seconds(10)) { await read.isFinishedForTest }
        #expect(done, "getSnapshot() still pending after 10 s with the server unreachable and nothing cached")
        if done, case .failure(let error) = await read.value { #expect(error.code == DatabaseError.Code.offline) }
        read.cancel()
        // Cancelling the caller does not end it either.
        try await Task.sleep(for: .seconds(2))
        #expect(await read.isFinishedForTest, "getSnapshot() ignores task cancellation")
    }
}

extension ObserverLifecycleTests {
    /// Cancelling a read that waits for an unreachable server ends it at once, well before the offline timeout.
    @Test func cancellingAPendingReadEndsIt() async throws {
        let dataFolder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dataFolder) }
        let server = LiveServer(stores: SQLiteStoreFactory(folder: dataFolder.path))
        let port = try await server.start()
        await server.stop()
        let app = HearthApp(name: "cancelled-read", options: appOptions(port: port))
        defer { Task { await app.close() } }
        let read = Task { () -> Result<DataSnapshot, DatabaseError> in
            do { return .success(try await app.database.reference("never/seen").getSnapshot()) } catch { return .failure(error as! DatabaseError) }
        }
        try await Task.sleep(for: .milliseconds(300))
        read.cancel()
        // Without the cancellation it would run until the 3 s offline timeout, after this wait has given up.
        let done = await eventually(timeout: .seconds(2)) { await read.isFinishedForTest }
        #expect(done)
        if case .success = await read.value { Issue.record("a cancelled read of uncached data returned a value") }
    }
}

import Synchronization
extension Task where Success: Sendable, Failure == Never {
    /// Whether the task ended (checked without waiting).
    var isFinishedForTest: Bool {
        get async {
            let flag = Mutex(false)
            let waiter = Task<Void, Never> { _ = await self.value; flag.withLock { $0 = true } }
            try? await Task<Never, Never>.sleep(for: .milliseconds(50))
            waiter.cancel()
            return flag.withLock { $0 }
        }
    }
}
