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
            await expectEventually { second.all.last?.value == .string("changed") }
        }
    }

    /// An app whose server was started and stopped again: nothing answers on its port.
    func withUnreachableServer(_ name: String, _ body: (HearthApp) async throws -> Void) async throws {
        let dataFolder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dataFolder) }
        let server = LiveServer(stores: SQLiteStoreFactory(folder: dataFolder.path))
        let port = try await server.start()
        await server.stop()
        let app = HearthApp(name: name, options: appOptions(port: port))
        defer { Task { await app.close() } }
        try await body(app)
    }

    /// A read of a location nothing has cached, as a task.
    func uncachedRead(_ app: HearthApp) -> Task<Result<DataSnapshot, DatabaseError>, Never> {
        Task {
            do { return .success(try await app.database.reference("never/seen").getSnapshot()) } catch { return .failure(error as! DatabaseError) }
        }
    }

    /// A one-off read while the server cannot be reached and nothing is cached fails as offline
    /// (Firebase: "Client is offline"), instead of hanging.
    @Test func readWhileServerUnreachableWithoutCacheFailsAsOffline() async throws {
        try await withUnreachableServer("unreachable") { app in
            let read = uncachedRead(app)
            let done = await eventually(timeout: .seconds(10)) { await read.isFinishedForTest }
            #expect(done, "getSnapshot() still pending after 10 s with the server unreachable and nothing cached")
            if done, case .failure(let error) = await read.value { #expect(error.code == DatabaseError.Code.offline) }
        }
    }

    /// Cancelling a read that waits for an unreachable server ends it at once, well before the offline timeout.
    @Test func cancellingAPendingReadEndsIt() async throws {
        try await withUnreachableServer("cancelled-read") { app in
            let read = uncachedRead(app)
            try await Task.sleep(for: .milliseconds(300))
            read.cancel()
            // Without the cancellation it would run until the 3 s offline timeout, after this wait has given up.
            let done = await eventually(timeout: .seconds(2)) { await read.isFinishedForTest }
            #expect(done)
            if case .success = await read.value { Issue.record("a cancelled read of uncached data returned a value") }
        }
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
