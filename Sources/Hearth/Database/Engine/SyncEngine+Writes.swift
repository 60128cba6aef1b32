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
            do {
                return try parsed.resolved(now: now) { rel in current(target.appending(rel)) }
            } catch {
                throw .invalidData(target.description, (error as? ValidationError)?.message ?? "\(error)")
            }
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
        guard !closed else { throw .databaseClosed(path.description) }
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
        writes.append(PendingWrite(id: id, path: path, operation: operation, hash: hash, durable: durable, resolved: shown))
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

    /// The write to send next (nil when it is gone: rejected before it was sent, or the engine closed).
    func pendingWrite(_ id: Int64) -> PendingWrite? {
        writes.first { $0.id == id && !$0.acknowledged }
    }

    /// How many writes may wait for their answers at once; the next waits for the oldest answer.
    static let writesInFlight = 256

    /// Runs in a child task of the run loop: submits queued writes in id order without waiting for each answer
    /// (up to ``writesInFlight``), so queued writes go out back to back instead of one per round trip. Success is
    /// applied by the `.writeAcknowledged` event, which arrives after the server's pushes for the write (an answer
    /// completing does not); a refusal by its answer.
    ///
    /// A write whose answer is lost (the socket dropped, the app closed) is sent again, so it may apply twice. For a
    /// plain value that only replays it; an increment would count twice and a transaction could run twice. Those go
    /// alone: after every earlier answer, and before any later write, so at most one of them is ever in doubt.
    nonisolated func sendWrites() async {
        await withDiscardingTaskGroup { group in
            var inFlight: [OneShot<any Error>] = []
            for await id in outboxStream {
                guard let w = await pendingWrite(id) else { continue }
                let alone = w.hash != nil || w.operation.hasIncrement
                inFlight.removeAll { $0.isFinished }
                while let oldest = inFlight.first, alone || inFlight.count >= Self.writesInFlight {
                    try? await oldest.wait()
                    inFlight.removeFirst()
                }
                let write: SubmittedWrite =
                    switch w.operation {
                    case .set(let data): .put(path: w.path, data: data, hash: w.hash)
                    case .merge(let data): .merge(path: w.path, data: data)
                    }
                let answer = await connection.submit(write, receipt: id)
                group.addTask {
                    do {
                        try await answer.wait()
                    } catch {
                        await self.reject(id, error)
                    }
                }
                if alone {
                    try? await answer.wait()
                } else {
                    inFlight.append(answer)
                }
            }
        }
    }

    /// The server accepted a write, after pushing what it changed in this client's live listens: its caller
    /// resumes, it leaves the durable queue, and it leaves the local view in the same step (no flicker) unless a
    /// listen it touches is not live yet (see ``dropSettledWrites()``).
    func acknowledge(_ id: Int64) {
        guard let i = writes.firstIndex(where: { $0.id == id }) else { return }
        writes[i].acknowledged = true
        if writes[i].durable { saveWrites() }
        tickets.removeValue(forKey: id)?.succeed()
        if dropSettledWrites() { refresh() }
    }

    /// Removes the acknowledged writes whose effect the server data now holds: every listen they touch has had
    /// data or an acknowledgement since it was (re)sent, which the server produced after the write. A listen in
    /// flight, or one waiting for a reconnection, may still show cached data from before the write, so the write
    /// stays on top of it until then (the cache would otherwise show an older value between the two).
    /// A write that stays keeps every later write it overlaps with it: those are applied after it, so without them it
    /// would cover their newer values with its older ones. Returns whether any went.
    @discardableResult
    func dropSettledWrites() -> Bool {
        guard writes.contains(where: \.acknowledged) else { return false }
        let waiting = listens.filter { !$0.value.live }.map(\.key.path)
        var kept: [PendingWrite] = []
        for w in writes {
            let settled = w.acknowledged && !waiting.contains(where: w.touches) && !kept.contains { $0.overlaps(w) }
            if !settled { kept.append(w) }
        }
        guard kept.count != writes.count else { return false }
        writes = kept
        return true
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

extension PendingWrite.Operation {
    /// Whether the write holds a `{".sv": {"increment": …}}`, which applies again if the write is sent again.
    var hasIncrement: Bool {
        func search(_ value: JSONValue) -> Bool {
            switch value {
            case .object(let members):
                return members.contains { m in
                    if m.key == ".sv", case .object = m.value { return true }
                    return search(m.value)
                }
            case .array(let items):
                return items.contains(where: search)
            default:
                return false
            }
        }
        switch self {
        case .set(let data): return search(data)
        case .merge(let members): return search(.object(members))
        }
    }
}

extension PendingWrite {
    /// Size of the JSON this write sends (for the queue's bound).
    var byteCount: Int {
        switch operation {
        case .set(let data): return data.jsonBytes.count
        case .merge(let data): return JSONValue.object(data).jsonBytes.count
        }
    }
}
