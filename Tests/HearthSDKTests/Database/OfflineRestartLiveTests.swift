import Foundation
import HearthCore
import HearthSQLite
import HearthTesting
import Synchronization
import Testing

@testable import Hearth

/// A live server (SQLite data in a temporary folder) that the test can stop and restart on the same port.
struct RestartableServer {
    let server: LiveServer
    let port: Int
    let dataFolder: URL
    var rest: AdminREST { AdminREST(port: port) }

    static func start() async throws -> RestartableServer {
        let folder = temporaryFolder()
        let server = LiveServer(stores: SQLiteStoreFactory(folder: folder.path))
        let port = try await server.start()
        return RestartableServer(server: server, port: port, dataFolder: folder)
    }

    func stop() async { await server.stop() }
    func restart() async throws { _ = try await server.start(port: port) }
    func finish() async {
        await server.stop()
        try? FileManager.default.removeItem(at: dataFolder)
    }
}

@Suite("Offline behaviour against a live server")
struct OfflineRestartLiveTests {
    @Test func transactionMadeOfflineCommitsOnReconnectAgainstTheNewServerValue() async throws {
        let live = try await RestartableServer.start()
        let app = HearthApp(name: "tx-offline", options: appOptions(port: live.port))
        do {
            try await live.rest.put("counter", "1")
            let ref = app.database.reference("counter")
            let recorder = EventRecorder(ref.snapshots())
            await expectEventually { recorder.all.last?.value == .int(1) }
            await app.database.goOffline()
            try await live.rest.put("counter", "10")  // someone else writes while we are offline
            let outcome = Task {
                try await ref.runTransaction { data in
                    let current = (try? data.value(as: Int.self)) ?? 0
                    try? data.setValue(current + 1)
                    return .success
                }
            }
            // The local result shows at once (from the cached 1).
            await expectEventually { recorder.all.last?.value == .int(2) }
            await app.database.goOnline()
            let result = try await withTimeout(20) { try await outcome.value }
            #expect(result.committed)
            #expect(try await live.rest.get("counter") == .int(11))
            await expectEventually { recorder.all.last?.value == .int(11) }
        } catch {
            Issue.record(error)
        }
        await app.close()
        await live.finish()
    }

    @Test func onDisconnectRegisteredWhileOfflineIsSentOnReconnectAndRuns() async throws {
        let live = try await RestartableServer.start()
        let app = HearthApp(name: "od-offline", options: appOptions(port: live.port))
        do {
            let presence = app.database.reference("presence/me")
            try await presence.setValue("online")
            await app.database.goOffline()
            let register = Task { try await presence.onDisconnect().setValue("gone") }
            await app.database.goOnline()
            try await withTimeout(15) { try await register.value }
            #expect(try await live.rest.get("presence/me") == .string("online"))
            await app.close()
            #expect(try await eventually { try await live.rest.get("presence/me") == .string("gone") })
        } catch {
            Issue.record(error)
            await app.close()
        }
        await live.finish()
    }

    @Test func onDisconnectIsStillArmedAfterAReconnect() async throws {
        let live = try await RestartableServer.start()
        let app = HearthApp(name: "od-again", options: appOptions(port: live.port))
        do {
            let presence = app.database.reference("presence/me")
            try await presence.setValue(true)
            try await presence.onDisconnect().setValue(false)
            // The server goes away and comes back: the client reconnects.
            await live.stop()
            try await live.restart()
            let states = await app.database.connectionStates()
            var iterator = states.makeAsyncIterator()
            var reconnected = false
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline, let state = await iterator.next() {
                if state { reconnected = true; break }
            }
            #expect(reconnected)
            try await withTimeout(10) { try await presence.setValue(true) }
            #expect(try await live.rest.get("presence/me") == .bool(true))
            await app.close()
            #expect(try await eventually { try await live.rest.get("presence/me") == .bool(false) })
        } catch {
            Issue.record(error)
            await app.close()
        }
        await live.finish()
    }

    @Test func keepSyncedCachesWithoutAnObserverAndSurvivesARestart() async throws {
        let live = try await RestartableServer.start()
        let appFolder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: appFolder) }
        do {
            try await live.rest.put("news", #""first""#)
            let app = HearthApp(name: "ks", options: appOptions(port: live.port, persistence: appFolder))
            let news = app.database.reference("news")
            news.keepSynced(true)
            let engine = app.database.engine
            await expectEventually { await engine.tree.child(at: Path("news")) == (try? Node(json: .string("first"))) }
            // A change made elsewhere reaches the cache without any observer or read.
            try await live.rest.put("news", #""second""#)
            await expectEventually { await engine.tree.child(at: Path("news")) == (try? Node(json: .string("second"))) }
            await app.database.goOffline()
            let offline = try await news.getSnapshot()
            #expect(offline.value == .string("second"))
            #expect(offline.isFromCache)
            await app.close()

            // Relaunched with the server gone: the cache answers.
            await live.stop()
            let relaunched = HearthApp(name: "ks", options: appOptions(port: live.port, persistence: appFolder))
            let cached = try await withTimeout(15) { try await relaunched.database.reference("news").getSnapshot() }
            #expect(cached.value == .string("second"))
            #expect(cached.isFromCache)
            await relaunched.close()
        } catch {
            Issue.record(error)
        }
        await live.finish()
    }

    @Test func keepSyncedFalseStopsTheListen() async throws {
        let live = try await RestartableServer.start()
        let app = HearthApp(name: "ks-off", options: appOptions(port: live.port))
        let news = app.database.reference("news")
        news.keepSynced(true)
        let engine = app.database.engine
        await expectEventually {
            let live = await engine.listens.values.contains { $0.live }
            return live
        }
        news.keepSynced(false)
        await expectEventually { await engine.listens.isEmpty }
        await expectEventually { await app.database.connection.hasNoListens() }
        await app.close()
        await live.finish()
    }

    /// Writes queued with the server down, app relaunched (server still down): the relaunched app
    /// shows them at once (from cache), then delivers them once, in order, when the server is back,
    /// and its observer ends up on server data.
    @Test func relaunchedAppDeliversQueuedWritesAndItsObserverLearnsTheyAreConfirmed() async throws {
        let live = try await RestartableServer.start()
        let appFolder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: appFolder) }
        do {
            try await live.rest.put("list", #"{"a":1}"#)
            let app = HearthApp(name: "q", options: appOptions(port: live.port, persistence: appFolder))
            let list = app.database.reference("list")
            let first = EventRecorder(list.snapshots())
            await expectEventually { first.all.last?.value == json(#"{"a":1}"#) }
            first.stop()
            await live.stop()
            var writes: [Task<Void, any Error>] = []
            writes.append(Task { try await list.child("b").setValue(2) })
            try await Task.sleep(for: .milliseconds(50))
            writes.append(Task { try await list.child("a").removeValue() })
            try await Task.sleep(for: .milliseconds(50))
            writes.append(Task { try await list.updateChildValues(["c": 3, "b": 22]) })
            await expectEventually { (try? await list.getSnapshot())?.value == json(#"{"b":22,"c":3}"#) }
            await app.close()
            for w in writes { _ = await w.result }

            let relaunched = HearthApp(name: "q", options: appOptions(port: live.port, persistence: appFolder))
            let recorder = EventRecorder(relaunched.database.reference("list").snapshots())
            let firstSeen = await recorder.wait(for: 1).first
            #expect(firstSeen?.value == json(#"{"b":22,"c":3}"#))
            #expect(firstSeen?.isFromCache == true)
            try await live.restart()
            #expect(try await eventually(timeout: .seconds(30)) { try await live.rest.get("list") == json(#"{"b":22,"c":3}"#) })
            let settled = await eventually(timeout: .seconds(15)) {
                guard let last = recorder.all.last else { return false }
                return !last.isFromCache && last.value == json(#"{"b":22,"c":3}"#)
            }
            #expect(settled, "observer saw: \(recorder.all.map { "\($0.value) fromCache=\($0.isFromCache)" }), error: \(String(describing: recorder.error))")
            // No flicker back to older states once the server answered.
            let values = recorder.all.map(\.value)
            #expect(!values.contains(json(#"{"a":1}"#)), "observer saw: \(values)")
            await relaunched.close()
        } catch {
            Issue.record(error)
        }
        await live.finish()
    }
}

extension PersistentConnection {
    func reviewHasNoListens() -> Bool { listens.isEmpty }
}

extension RealtimeConnection {
    func hasNoListens() async -> Bool {
        guard let connection = self as? PersistentConnection else { return true }
        return await connection.reviewHasNoListens()
    }
}
