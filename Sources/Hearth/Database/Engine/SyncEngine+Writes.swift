import HearthCore

extension SyncEngine {
    /// Validates a write and computes what it shows locally (server values estimated).
    static func resolve(
        _ path: Path, _ operation: PendingWrite.Operation, now: Int64, current: (Path) -> Node
    ) throws(DatabaseError) -> [(Path, Node)] {
        if let first = path.keys.first, first.string.hasPrefix(".") {
            throw .invalidPath(path.description, "Cannot write to \(first.string)")
        }
        func parse(_ json: JSONValue, at target: Path) throws(DatabaseError) -> Node {
            let parsed: ParsedWrite
            do {
                parsed = try Node.parseWrite(json, depth: target.count)
            } catch {
                throw .invalidData(target.description, error.message)
            }
            return parsed.resolved(now: now) { rel in current(target.appending(rel)) }
        }
        switch operation {
        case .set(let json):
            return [(path, try parse(json, at: path))]
        case .merge(let members):
            var out: [(Path, Node)] = []
            for m in members {
                let rel: Path
                do {
                    rel = try Path.validated(m.key)
                } catch {
                    throw .invalidPath(path.description, error.message)
                }
                guard !rel.isRoot else { throw .invalidPath(path.description, "Empty key in update") }
                let target = path.appending(rel)
                if out.contains(where: { $0.0.isAncestor(ofOrEqualTo: target) || target.isAncestor(ofOrEqualTo: $0.0) }) {
                    throw .invalidData(path.description, "Update paths overlap (\(m.key))")
                }
                out.append((target, try parse(m.value, at: target)))
            }
            return out
        }
    }

    /// Applies a write locally, queues it (durably when persistence is on) and returns the ticket
    /// that completes when the server answers.
    func enqueue(_ path: Path, _ operation: PendingWrite.Operation, hash: String? = nil, resolved: [(Path, Node)]? = nil)
        throws(DatabaseError) -> Completion
    {
        guard !closed else { throw .disconnected(path.description) }
        let shown: [(Path, Node)]
        if let resolved {
            shown = resolved
        } else {
            shown = try SyncEngine.resolve(path, operation, now: clock.serverNow) { localNode(at: $0) }
        }
        let durable = store != nil && hash == nil
        if durable {
            let queued = writes.filter { $0.durable && !$0.acknowledged }
            let count = queued.count
            let bytes = queued.reduce(0) { $0 + $1.byteCount }
            let write = PendingWrite(id: 0, path: path, operation: operation, hash: nil, durable: true, resolved: [])
            guard count < limits.maxPendingWrites, bytes + write.byteCount <= limits.maxPendingWriteBytes else {
                throw DatabaseError(code: .writeQueueFull, path: path.description, message: "Too many writes are waiting for the server")
            }
        }
        let id = nextWriteID
        nextWriteID += 1
        var write = PendingWrite(id: id, path: path, operation: operation, hash: hash, durable: durable, resolved: shown)
        write.hasServerValues = PendingWrite.containsServerValue(operation)
        writes.append(write)
        let ticket = Completion()
        tickets[id] = ticket
        if durable { saveWrites() }
        outbox.yield(id)
        refresh()
        return ticket
    }

    func write(_ path: Path, _ operation: PendingWrite.Operation) async throws(DatabaseError) {
        if case .merge(let members) = operation, members.isEmpty { return }
        try await enqueue(path, operation).wait()
    }

    /// The write to send next, marked as sent.
    func takeForSending(_ id: Int64) -> PendingWrite? {
        guard let i = writes.firstIndex(where: { $0.id == id }) else { return nil }
        writes[i].sent = true
        return writes[i]
    }

    /// Runs in a child task of the run loop: sends queued writes one at a time, in id order.
    nonisolated func sendWrites() async {
        for await id in outboxStream {
            guard let w = await takeForSending(id) else { continue }
            do {
                switch w.operation {
                case .set(let data): try await connection.put(path: w.path, data: data, hash: w.hash)
                case .merge(let data): try await connection.merge(path: w.path, data: data)
                }
            } catch {
                await reject(id, error)
                continue
            }
            if await acknowledge(id) { continue }
            // The server pushes a write's data before acknowledging it, but the push and the
            // acknowledgement reach the engine on different tasks: keep showing the write until
            // the push landed (bounded, for servers that push later or not at all).
            for _ in 0..<40 {
                try? await Task.sleep(for: .milliseconds(5))
                if await settle(id, force: false) { break }
            }
            await settle(id, force: true)
        }
    }

    /// The server accepted a write: its caller resumes and it leaves the durable queue. Returns
    /// true when it was also removed from the local view (its data arrived or nothing observes it).
    func acknowledge(_ id: Int64) -> Bool {
        guard let i = writes.firstIndex(where: { $0.id == id }) else { return true }
        writes[i].acknowledged = true
        if writes[i].durable { saveWrites() }
        tickets.removeValue(forKey: id)?.succeed()
        let observed = listens.keys.contains { writes[i].touches($0.path) }
        return settle(id, force: !observed)
    }

    /// Removes an acknowledged write from the local view once the server's data for it arrived
    /// (or when forced). Returns whether it is gone.
    @discardableResult
    func settle(_ id: Int64, force: Bool) -> Bool {
        guard let i = writes.firstIndex(where: { $0.id == id }) else { return true }
        guard force || writes[i].touchedByServer else { return false }
        writes.remove(at: i)
        refresh()
        return true
    }

    /// Notes server data arriving at `paths`: a sent write counts as answered once the server's
    /// data there matches it (any data, for writes with server values or filtered listens), and
    /// acknowledged ones leave the local view in the same step, so observers see no flicker.
    func serverTouched(_ paths: [Path], tagged: Bool) {
        guard writes.contains(where: \.sent) else { return }
        for i in writes.indices where writes[i].sent && !writes[i].touchedByServer && paths.contains(where: writes[i].touches) {
            let w = writes[i]
            if tagged || w.hasServerValues || w.resolved.allSatisfy({ tree.child(at: $0.0) == $0.1 }) {
                writes[i].touchedByServer = true
            }
        }
        writes.removeAll { $0.acknowledged && $0.touchedByServer }
    }

    func reject(_ id: Int64, _ error: any Error) {
        guard let i = writes.firstIndex(where: { $0.id == id }) else { return }
        let failure = DatabaseError.from(error, path: writes[i].path)
        if failure.code == .disconnected {
            // Closing: the write stays queued on disk and is sent by the next start.
            tickets.removeValue(forKey: id)?.fail(failure)
            return
        }
        let w = writes.remove(at: i)
        if w.durable { saveWrites() }
        tickets.removeValue(forKey: id)?.fail(failure)
        refresh()
    }
}

extension PendingWrite {
    static func containsServerValue(_ operation: Operation) -> Bool {
        func scan(_ json: JSONValue) -> Bool {
            switch json {
            case .object(let members): return members.contains { $0.key == ".sv" || scan($0.value) }
            case .array(let items): return items.contains(where: scan)
            default: return false
            }
        }
        switch operation {
        case .set(let data): return scan(data)
        case .merge(let members): return members.contains { scan($0.value) }
        }
    }

    /// Size of the JSON this write sends (for the queue's bound).
    var byteCount: Int {
        switch operation {
        case .set(let data): return data.jsonBytes.count
        case .merge(let data): return JSONValue.object(data).jsonBytes.count
        }
    }
}
