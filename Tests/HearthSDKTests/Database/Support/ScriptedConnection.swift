import HearthCore
import Synchronization

@testable import Hearth

/// A scripted `RealtimeConnection`: records every call, keeps a tiny server tree, and lets a test
/// decide when (and how) writes are answered and when the connection is online.
final class ScriptedConnection: RealtimeConnection {
    enum Call: Sendable, Hashable {
        case listen(path: String, query: Query?, tag: Int?, hash: String)
        case unlisten(path: String, tag: Int?)
        case get(path: String)
        case put(path: String, data: JSONValue, hash: String?)
        case merge(path: String, data: [JSONMember])
    }

    let events: AsyncStream<RealtimeEvent>
    let pusher: AsyncStream<RealtimeEvent>.Continuation

    private struct HeldWrite {
        var path: Path
        var data: JSONValue
        var isMerge: Bool
        var receipt: Int64?
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var calls: [Call] = []
        var tree: Node
        var holdWrites: Bool
        var online: Bool
        var opened = false
        var closed = false
        var held: [HeldWrite] = []
        var offlineWaiters: [CheckedContinuation<Void, any Error>] = []
        var listens: [(Path, Query?, Int?)] = []
        var dropAfterNextListen = false
        var holdNextListen = false
        var heldListen: CheckedContinuation<Void, Never>?
        var holdNextGet = false
        var heldGet: CheckedContinuation<Void, Never>?
        var supersedeNextListen = false
    }

    private let state: Mutex<State>
    let serverNow: Int64
    let serverTimeOffset: Int64

    /// - Parameters:
    ///   - json: the server's data.
    ///   - holdWrites: when true, writes wait for `answerNextWrite`; else they are applied at once.
    ///   - online: whether the connection comes up when opened.
    init(
        json: JSONValue = .null, holdWrites: Bool = false, online: Bool = true, serverNow: Int64 = 1_700_000_000_000,
        serverTimeOffset: Int64 = 0
    ) {
        self.serverTimeOffset = serverTimeOffset
        state = Mutex(State(tree: (try? Node(json: json)) ?? .empty, holdWrites: holdWrites, online: online))
        (events, pusher) = AsyncStream.makeStream(of: RealtimeEvent.self)
        self.serverNow = serverNow
    }

    var calls: [Call] { state.withLock { $0.calls } }
    var puts: [Call] { calls.filter { if case .put = $0 { return true } else { return false } } }
    var writes: [Call] {
        calls.filter {
            switch $0 {
            case .put, .merge: return true
            default: return false
            }
        }
    }
    var listenCalls: [Call] { calls.filter { if case .listen = $0 { return true } else { return false } } }
    var heldCount: Int { state.withLock { $0.held.count } }

    /// The next listen is acknowledged and then the socket drops, before the `listen` call returns (as when the
    /// `ok` and the socket's end arrive together): the call returns well after `.disconnected`.
    func dropAfterNextListen() { state.withLock { $0.dropAfterNextListen = true } }
    /// The next listen waits (unanswered, not yet receiving pushes) until ``releaseHeldListen()``.
    func holdNextListen() { state.withLock { $0.holdNextListen = true } }
    var isHoldingListen: Bool { state.withLock { $0.heldListen != nil } }
    func releaseHeldListen() { state.withLock { s in defer { s.heldListen = nil }; return s.heldListen }?.resume() }

    /// The next listen fails with `RealtimeError.unlistened`, as `PersistentConnection` fails a listen that an older call
    /// of the same view replaced (it reached the connection later).
    func supersedeNextListen() { state.withLock { $0.supersedeNextListen = true } }

    /// The next get reads the data when it arrives, then waits to answer until ``releaseHeldGet()``.
    func holdNextGet() { state.withLock { $0.holdNextGet = true } }
    var isHoldingGet: Bool { state.withLock { $0.heldGet != nil } }
    func releaseHeldGet() { state.withLock { s in defer { s.heldGet = nil }; return s.heldGet }?.resume() }

    func serverValue(_ path: String) -> JSONValue {
        state.withLock { DatabaseCoding.plainJSON($0.tree.child(at: Path(path))) }
    }

    func open() async {
        let up = state.withLock { s in
            s.opened = true
            return s.online
        }
        if up { pusher.yield(.connected(serverTimeOffset: serverTimeOffset)) }
    }

    func close() async {
        let (held, waiters) = state.withLock { s in
            s.closed = true
            defer {
                s.held = []
                s.offlineWaiters = []
            }
            return (s.held, s.offlineWaiters)
        }
        for h in held { h.continuation.resume(throwing: RealtimeError.closed) }
        for w in waiters { w.resume(throwing: RealtimeError.closed) }
        pusher.finish()
    }

    func setOnline(_ online: Bool) async {
        let (waiters, listens, tree) = state.withLock { s in
            s.online = online
            defer { if online { s.offlineWaiters = [] } }
            return (online ? s.offlineWaiters : [], s.listens, s.tree)
        }
        if online {
            pusher.yield(.connected(serverTimeOffset: serverTimeOffset))
            for (path, query, tag) in listens {
                pushResult(path: path, query: query, tag: tag, tree: tree)
                pusher.yield(.listenAcknowledged(path: path, query: query))
            }
            for w in waiters { w.resume() }
        } else {
            pusher.yield(.disconnected)
        }
    }

    func setAuthToken(_ token: String?) async {}

    private func waitOnline() async throws {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            let ready = state.withLock { s -> Bool? in
                if s.closed { return nil }
                if s.online { return true }
                s.offlineWaiters.append(c)
                return false
            }
            switch ready {
            case nil: c.resume(throwing: RealtimeError.closed)
            case true?: c.resume()
            case false?: break
            }
        }
    }

    private func pushResult(path: Path, query: Query?, tag: Int?, tree: Node) {
        var node = tree.child(at: path)
        if let query, !query.isUnfiltered { node = query.apply(to: node) }
        pusher.yield(.overwrite(path: path, data: DatabaseCoding.exportJSON(node), tag: tag))
    }

    func listen(path: Path, query: Query?, tag: Int?, hash: String) async throws -> ListenAcknowledgement {
        state.withLock { $0.calls.append(.listen(path: path.description, query: query, tag: tag, hash: hash)) }
        try await waitOnline()
        if state.withLock({ s in defer { s.supersedeNextListen = false }; return s.supersedeNextListen }) { throw RealtimeError.unlistened }
        if state.withLock({ s in defer { s.holdNextListen = false }; return s.holdNextListen }) {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in state.withLock { $0.heldListen = c } }
        }
        let tree = state.withLock { s in
            s.listens.append((path, query, tag))
            return s.tree
        }
        pushResult(path: path, query: query, tag: tag, tree: tree)
        pusher.yield(.listenAcknowledged(path: path, query: query))
        let drop = state.withLock { s in
            defer { s.dropAfterNextListen = false }
            if s.dropAfterNextListen { s.online = false }
            return s.dropAfterNextListen
        }
        if drop {
            pusher.yield(.disconnected)
            try await Task.sleep(for: .milliseconds(100))
        }
        return ListenAcknowledgement()
    }

    func unlisten(path: Path, query: Query?, tag: Int?) async {
        state.withLock { s in
            s.calls.append(.unlisten(path: path.description, tag: tag))
            s.listens.removeAll { $0.0 == path && $0.2 == tag }
        }
    }

    func get(path: Path, query: Query?) async throws -> JSONValue {
        state.withLock { $0.calls.append(.get(path: path.description)) }
        try await waitOnline()
        let (answer, hold) = state.withLock { s in
            var node = s.tree.child(at: path)
            if let query, !query.isUnfiltered { node = query.apply(to: node) }
            defer { s.holdNextGet = false }
            return (DatabaseCoding.exportJSON(node), s.holdNextGet)
        }
        if hold {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in state.withLock { $0.heldGet = c } }
        }
        return answer
    }

    func put(path: Path, data: JSONValue, hash: String?, receipt: Int64?) async throws {
        state.withLock { $0.calls.append(.put(path: path.description, data: data, hash: hash)) }
        try await write(path: path, data: data, isMerge: false, hash: hash, receipt: receipt)
    }

    func merge(path: Path, data: [JSONMember], receipt: Int64?) async throws {
        state.withLock { $0.calls.append(.merge(path: path.description, data: data)) }
        try await write(path: path, data: .object(data), isMerge: true, hash: nil, receipt: receipt)
    }

    private func write(path: Path, data: JSONValue, isMerge: Bool, hash: String?, receipt: Int64?) async throws {
        try await waitOnline()
        if let hash, state.withLock({ $0.tree.child(at: path).hash }) != hash {
            throw RealtimeError(status: "datastale", message: "Transaction hash does not match")
        }
        let hold = state.withLock { $0.holdWrites }
        if hold {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                state.withLock { $0.held.append(HeldWrite(path: path, data: data, isMerge: isMerge, receipt: receipt, continuation: c)) }
            }
        } else {
            apply(path: path, data: data, isMerge: isMerge)
            if let receipt { pusher.yield(.writeAcknowledged(receipt: receipt)) }
        }
    }

    /// Applies a write to the tree and pushes it to matching listens (as the server would).
    func apply(path: Path, data: JSONValue, isMerge: Bool) {
        let (listens, tree) = state.withLock { s -> ([(Path, Query?, Int?)], Node) in
            let members: [(Path, JSONValue)]
            if isMerge, case .object(let m) = data {
                members = m.map { (path.appending(Path($0.key)), $0.value) }
            } else {
                members = [(path, data)]
            }
            for (p, json) in members {
                if let parsed = try? Node.parseWrite(json) {
                    let tree = s.tree
                    if let node = try? parsed.resolved(now: serverNow, current: { tree.child(at: p.appending($0)) }) { s.tree = s.tree.setting(p, to: node) }
                }
            }
            return (s.listens, s.tree)
        }
        for (p, q, tag) in listens where p.isAncestor(ofOrEqualTo: path) || path.isAncestor(ofOrEqualTo: p) {
            pushResult(path: p, query: q, tag: tag, tree: tree)
        }
    }

    /// Answers the oldest held write: applies and pushes it on success (server order: data, then
    /// the ok), or fails it with a status.
    func answerNextWrite(failing status: String? = nil) {
        let next = state.withLock { s -> HeldWrite? in s.held.isEmpty ? nil : s.held.removeFirst() }
        guard let next else { return }
        if let status {
            next.continuation.resume(throwing: RealtimeError(status: status, message: status))
        } else {
            apply(path: next.path, data: next.data, isMerge: next.isMerge)
            if let receipt = next.receipt { pusher.yield(.writeAcknowledged(receipt: receipt)) }
            next.continuation.resume()
        }
    }

    /// Changes the server data behind the client's back (another client's write) and pushes it.
    func serverWrite(_ path: String, _ json: JSONValue) {
        apply(path: Path(path), data: json, isMerge: false)
    }

    func onDisconnectPut(path: Path, data: JSONValue) async throws {}
    func onDisconnectMerge(path: Path, data: [JSONMember]) async throws {}
    func onDisconnectCancel(path: Path) async throws {}
}
