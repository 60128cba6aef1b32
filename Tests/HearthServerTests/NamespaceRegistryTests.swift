import Foundation
import HearthCore
import HearthDatabase
@testable import HearthServer
import HearthSQLite
import HearthStore
import Synchronization
import Testing

/// A memory backend that counts what the registry asks of it.
final class CountingStoreFactory: StoreFactory {
    let inner = MemoryStoreFactory()
    let opens = Mutex<[String]>([])
    let closes = CloseCounter()

    func open(namespace: String) async throws -> any DatabaseStore {
        opens.withLock { $0.append(namespace) }
        return CountingStore(inner: try await inner.open(namespace: namespace), closes: closes)
    }

    func existingNamespaces() throws -> [String] { try inner.existingNamespaces() }
    func delete(namespace: String) async throws { try await inner.delete(namespace: namespace) }

    var openCount: Int { opens.withLock { $0.count } - closes.value.withLock { $0 } }
}

final class CloseCounter: Sendable {
    let value = Mutex(0)
}

final class CountingStore: DatabaseStore {
    let inner: any DatabaseStore
    let closes: CloseCounter
    init(inner: any DatabaseStore, closes: CloseCounter) {
        self.inner = inner
        self.closes = closes
    }
    func snapshot<R: Sendable>(_ body: @Sendable (any StoreReader) throws -> R) async throws -> R { try await inner.snapshot(body) }
    func write<R: Sendable>(_ body: @Sendable (any StoreTransaction) throws -> R) async throws -> R { try await inner.write(body) }
    func close() async throws { closes.value.withLock { $0 += 1 } }
}

/// A clock the test moves.
final class StepClock: Sendable {
    let now = Mutex<Int64>(1_000_000)
    func advance(_ millis: Int64) { now.withLock { $0 += millis } }
    var read: @Sendable () -> Int64 { { [self] in now.withLock { $0 } } }
}

@Suite("Namespace registry")
struct NamespaceRegistryTests {
    func registry(_ factory: any StoreFactory, clock: StepClock = StepClock(), maxOpen: Int = 64, dev: Bool = false) -> NamespaceRegistry {
        NamespaceRegistry(
            factory: factory, clock: clock.read, initialRules: .initial(dev: dev), defaultNamespace: "demo",
            limits: .init(createOnFirstUse: dev, maxOpen: maxOpen, idleMillis: 60_000, rescanMillis: 2_000))
    }

    @Test("an unknown namespace is refused without opening a store; the default one and created ones open")
    func unknownIsNotOpened() async throws {
        let factory = CountingStoreFactory()
        let registry = registry(factory)
        for i in 0..<300 {
            await #expect(throws: NamespaceError.notFound) { try await registry.lease("n\(i)") }
        }
        #expect(factory.opens.withLock { $0 } == [])
        let lease = try await registry.lease("demo")
        registry.release(lease)
        try await registry.create("orders", rules: nil)
        let orders = try await registry.lease("orders")
        registry.release(orders)
        #expect(factory.opens.withLock { $0 } == ["demo", "orders"])
        #expect(registry.names == ["demo", "orders"])
        // Created locked, and the rules are stored with the data.
        #expect(orders.namespace.rules.source == RulesDocument.denyAll.source)
        #expect(try await orders.namespace.database.store.snapshot { try $0.setting("rules") } == RulesDocument.denyAll.source)
        await #expect(throws: NamespaceError(.exists, "Database orders already exists")) { try await registry.create("orders", rules: nil) }
        await registry.closeAll()
    }

    @Test("--dev creates any valid name on first use, with open rules")
    func devCreatesOnFirstUse() async throws {
        let registry = registry(MemoryStoreFactory(), dev: true)
        let lease = try await registry.lease("anything")
        #expect(lease.namespace.rules.source == RulesDocument.open.source)
        registry.release(lease)
        await #expect(throws: NamespaceError.notFound) { try await registry.lease("bad name") }
        await registry.closeAll()
    }

    @Test("idle namespaces are closed and open again with their data; held ones and ones with listeners are not")
    func idleClosing() async throws {
        let factory = CountingStoreFactory()
        let clock = StepClock()
        let registry = registry(factory, clock: clock)
        try await registry.create("a", rules: .open)
        try await registry.create("b", rules: nil)
        let a = try await registry.lease("a")
        _ = try await a.namespace.database.write(WriteRequest(path: Path("x"), operation: .set(try Node.parseWrite(.int(1), depth: 1))))
        registry.release(a)
        let held = try await registry.lease("b")
        clock.advance(59_000)
        #expect(await registry.closeIdle() == [])
        clock.advance(1_000)
        #expect(await registry.closeIdle() == ["a"])
        #expect(factory.openCount == 1)
        registry.release(held)
        clock.advance(60_000)
        #expect(await registry.closeIdle() == ["b"])
        #expect(factory.openCount == 0)
        // Opened again on the next use, data and rules intact.
        let again = try await registry.lease("a")
        #expect(try await again.namespace.database.store.snapshot { try $0.read(Path("x")) } == (try Node(json: .int(1))))
        #expect(again.namespace.rules.source == RulesDocument.openSource)
        registry.release(again)
        await registry.closeAll()
    }

    @Test("at most maxOpen are open: the least recently used idle one is closed, and when all are held the answer is busy")
    func bounded() async throws {
        let factory = CountingStoreFactory()
        let clock = StepClock()
        let registry = registry(factory, clock: clock, maxOpen: 2)
        for name in ["a", "b", "c"] { try await registry.create(name, rules: nil) }
        #expect(factory.openCount <= 2)
        var leases: [NamespaceLease] = []
        for name in ["a", "b"] {
            clock.advance(10)
            leases.append(try await registry.lease(name))
        }
        await #expect(throws: NamespaceError(.busy, "Too many databases are in use; try again later")) { try await registry.lease("c") }
        #expect(factory.openCount == 2)
        registry.release(leases[1])
        clock.advance(10)
        registry.release(leases[0])
        // b was released first: it is the least recently used.
        let c = try await registry.lease("c")
        #expect(factory.openCount == 2)
        #expect(Set(registry.openNamespaces.map(\.name)) == ["a", "c"])
        registry.release(c)
        for i in 0..<20 {
            let name = ["a", "b", "c"][i % 3]
            registry.release(try await registry.lease(name))
            #expect(factory.openCount <= 2)
        }
        await registry.closeAll()
    }

    @Test("a namespace a function's trigger declares is created locked and never closed as idle")
    func pinned() async throws {
        let factory = CountingStoreFactory()
        let clock = StepClock()
        let registry = registry(factory, clock: clock)
        let namespace = try await registry.pin("triggers")
        #expect(namespace.rules.source == RulesDocument.denyAll.source)
        clock.advance(3_600_000)
        #expect(await registry.closeIdle() == [])
        #expect(registry.names == ["demo", "triggers"])
        await registry.closeAll()
    }

    @Test("deleting ends the holders that asked, removes the data and answers not found after")
    func delete() async throws {
        let factory = CountingStoreFactory()
        let registry = registry(factory)
        try await registry.create("gone", rules: nil)
        let ended = Mutex(false)
        let lease = try await registry.lease("gone", onDelete: { ended.withLock { $0 = true } })
        let deletion = Task { try await registry.delete("gone") }
        for _ in 0..<500 where !ended.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(2)) }
        #expect(ended.withLock { $0 })
        await #expect(throws: NamespaceError.notFound) { try await registry.lease("gone") }
        registry.release(lease)
        try await deletion.value
        #expect(try factory.existingNamespaces() == [])
        #expect(registry.names == ["demo"])
        await #expect(throws: NamespaceError.self) { try await registry.delete("demo") }
        await registry.closeAll()
    }

    @Test("a namespace whose SQLite file exists from before is known; an unknown name creates no file")
    func sqliteFilesAreNamespaces() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-ns-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let old = try SQLiteStore(path: folder + "/legacy.sqlite")
        let value = try Node(json: .string("v"))
        try await old.write { try $0.set(Path("k"), value) }
        try await old.close()
        // Files of other products beside it are not namespaces.
        _ = FileManager.default.createFile(atPath: folder + "/demo.auth.sqlite", contents: Data())
        let factory = SQLiteStoreFactory(folder: folder)
        let registry = registry(factory)
        #expect(registry.names == ["demo", "legacy"])
        let lease = try await registry.lease("legacy")
        #expect(try await lease.namespace.database.store.snapshot { try $0.read(Path("k")) } == value)
        registry.release(lease)
        await #expect(throws: NamespaceError.notFound) { try await registry.lease("nope") }
        #expect(!FileManager.default.fileExists(atPath: folder + "/nope.sqlite"))
        // Created offline (as `hearth namespaces create` does) while the server runs: found by a rescan.
        try await HearthServer.createNamespace("later", in: factory)
        let clock = StepClock()
        let second = self.registry(factory, clock: clock)
        try await HearthServer.createNamespace("latest", in: factory)
        clock.advance(2_000)
        let latest = try await second.lease("latest")
        second.release(latest)
        try await registry.delete("later")
        #expect(try factory.existingNamespaces().sorted() == ["latest", "legacy"])
        await registry.closeAll()
        await second.closeAll()
    }
}
