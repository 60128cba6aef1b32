import HearthCore

extension SyncEngine {
    /// A one-off read: the live view when there is one, else the server (`g`), else the cache.
    func get(_ spec: ViewSpec) async throws(DatabaseError) -> ViewResult {
        let current = view(spec)
        if current.complete, !current.fromCache { return current }
        if !connected, current.complete { return current }
        if explicitlyOffline { throw .offline(spec.path.description) }
        let version = serverVersion
        let json: JSONValue
        do {
            json = try await connection.get(path: spec.path, query: spec.listen.query)
        } catch {
            let failure = DatabaseError.from(error, path: spec.path)
            let fallback = view(spec)
            if failure.code != .permissionDenied, fallback.complete { return fallback }
            throw failure
        }
        guard let node = try? Node(json: json) else {
            throw DatabaseError(code: .server, path: spec.path.description, message: "The server sent invalid data")
        }
        // Cached only when no server data arrived meanwhile: the answer and the pushes reach the engine on
        // different tasks, so a push handled first may be newer than the answer, and must not be overwritten.
        if spec.listen.query == nil, serverVersion == version {
            tree = tree.setting(spec.path, to: node)
            complete.insert(spec.path)
            serverVersion &+= 1
            saveCache()
            refresh()
        }
        return finish(spec, base: node, complete: true, live: true, serverWindow: spec.listen.query != nil)
    }

    /// Runs a transaction: reads the listened value, applies `update`, and commits with the value's
    /// hash; on `datastale` it retries with the newer data the listen delivers, up to 25 times.
    ///
    /// Transactions of this client on overlapping locations run one after the other. Otherwise the second one runs
    /// on the first one's unconfirmed result, and when the server refuses both, each retries on the other's new
    /// pending value and neither ever sees the server's (the soak saw both give up with `maxretry`).
    func transaction(
        at path: Path, _ update: @Sendable (inout MutableData) -> TransactionResult
    ) async throws(DatabaseError) -> (committed: Bool, node: Node, fromCache: Bool) {
        while runningTransactions.values.contains(where: { $0.isAncestor(ofOrEqualTo: path) || path.isAncestor(ofOrEqualTo: $0) }) {
            await withCheckedContinuation { transactionWaiters.append($0) }
        }
        guard !closed else { throw .databaseClosed(path.description) }
        let token = nextTransactionToken
        nextTransactionToken += 1
        runningTransactions[token] = path
        defer {
            runningTransactions[token] = nil
            let waiting = transactionWaiters
            transactionWaiters = []
            for waiter in waiting { waiter.resume() }
        }
        let spec = ViewSpec(path: path, query: nil)
        acquire(spec.listen)
        defer { release(spec.listen) }
        try await waitUntilComplete(spec)
        for _ in 0..<25 {
            let current = view(spec)
            var data = MutableData(node: current.node, location: path)
            guard update(&data) == .success else { return (false, current.node, current.fromCache) }
            let ticket = try enqueue(
                path, .set(DatabaseCoding.exportJSON(data.node)), hash: current.node.hash, resolved: [(path, data.node)])
            do {
                try await ticket.wait()
                let after = view(spec)
                return (true, after.node, after.fromCache)
            } catch where error.code == .dataStale {
                await waitForChange(of: spec, from: current.node)
            }
        }
        throw DatabaseError(code: .maxRetries, path: path.description, message: "The transaction conflicted 25 times")
    }

    /// Waits (at most a second) until the data a transaction ran on changed: the server holds something else there,
    /// and its push is on the way. Changes elsewhere do not count, so a listen that answers late (the cache was
    /// older) does not use up the retries while unrelated data keeps arriving.
    func waitForChange(of spec: ViewSpec, from node: Node) async {
        for _ in 0..<40 where view(spec).node == node {
            try? await Task.sleep(for: .milliseconds(25))
        }
    }
}
