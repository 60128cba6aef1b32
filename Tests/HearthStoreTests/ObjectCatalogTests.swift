import Foundation
import HearthPostgres
import HearthSQLite
import HearthStore
import Testing

/// The object catalog's listing semantics, run against every backend (PostgreSQL when `HEARTH_TEST_POSTGRES` is set).
@Suite("Object catalog")
struct ObjectCatalogTests {
    enum Backend: String, CaseIterable, Sendable {
        case memory, sqlite, postgres

        static var allCases: [Backend] { PostgresTestServer.url == nil ? [.memory, .sqlite] : [.memory, .sqlite, .postgres] }
    }

    func catalog(_ backend: Backend) async throws -> any ObjectCatalog {
        switch backend {
        case .memory: return MemoryObjectCatalog()
        case .sqlite:
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-objects-\(UUID().uuidString).sqlite").path
            return try SQLiteObjectCatalog(path: path)
        case .postgres:
            return PostgresObjectCatalog(server: try await PostgresTestServer.server(), project: PostgresTestServer.freshNamespace())
        }
    }

    func seed(_ catalog: any ObjectCatalog, _ names: [String], bucket: String = "b") async throws {
        try await catalog.transaction { tx in
            for (i, name) in names.enumerated() {
                try tx.saveObject(ObjectRecord(
                    bucket: bucket, name: name, generation: Int64(i + 1), blob: "blob\(i)", size: 1, md5Hash: "", crc32c: "",
                    timeCreated: 0, updated: 0))
            }
        }
    }

    func list(_ catalog: any ObjectCatalog, _ query: ObjectListQuery) async throws -> ObjectListing {
        try await catalog.read { tx in try tx.list(bucket: "b", query) }
    }

    /// Pages through a listing one page of `size` at a time and returns every key in order.
    func pages(_ catalog: any ObjectCatalog, _ query: ObjectListQuery, size: Int) async throws -> [String] {
        var query = query
        query.maxResults = size
        var keys: [String] = []
        for _ in 0..<100 {
            let page = try await list(catalog, query)
            #expect(page.objects.count + page.prefixes.count <= size)
            keys += (page.objects.map(\.name) + page.prefixes).sorted { $0.utf8Precedes($1) }
            guard let token = page.nextPageToken else { return keys }
            query.pageToken = token
        }
        Issue.record("paging did not end")
        return keys
    }

    static let names = ["dir/a", "dir/b", "dir/sub/c", "dir/sub/d", "dir/sub2/e", "dir/z", "dirt", "other/x", "top", "ü%.txt", "a b/c"]

    @Test(arguments: Backend.allCases)
    func foldersAndItemsUnderAPrefix(_ backend: Backend) async throws {
        let catalog = try await catalog(backend)
        try await seed(catalog, Self.names)
        let page = try await list(catalog, ObjectListQuery(prefix: "dir/", delimiter: "/"))
        #expect(page.objects.map(\.name) == ["dir/a", "dir/b", "dir/z"])
        #expect(page.prefixes == ["dir/sub/", "dir/sub2/"])
        #expect(page.nextPageToken == nil)
        let root = try await list(catalog, ObjectListQuery(delimiter: "/"))
        #expect(root.objects.map(\.name) == ["dirt", "top", "ü%.txt"])
        #expect(root.prefixes == ["a b/", "dir/", "other/"])
    }

    @Test(arguments: Backend.allCases)
    func everythingInByteOrderWithoutADelimiter(_ backend: Backend) async throws {
        let catalog = try await catalog(backend)
        try await seed(catalog, Self.names.shuffled())
        let all = try await list(catalog, ObjectListQuery())
        #expect(all.objects.map(\.name) == Self.names.sorted { $0.utf8Precedes($1) })
        #expect(all.objects.map(\.name).last == "ü%.txt", "non-ASCII sorts after ASCII, by UTF-8 bytes")
    }

    @Test(arguments: Backend.allCases)
    func pagesOfOneReturnEveryKeyOnce(_ backend: Backend) async throws {
        let catalog = try await catalog(backend)
        try await seed(catalog, Self.names)
        let whole = try await list(catalog, ObjectListQuery(prefix: "dir/", delimiter: "/"))
        let expected = (whole.objects.map(\.name) + whole.prefixes).sorted { $0.utf8Precedes($1) }
        for size in [1, 2, 3] {
            #expect(try await pages(catalog, ObjectListQuery(prefix: "dir/", delimiter: "/"), size: size) == expected, "page size \(size)")
        }
        #expect(try await pages(catalog, ObjectListQuery(), size: 4) == Self.names.sorted { $0.utf8Precedes($1) })
    }

    @Test(arguments: Backend.allCases)
    func offsetsTrailingDelimitersAndGlobs(_ backend: Backend) async throws {
        let catalog = try await catalog(backend)
        try await seed(catalog, Self.names + ["dir/sub/"])
        let window = try await list(catalog, ObjectListQuery(startOffset: "dir/b", endOffset: "dir/sub2"))
        #expect(window.objects.map(\.name) == ["dir/b", "dir/sub/", "dir/sub/c", "dir/sub/d"])
        let trailing = try await list(catalog, ObjectListQuery(prefix: "dir/", delimiter: "/", includeTrailingDelimiter: true))
        #expect(trailing.objects.map(\.name) == ["dir/a", "dir/b", "dir/sub/", "dir/z"])
        let glob = try await list(catalog, ObjectListQuery(matchGlob: try ObjectGlob("dir/**/{c,e}")))
        #expect(glob.objects.map(\.name) == ["dir/sub/c", "dir/sub2/e"])
        let star = try await list(catalog, ObjectListQuery(matchGlob: try ObjectGlob("dir/*")))
        #expect(star.objects.map(\.name) == ["dir/a", "dir/b", "dir/z"], "* stops at /")
        let set = try await list(catalog, ObjectListQuery(matchGlob: try ObjectGlob("dir/[!a-b]")))
        #expect(set.objects.map(\.name) == ["dir/z"])
        await #expect(throws: InvalidPageToken.self) { try await list(catalog, ObjectListQuery(pageToken: "not a token")) }
        #expect(throws: ObjectGlob.SyntaxError.self) { try ObjectGlob("dir/{a,b") }
    }

    @Test(arguments: Backend.allCases)
    func aFailedTransactionChangesNothing(_ backend: Backend) async throws {
        struct Stop: Error {}
        let catalog = try await catalog(backend)
        try await seed(catalog, ["keep"])
        await #expect(throws: Stop.self) {
            try await catalog.transaction { tx in
                try tx.deleteObject(bucket: "b", name: "keep")
                try tx.saveBucket(BucketRecord(name: "new", timeCreated: 1))
                throw Stop()
            }
        }
        #expect(try await catalog.read { tx in try tx.object(bucket: "b", name: "keep") } != nil)
        #expect(try await catalog.read { tx in try tx.bucket("new") } == nil)
    }

    @Test(arguments: Backend.allCases)
    func concurrentTransactionsSucceedOrFailEachOnTheirOwn(_ backend: Backend) async throws {
        struct Refused: Error {}
        let catalog = try await catalog(backend)
        let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for i in 0..<200 {
                group.addTask {
                    do {
                        try await catalog.transaction { tx in
                            try tx.saveObject(ObjectRecord(
                                bucket: "b", name: "n\(i)", generation: 1, blob: "x", size: 0, md5Hash: "", crc32c: "", timeCreated: 0, updated: 0))
                            if i % 7 == 0 { throw Refused() }
                        }
                        return (i, true)
                    } catch is Refused {
                        return (i, false)
                    }
                }
            }
            return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
        }
        #expect(outcomes.count == 200)
        let stored = Set(try await list(catalog, ObjectListQuery()).objects.map(\.name))
        #expect(stored == Set((0..<200).filter { $0 % 7 != 0 }.map { "n\($0)" }), "each refused transaction alone was rolled back")
    }

    @Test(arguments: Backend.allCases)
    func bucketsUploadsAndCaseInByteOrder(_ backend: Backend) async throws {
        let catalog = try await catalog(backend)
        for name in ["b", "B", "a"] { try await catalog.transaction { tx in try tx.saveBucket(BucketRecord(name: name, timeCreated: 1)) } }
        try await catalog.transaction { tx in try tx.saveBucket(BucketRecord(name: "a", timeCreated: 1, updated: 5, metageneration: 2)) }
        #expect(try await catalog.read { tx in try tx.buckets() }.map(\.name) == ["B", "a", "b"], "upper case before lower: bytes, not a locale")
        #expect(try await catalog.read { tx in try tx.bucket("a") }?.metageneration == 2)
        #expect(try await catalog.read { tx in try tx.bucket("A") } == nil)
        // Bytewise, where a locale's order would differ: "B" < "_" < "a" < "z" < "é".
        try await seed(catalog, ["z", "é", "a", "_", "B"])
        #expect(try await list(catalog, ObjectListQuery()).objects.map(\.name) == ["B", "_", "a", "z", "é"])
        #expect(try await catalog.read { tx in try tx.hasObjects(bucket: "b") })
        #expect(try await catalog.read { tx in try tx.hasObjects(bucket: "a") } == false)
        try await catalog.transaction { tx in try tx.deleteBucket("b") }
        #expect(try await catalog.read { tx in try (tx.bucket("b"), tx.hasObjects(bucket: "b")) } == (nil, false))
        try await seed(catalog, ["z"])
        #expect(try await list(catalog, ObjectListQuery()).objects.map(\.name) == ["z"], "the bucket's old objects went with it")

        try await catalog.transaction { tx in
            try tx.saveUpload("u1", data: Data([1, 2]), created: 100)
            try tx.saveUpload("u2", data: Data([3]), created: 200)
            try tx.saveUpload("u1", data: Data([4]), created: 150)
        }
        #expect(try await catalog.read { tx in try tx.upload("u1") } == Data([4]))
        try await catalog.transaction { tx in try tx.deleteUploads(createdBefore: 200) }
        #expect(try await catalog.read { tx in try [tx.upload("u1"), tx.upload("u2")] } == [nil, Data([3])])
        try await catalog.transaction { tx in try tx.deleteUpload("u2") }
        #expect(try await catalog.read { tx in try tx.upload("u2") } == nil)
    }
}
