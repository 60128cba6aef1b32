import HearthCore

extension SyncEngine {
    // MARK: - Server events

    func handle(_ event: RealtimeEvent) {
        guard !closed else { return }
        switch event {
        case .connected(let offset):
            connected = true
            clock.offset = offset
        case .disconnected:
            markDisconnected()
        case .overwrite(let path, let data, let tag):
            guard let node = try? Node(json: data) else { return }
            connected = true
            if let tag {
                guard let spec = tags[tag] else { return }
                applyTagged(spec, at: path) { $0 = node }
            } else {
                tree = tree.setting(path, to: node)
                complete.insert(path)
                markReceived(at: path)
            }
            serverChanged()
        case .merge(let path, let members, let tag):
            let entries = members.compactMap { m -> (Path, Node)? in
                guard let node = try? Node(json: m.value) else { return nil }
                return (Path(m.key), node)
            }
            connected = true
            if let tag {
                guard let spec = tags[tag] else { return }
                for (rel, node) in entries {
                    applyTagged(spec, at: path.appending(rel)) { $0 = node }
                }
            } else {
                for (rel, node) in entries { tree = tree.setting(path.appending(rel), to: node) }
            }
            serverChanged()
        case .listenRevoked(let path, let query):
            let spec = ViewSpec(path: path, query: query).listen
            if let generation = listens[spec]?.generation {
                failListen(spec, generation: generation, error: DatabaseError(code: .listenRevoked, path: path.description, message: "The server revoked this listen"))
            }
        case .listenAcknowledged(let path, let query):
            listenAcknowledged(ViewSpec(path: path, query: query).listen)
        case .writeAcknowledged(let receipt):
            acknowledge(receipt)
        case .authRevoked:
            // The connection drops the token and reconnects; listens it cannot restore fail one by one.
            break
        }
    }

    /// Sets the data at `path` (absolute) inside a filtered query's cached result.
    private func applyTagged(_ spec: ListenSpec, at path: Path, _ update: (inout Node) -> Void) {
        if let rel = path.relative(spec.path) {
            var node = Node.empty
            update(&node)
            queryData[spec] = node.child(at: rel)
            listens[spec]?.dataReceived = true
            listens[spec]?.live = true
        } else if let rel = spec.path.relative(path) {
            var node = Node.empty
            update(&node)
            queryData[spec] = (queryData[spec] ?? .empty).setting(rel, to: node)
        }
    }

    /// Untagged listens at or below `path` now hold current server data.
    private func markReceived(at path: Path) {
        for (spec, _) in listens where !spec.isTagged && path.isAncestor(ofOrEqualTo: spec.path) {
            listens[spec]?.dataReceived = true
            listens[spec]?.live = true
        }
    }

    private func serverChanged() {
        serverVersion &+= 1
        saveCache()
        dropSettledWrites()
        refresh()
    }

    // MARK: - Listens

    func acquire(_ spec: ListenSpec) {
        if listens[spec] != nil {
            listens[spec]?.refCount += 1
            return
        }
        var tag: Int?
        let hash: String
        if spec.isTagged {
            tag = nextTag
            tags[nextTag] = spec
            nextTag += 1
            hash = queryData[spec]?.hash ?? ""
        } else {
            hash = complete.covers(spec.path) ? tree.child(at: spec.path).hash : ""
        }
        let generation = nextListenGeneration
        nextListenGeneration += 1
        listens[spec] = ListenState(refCount: 1, tag: tag, sentHash: hash, generation: generation)
        commands.yield(.listen(spec, tag: tag, hash: hash, generation: generation))
    }

    func release(_ spec: ListenSpec) {
        guard var state = listens[spec] else { return }
        state.refCount -= 1
        guard state.refCount <= 0 else {
            listens[spec] = state
            return
        }
        listens[spec] = nil
        if let tag = state.tag { tags[tag] = nil }
        commands.yield(.unlisten(spec, tag: state.tag))
        if dropSettledWrites() { refresh() }
    }

    /// Runs in a child task of the run loop. Success is applied by the `.listenAcknowledged` event, which
    /// arrives in order with the listen's data and with `.disconnected` (this call's return does not).
    nonisolated func performListen(_ spec: ListenSpec, tag: Int?, hash: String, generation: Int) async {
        do {
            _ = try await connection.listen(path: spec.path, query: spec.query, tag: tag, hash: hash)
            await stopIfReleased(spec, tag: tag)
        } catch {
            await failListen(spec, generation: generation, error: error)
        }
    }

    /// Released while the listen was in flight (its unlisten may have reached the connection first): make
    /// sure the server stops too.
    private func stopIfReleased(_ spec: ListenSpec, tag: Int?) {
        if listens[spec] == nil { commands.yield(.unlisten(spec, tag: tag)) }
    }

    /// The server acknowledged `spec` on the current socket, after the data it pushed for it: that data is
    /// current (no longer from cache) until the next `.disconnected`.
    private func listenAcknowledged(_ spec: ListenSpec) {
        guard var state = listens[spec] else { return }
        if !state.dataReceived, state.sentHash.isEmpty {
            // Nothing pushed for an empty hash: the server holds nothing here.
            if spec.isTagged {
                queryData[spec] = .empty
            } else {
                tree = tree.setting(spec.path, to: .empty)
                complete.insert(spec.path)
            }
        }
        state.dataReceived = true
        state.live = true
        connected = true
        listens[spec] = state
        serverChanged()
    }

    func failListen(_ spec: ListenSpec, generation: Int, error: any Error) {
        guard let state = listens[spec], state.generation == generation else { return }
        if error as? RealtimeError == .unlistened {
            // The engine unlistens only what it released, so the current listen of `spec` was dropped for an older call
            // of the same view that reached the connection after it (listens run in child tasks, which may start in
            // either order: a view observed again right after its observer was cancelled). Listening again replaces
            // that older call; the observers never see it.
            commands.yield(.listen(spec, tag: state.tag, hash: state.sentHash, generation: generation))
            return
        }
        let failure = DatabaseError.from(error, path: spec.path)
        if failure.code == .disconnected { return }  // closing: nothing to report
        listens[spec] = nil
        if let tag = state.tag { tags[tag] = nil }
        for id in subscriptions.keys.sorted() {
            guard let sub = subscriptions[id], sub.spec.listen == spec else { continue }
            subscriptions[id] = nil
            sub.sink(.failed(failure))
        }
        keptSynced = keptSynced.filter { $0.listen != spec }
        var waiting: [(ViewSpec, Completion)] = []
        for (view, c) in completionWaiters {
            if view.listen == spec { c.fail(failure) } else { waiting.append((view, c)) }
        }
        completionWaiters = waiting
        if dropSettledWrites() { refresh() }
    }
}
