import Foundation
import Hearth
import HearthCore
import NIOHTTP1
import Synchronization
import Testing

/// The Swift SDK's realtime listeners on several nodes of one cluster: a listener on a node that did
/// not take the writes sees exactly what a listener on the writing node sees.
@Suite(
    "SDK listeners across nodes", .serialized,
    .enabled(if: TestCluster.url != nil, "set HEARTH_TEST_POSTGRES=postgres://… to run the cluster tests (.ci/run does)"))
struct ClusterSDKTests {
    /// Every value one listener was given, as compact JSON text.
    final class Values: Sendable {
        let seen = Mutex<[String]>([])
        var all: [String] { seen.withLock { $0 } }
    }

    static func collect(_ query: some DatabaseQueryable, into values: Values) -> Task<Void, Never> {
        Task {
            do {
                for try await snapshot in query.snapshots() {
                    values.seen.withLock { $0.append(snapshot.value.jsonString) }
                }
            } catch {}
        }
    }

    static func waitUntil(_ values: Values, count: Int, _ what: String) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while values.all.count < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(values.all.count >= count, "\(what) saw \(values.all.count) of \(count) values: \(values.all)")
    }

    @Test func aPlainListenerOnNode3AndAQueryListenerOnNode2SeeWhatTheWritingNodeSends() async throws {
        let cluster = try await TestCluster.start(nodes: 3)
        let ns = cluster.namespace
        let published = try await cluster.send(
            0, .PUT, "/.settings/rules.json?ns=\(ns)", body: #"{"rules":{".read":true,".write":true,"board":{".indexOn":"score"}}}"#)
        #expect(published.status == 200, "\(published.body)")
        func app(_ node: Int, _ name: String) -> HearthApp {
            HearthApp(
                name: "\(name)-\(ns)",
                options: HearthOptions(serverURL: URL(string: "http://127.0.0.1:\(cluster.ports[node])")!, projectID: ns))
        }
        // Each listener in an app of its own, so that no app's cache holds more than its listener reads.
        let writingNode = app(0, "n1"), writingNodeQuery = app(0, "n1q")
        let queryNode = app(1, "n2")
        let plainNode = app(2, "n3")
        let apps = [writingNode, writingNodeQuery, queryNode, plainNode]
        let localPlain = Values(), localQuery = Values(), remoteQuery = Values(), remotePlain = Values()
        func top2(_ app: HearthApp) -> DatabaseQuery {
            app.database.reference("board").queryOrdered(byChild: "score").queryLimited(toLast: 2)
        }
        let tasks = [
            Self.collect(writingNode.database.reference("board"), into: localPlain),
            Self.collect(top2(writingNodeQuery), into: localQuery),
            Self.collect(top2(queryNode), into: remoteQuery),
            Self.collect(plainNode.database.reference("board"), into: remotePlain),
        ]
        do {
            // Every listener has its first (empty) value before the writes start.
            for (values, name) in [(localPlain, "n1 plain"), (localQuery, "n1 query"), (remoteQuery, "n2 query"), (remotePlain, "n3 plain")] {
                try await Self.waitUntil(values, count: 1, name)
            }
            let writes: [(HTTPMethod, String, String?)] = [
                (.PUT, "/board/a.json", #"{"score":1}"#),
                (.PUT, "/board/b.json", #"{"score":5}"#),
                (.PUT, "/board/c.json", #"{"score":3}"#),
                (.PATCH, "/board/a.json", #"{"score":9}"#),
                (.PUT, "/board/d.json", #"{"score":0}"#),  // below the top two: no new query value
                (.DELETE, "/board/b.json", nil),
                (.PATCH, "/board.json", #"{"c/score":10,"e":{"score":7}}"#),
            ]
            for (i, (method, path, body)) in writes.enumerated() {
                let sent = try await cluster.send(0, method, "\(path)?ns=\(ns)", body: body)
                #expect(sent.status == 200, "\(path): \(sent.body)")
                // One write at a time: the plain listeners have it before the next one goes out.
                try await Self.waitUntil(localPlain, count: i + 2, "n1 plain")
                try await Self.waitUntil(remotePlain, count: i + 2, "n3 plain")
            }
            // The query listeners have had every write once the remote one has as many values as the local one
            // and the local one's last value holds the final top two.
            let deadline = ContinuousClock.now + .seconds(20)
            while remoteQuery.all.count < localQuery.all.count || !(localQuery.all.last ?? "").contains(#""c":{"score":10}"#),
                ContinuousClock.now < deadline
            {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(localPlain.all.count == writes.count + 1)
            #expect(remotePlain.all == localPlain.all)
            #expect(remoteQuery.all == localQuery.all)
            // The top two by score after each write that changed them: the write of d (score 0) changed nothing.
            #expect(localQuery.all.count == writes.count)
            let last = localQuery.all.last ?? ""
            #expect(last.contains(#""c":{"score":10}"#) && last.contains(#""a":{"score":9}"#) && !last.contains(#""e""#), "\(last)")
        } catch {
            for task in tasks { task.cancel() }
            for app in apps { await app.close() }
            await cluster.stop()
            throw error
        }
        for task in tasks { task.cancel() }
        for app in apps { await app.close() }
        await cluster.stop()
    }
}
