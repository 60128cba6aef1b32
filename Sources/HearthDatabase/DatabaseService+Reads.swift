import HearthCore
import HearthRules
import HearthStore
import HearthWire
import Logging

extension DatabaseService {
    /// A location a client named (`a/b`, leading and trailing slashes allowed), validated.
    package func path(_ raw: String) throws(DatabaseError) -> Path {
        do {
            return try Path.validated(raw)
        } catch {
            throw .invalid(error.message)
        }
    }

    /// The read check to run inside a read's snapshot; nil for admin, whom rules do not bind.
    /// - Parameter query: what the rules see as `query` (nil for a plain read).
    /// - Parameter rules: the rules to check under (the namespace's current ones by default).
    package func readCheck(_ path: Path, in namespace: Namespace, access: Access, query: Query?, rules document: RulesDocument? = nil)
        -> (@Sendable (any StoreReader) throws -> Void)?
    {
        guard case .user(let auth) = access else { return nil }
        let rules = (document ?? namespace.rules).ruleSet
        let clock = self.clock
        return { reader in
            let decision = rules.canRead(path, auth: auth, query: query, now: clock(), data: StoreRuleData(reader: reader))
            if !decision.allowed { RuleDenials.count(.database, .read) }
            if !decision.allowed { throw DatabaseError.permissionDenied(reason: decision.reason) }
        }
    }

    /// The data at `path` (or the query's result) with the commit sequence it reflects, after the
    /// read rules allowed it, in one snapshot.
    /// - Parameters:
    ///   - query: what is read (nil: the whole location).
    ///   - rulesQuery: what the rules see as `query` (an order-only read reads everything but still has an order).
    /// A read the rules deny is checked once more when newer rules were stored meanwhile (published on
    /// another node sharing the store).
    package func checkedRead(_ path: Path, in namespace: Namespace, access: Access, query: Query?, rulesQuery: Query?)
        async throws -> (Node, UInt64)
    {
        try await namespace.underNewestRules({ rules in
            let check = readCheck(path, in: namespace, access: access, query: rulesQuery, rules: rules)
            return try await namespace.database.store.snapshot { reader in
                try check?(reader)
                let node = try query.map { try reader.query(path, $0) } ?? reader.read(path)
                return (node, try reader.sequence())
            }
        }, refused: { error in
            guard case .permissionDenied? = error as? DatabaseError else { return false }
            return true
        })
    }

    /// Whether `access` may read `path` (with `query`) under the namespace's current rules, and the
    /// commit sequence the answer reflects.
    package func readDecision(_ path: Path, in namespace: Namespace, access: Access, query: Query?) async throws
        -> (allowed: Bool, sequence: UInt64)
    {
        let auth = access.userAuth
        let rules = namespace.rules.ruleSet
        let now = clock()
        return try await namespace.database.store.snapshot { reader in
            let allowed = auth.map { rules.canRead(path, auth: $0, query: query, now: now, data: StoreRuleData(reader: reader)).allowed } ?? true
            if !allowed { RuleDenials.count(.database, .read) }
            return (allowed, try reader.sequence())
        }
    }

    /// Whether `access` may read `path` (with `query`) now; false when the store cannot answer.
    package func mayRead(_ path: Path, in namespace: Namespace, access: Access, query: Query?) async -> Bool {
        guard case .user = access else { return true }
        return (try? await readDecision(path, in: namespace, access: access, query: query).allowed) ?? false
    }

    /// Whether `access` may make these writes now, as the commit would check them (for onDisconnect
    /// operations, checked when registered and again when they run).
    package func mayWrite(_ writes: [(Path, ParsedWrite)], priorities: [(path: Path, priority: Leaf?)], in namespace: Namespace, access: Access)
        async throws -> Bool
    {
        guard case .user(let auth) = access else { return true }
        let rules = namespace.rules.ruleSet
        let now = clock()
        return try await namespace.database.store.snapshot { reader in
            var resolved = try writes.map { (path, parsed) in
                (path: path, node: try parsed.resolved(now: now) { try reader.read(path.appending($0)) })
            }
            // Priority entries are writes too, checked as the commit will check them.
            for (target, priority) in priorities { resolved.append((target, try reader.read(target).withPriority(priority))) }
            return rules.canWrite(resolved, auth: auth, now: now, data: StoreRuleData(reader: reader)).allowed
        }
    }

    /// ``checkIndex(_:in:at:)``, but before refusing, looks for newer stored rules (published on
    /// another node sharing the store, whose notice is still on the way).
    package func checkIndexUnderNewestRules(_ query: Query, in namespace: Namespace, at path: Path) async throws(DatabaseError) {
        let rules = namespace.rules
        do {
            try checkIndex(query, in: namespace, at: path)
        } catch {
            guard await namespace.rulesChanged(since: rules) else { throw error }
            try checkIndex(query, in: namespace, at: path)
        }
    }

    /// Refuses (or, with ``IndexPolicy/scan``, logs) a query whose ordering has no `.indexOn`.
    package func checkIndex(_ query: Query, in namespace: Namespace, at path: Path) throws(DatabaseError) {
        guard let name = Self.indexName(query), !namespace.rules.hasIndex(name, at: path) else { return }
        switch indexPolicy {
        case .enforce:
            throw .invalid(ErrorMessage.indexNotDefined(name, path: path))
        case .scan:
            logger.notice(
                "query answered by scanning; add an index",
                metadata: ["hearth.ns": "\(namespace.name)", "hearth.path": "\(path)", "hearth.index": "\(name)"])
        }
    }

    /// The `.indexOn` entry a query's ordering needs; nil for key and priority order.
    package static func indexName(_ query: Query) -> String? {
        switch query.order {
        case .key, .priority: return nil
        case .value: return ".value"
        case .child(let p): return p.keys.map(\.string).joined(separator: "/")
        }
    }
}
