import HearthCore
import HearthStore
import HearthWire

extension DatabaseService {
    /// Parses a value to write at `path` (server values kept as placeholders).
    package func parseWrite(_ json: JSONValue, at path: Path) throws(DatabaseError) -> ParsedWrite {
        try parseWrite(json, depth: path.count)
    }

    /// Parses a value to write `depth` levels below the root.
    package func parseWrite(_ json: JSONValue, depth: Int) throws(DatabaseError) -> ParsedWrite {
        do {
            return try Node.parseWrite(json, depth: depth)
        } catch {
            throw .invalid(error.message.hasPrefix("Invalid key") ? ErrorMessage.invalidJSON : error.message)
        }
    }

    /// Commits a write under the namespace's current rules for `access`.
    /// A write the rules deny is tried once more when newer rules were stored meanwhile (published on
    /// another node sharing the store): a denied write changed nothing.
    package func commit(_ request: WriteRequest, namespace: Namespace, access: Access) async throws -> WriteOutcome {
        try await namespace.underNewestRules({ rules in
            var request = request
            if case .user(let auth) = access {
                request.authorizer = RulesAuthorizer(rules: rules.ruleSet, auth: auth)
            }
            do {
                return try await namespace.database.write(request)
            } catch let e as ValidationError {
                throw DatabaseError.invalid(e.message)
            } catch let e as PermissionDenied {
                RuleDenials.count(.database, .write)
                throw DatabaseError.permissionDenied(reason: e.reason)
            }
        }, refused: { error in
            guard case .user = access, case .permissionDenied? = error as? DatabaseError else { return false }
            return true
        })
    }

    /// A priority to set alone (`…/.priority`): a number, a string, null or the timestamp server value.
    package func priorityOperation(_ json: JSONValue) throws(DatabaseError) -> WriteRequest.Operation {
        switch json {
        case .null: return .setPriority(nil, placeholder: nil)
        case .int, .double, .string: return .setPriority(Leaf(json: json), placeholder: nil)
        case .object(let m) where m.count == 1 && m[0].key == ".sv" && m[0].value == .string("timestamp"):
            return .setPriority(nil, placeholder: .timestamp)
        default: throw .invalid("Invalid priority: use a number, a string or null")
        }
    }

    /// A multi-path update (`relative/path → value`, `…/.priority` entries) checked for
    /// overlaps and depth, all or nothing.
    package func updateOperation(_ members: [JSONMember], at path: Path) throws(DatabaseError) -> WriteRequest.Operation {
        var entries: [(path: Path, value: ParsedWrite)] = []
        var priorities: [(path: Path, priority: Leaf?)] = []
        for m in members {
            if m.key == ".priority" || m.key.hasSuffix("/.priority") {
                let relative = try Self.updatePath(String(m.key.dropLast(".priority".count)))
                switch m.value {
                case .null: priorities.append((relative, nil))
                case .int, .double, .string: priorities.append((relative, Leaf(json: m.value)))
                default: throw .invalid("Invalid priority: use a number, a string or null")
                }
                continue
            }
            let relative = try Self.updatePath(m.key)
            guard !relative.isRoot else { throw .invalid(ErrorMessage.invalidPatch) }
            let target = path.appending(relative)
            guard target.count <= Limits.maxDepth else { throw .invalid("Invalid data; path is too deep (over 32 levels)") }
            entries.append((relative, try parseWrite(m.value, at: target)))
        }
        try Self.checkDisjoint(entries.map(\.path), priorities: priorities.map(\.path))
        return .update(entries, priorities: priorities)
    }

    private static func updatePath(_ key: String) throws(DatabaseError) -> Path {
        do {
            return try Path.validated(key)
        } catch {
            throw .invalid(ErrorMessage.invalidPatch)
        }
    }

    /// Refuses an update that names a location twice, two overlapping locations, or a location and
    /// its priority separately.
    private static func checkDisjoint(_ paths: [Path], priorities: [Path]) throws(DatabaseError) {
        // Two spellings of one path (`a/b` and `a//b`) overlap as surely as an ancestor does.
        var all = Set<Path>()
        for path in paths where !all.insert(path).inserted {
            throw .invalid("Invalid data; the update contains the path \(path) twice")
        }
        // Each check looks up the ancestors of one path (at most 32) in the set: comparing every priority
        // with every path instead was O(n²) for n paths and n priorities.
        var priorityPaths = Set<Path>()
        for p in priorities {
            guard priorityPaths.insert(p).inserted else { throw .invalid("Invalid data; the update sets the priority of \(p) twice") }
            var prefix = p
            while true {
                if all.contains(prefix) { throw .invalid("Invalid data; the update sets \(p) and its priority separately") }
                guard let parent = prefix.parent else { break }
                prefix = parent
            }
        }
        for p in all {
            var prefix = p
            while let parent = prefix.parent, !parent.isRoot {
                if all.contains(parent) { throw .invalid("Invalid data; the update contains overlapping paths \(parent) and \(p)") }
                prefix = parent
            }
        }
    }
}
