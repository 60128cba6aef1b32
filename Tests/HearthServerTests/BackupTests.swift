import Foundation
@testable import HearthCommand
import HearthSQLite
import HearthStore
import Testing

/// `hearth backup`'s engine on a real data folder: an online snapshot while a writer commits, content
/// shared between backups, damage found by `verify`, exact restore, and retention.
@Suite struct BackupTests {
    /// A fresh folder under /tmp for one test.
    private func folder(_ name: String) throws -> String {
        let path = "/tmp/backup-helper-tests-\(name)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The settings `k<n>` present in the database at `path`, as numbers.
    private func keys(at path: String) async throws -> [Int] {
        let store = try SQLiteStore(path: path)
        defer { Task { try? await store.close() } }
        return try store.settingNames().compactMap { $0.hasPrefix("k") ? Int($0.dropFirst()) : nil }.sorted()
    }

    @Test func snapshotWhileWritingRestoresAConsistentPrefix() async throws {
        let data = try folder("data")
        let backups = try folder("backups")
        defer { for path in [data, backups] { try? FileManager.default.removeItem(atPath: path) } }
        try FileManager.default.createDirectory(atPath: data + "/storage/blobs/ab", withIntermediateDirectories: true)
        try Data("blob bytes".utf8).write(to: URL(fileURLWithPath: data + "/storage/blobs/ab/abcd"))
        let store = try SQLiteStore(path: data + "/demo.sqlite")
        try await store.write { tx in try tx.setSetting("k0", "v") }
        // A writer commits k1, k2, … one after another while the backup runs.
        let writer = Task {
            var n = 1
            while !Task.isCancelled && n < 100_000 {
                let key = "k\(n)"
                do { try await store.write { tx in try tx.setSetting(key, "v") } } catch { break }
                n += 1
            }
            return n
        }
        let deadline = Date().addingTimeInterval(10)
        while try store.settingNames().count < 50 && Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let repository = BackupRepository(root: backups)
        let first = try BackupMaker(data: data, repository: repository).make()
        writer.cancel()
        let written = await writer.value
        try await store.write { tx in try tx.setSetting("after", "v") }
        try await store.close()
        #expect(first.manifest.files.map(\.path) == ["demo.sqlite", "storage/blobs/ab/abcd"])
        #expect(repository.verify(first.manifest).isEmpty)

        let restored = try folder("restored")
        defer { try? FileManager.default.removeItem(atPath: restored) }
        try repository.restore(first.manifest, to: restored)
        #expect(try String(contentsOfFile: restored + "/storage/blobs/ab/abcd", encoding: .utf8) == "blob bytes")
        // A consistent snapshot holds exactly the first commits: k0…k(m-1), no gaps, none after it.
        let got = try await keys(at: restored + "/demo.sqlite")
        #expect(got.count >= 50 && got == Array(0..<got.count))
        #expect(got.count <= written)

        // Unchanged files are not stored again; the whole new database is.
        let second = try BackupMaker(data: data, repository: repository).make()
        #expect(second.newBytes == second.manifest.files.first { $0.kind == "sqlite" }!.size)
        #expect(try await keys(at: data + "/demo.sqlite").count >= got.count)
        #expect(second.manifest.id != first.manifest.id)
    }

    @Test func verifyNamesACorruptFileAndRestoreRefusesIt() async throws {
        let data = try folder("data")
        let backups = try folder("backups")
        defer { for path in [data, backups] { try? FileManager.default.removeItem(atPath: path) } }
        let store = try SQLiteStore(path: data + "/demo.sqlite")
        try await store.write { tx in try tx.setSetting("k0", "v") }
        try await store.close()
        try Data("key".utf8).write(to: URL(fileURLWithPath: data + "/admin-token"))
        let repository = BackupRepository(root: backups)
        let manifest = try BackupMaker(data: data, repository: repository).make().manifest
        let entry = try #require(manifest.files.first { $0.path == "admin-token" })
        try Data("kex".utf8).write(to: URL(fileURLWithPath: repository.blob(entry.sha256)))
        let problems = repository.verify(manifest)
        #expect(problems.map(\.path) == ["admin-token"])
        #expect(problems.first?.what.hasPrefix("corrupt") == true)
        let target = try folder("restored")
        defer { try? FileManager.default.removeItem(atPath: target) }
        #expect(throws: BackupRepository.Failure.self) { try repository.restore(manifest, to: target) }
        // A non-empty target is refused before anything is written.
        #expect(throws: BackupRepository.Failure.self) { try repository.restore(manifest, to: data) }
    }

    @Test func pruneKeepsTheNewestAndDropsIncompleteBackupsAndUnusedContent() throws {
        let data = try folder("data")
        let backups = try folder("backups")
        defer { for path in [data, backups] { try? FileManager.default.removeItem(atPath: path) } }
        let repository = BackupRepository(root: backups)
        var ids: [String] = []
        for n in 0..<3 {
            try Data("version \(n)".utf8).write(to: URL(fileURLWithPath: data + "/hearth.json"))
            ids.append(try BackupMaker(data: data, repository: repository).make().manifest.id)
        }
        // A backup killed before its manifest was written.
        try FileManager.default.createDirectory(atPath: backups + "/20000101-000000", withIntermediateDirectories: true)
        #expect(try repository.list().map { $0.manifest == nil } == [true, false, false, false])
        let removed = try repository.prune(keep: 2)
        #expect(removed == ["20000101-000000", ids[0]])
        #expect(try repository.list().map(\.id) == Array(ids.suffix(2)))
        let stored = try FileManager.default.subpathsOfDirectory(atPath: backups + "/blobs").filter { $0.contains("/") }
        #expect(stored.count == 2)
    }
}
