import Foundation
import GRDB
import HearthSQLite
import Testing

/// Online snapshots copied in steps: the copy is the database as it was when the copy began, even when
/// another connection commits between every step; a failing step ends the copy.
@Suite("SQLite snapshot")
struct SQLiteSnapshotTests {
    /// A WAL database of `rows` rows of 20 KiB each (many 256 KiB copy steps), in a new folder.
    func liveDatabase(rows: Int) throws -> (folder: String, queue: DatabaseQueue) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("snapshot-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: dir + "/live.sqlite")
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            for i in 0..<rows {
                try db.execute(sql: "INSERT INTO t (id, body) VALUES (?, ?)", arguments: [i, String(repeating: "\(i % 10)", count: 20 * 1024)])
            }
        }
        return (dir, queue)
    }

    /// Rows and a digest of their contents.
    func contents(_ queue: DatabaseQueue) throws -> (count: Int, total: Int) {
        try queue.read { db in
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM t") ?? -1
            let total = try Int.fetchOne(db, sql: "SELECT sum(id * 7 + length(body) + unicode(body)) FROM t") ?? -1
            return (count, total)
        }
    }

    @Test func commitsBetweenStepsStayOutOfTheCopy() throws {
        let (dir, live) = try liveDatabase(rows: 400)
        let before = try contents(live)
        // Another connection, as the server would be: it commits after every step of the copy.
        let writer = try DatabaseQueue(path: dir + "/live.sqlite")
        var steps = 0
        var copied = 0
        try SQLiteSnapshot.copy(from: dir + "/live.sqlite", to: dir + "/copy.sqlite") { bytes in
            steps += 1
            copied += bytes
            // A copy that starts over after each commit would never end.
            if steps > 100 { throw Stop() }
            try writer.write { db in
                try db.execute(sql: "UPDATE t SET body = 'changed' WHERE id = ?", arguments: [steps])
                try db.execute(sql: "INSERT INTO t (id, body) VALUES (?, 'new')", arguments: [100_000 + steps])
                try db.execute(sql: "DELETE FROM t WHERE id = ?", arguments: [399 - steps])
            }
        }
        #expect(steps > 3, "a database of about 8 MiB is copied in 256 KiB steps")
        let file = try #require(try FileManager.default.attributesOfItem(atPath: dir + "/copy.sqlite")[.size] as? Int)
        #expect(copied == file)
        let copy = try DatabaseQueue(path: dir + "/copy.sqlite")
        let after = try contents(copy)
        #expect(after.count == before.count && after.total == before.total)
        #expect(try copy.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "delete")
        try copy.close()
        #expect(try SQLiteSnapshot.problem(at: dir + "/copy.sqlite") == nil)
        // The live database did take every write.
        #expect(try contents(live).count == before.count)
        #expect(try live.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t WHERE body = 'changed'") } == steps)
        try? FileManager.default.removeItem(atPath: dir)
    }

    struct Stop: Error {}

    @Test func aFailingStepEndsTheCopy() throws {
        let (dir, _) = try liveDatabase(rows: 200)
        var steps = 0
        #expect(throws: Stop.self) {
            try SQLiteSnapshot.copy(from: dir + "/live.sqlite", to: dir + "/copy.sqlite") { _ in
                steps += 1
                if steps == 2 { throw Stop() }
            }
        }
        #expect(steps == 2)
        try? FileManager.default.removeItem(atPath: dir)
    }
}
