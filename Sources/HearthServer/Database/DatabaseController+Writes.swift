import HTTPTypes
import HearthCore
import HearthStore
import HearthWire
import Hummingbird

extension DatabaseController {
    func checkWriteSizeLimit(_ p: [String: String]) throws {
        guard let v = p["writeSizeLimit"] else { return }
        guard ["tiny", "small", "medium", "large", "unlimited"].contains(v) else {
            throw RestError.badRequest("Invalid writeSizeLimit: use tiny, small, medium, large or unlimited")
        }
    }

    func parseWrite(_ json: JSONValue, at path: Path) throws -> ParsedWrite {
        try parseWrite(json, depth: path.count)
    }

    func parseWrite(_ json: JSONValue, depth: Int) throws -> ParsedWrite {
        do {
            return try Node.parseWrite(json, depth: depth)
        } catch {
            throw RestError.badRequest(
                error.message.hasPrefix("Invalid key") ? ErrorMessage.invalidJSON : error.message)
        }
    }

    func commit(_ call: RestCall, _ request: WriteRequest) async throws -> WriteOutcome {
        try await commit(request, namespace: call.namespace, access: call.access)
    }

    /// Commits a write under the namespace's current rules for `access`.
    func commit(_ request: WriteRequest, namespace: Namespace, access: Access) async throws -> WriteOutcome {
        var request = request
        if case .user(let auth) = access {
            request.authorizer = RulesAuthorizer(rules: namespace.rules.ruleSet, auth: auth)
        }
        do {
            return try await namespace.database.write(request)
        } catch let e as ValidationError {
            throw RestError.badRequest(e.message)
        } catch let e as PermissionDenied {
            throw RestError.permissionDenied(e.reason)
        }
    }

    func respondToWrite(_ call: RestCall, _ outcome: WriteOutcome) -> Response {
        switch outcome {
        case .committed(let echo, let etag):
            var headers = HTTPFields()
            if let etag { headers[.eTag] = etag }
            return render(call, echo.restBody, headers: headers)
        case .preconditionFailed(let current, let etag):
            var headers = HTTPFields()
            headers[.eTag] = etag
            return Responses.json(current.jsonBytes(), status: .preconditionFailed, headers: headers)
        }
    }

    func put(_ call: RestCall, request: Request) async throws -> Response {
        try checkWriteSizeLimit(call.parameters)
        let json = try await body(request)
        let ifMatch = request.headers[.ifMatchHeader]
        if call.isPriority {
            let outcome = try await commit(call, WriteRequest(
                path: call.path, operation: try priorityOperation(json), ifMatch: ifMatch, wantsETag: ifMatch != nil))
            return respondToWrite(call, outcome)
        }
        let parsed = try parseWrite(json, at: call.path)
        let outcome = try await commit(call, WriteRequest(path: call.path, operation: .set(parsed), ifMatch: ifMatch, wantsETag: ifMatch != nil))
        return respondToWrite(call, outcome)
    }

    func post(_ call: RestCall, request: Request) async throws -> Response {
        try checkWriteSizeLimit(call.parameters)
        let json = try await body(request)
        // The child is one level below the path; the writer names it when it commits.
        let parsed = try parseWrite(json, depth: call.path.count + 1)
        let outcome = try await commit(call, WriteRequest(path: call.path, operation: .push(parsed)))
        return respondToWrite(call, outcome)
    }

    func delete(_ call: RestCall, request: Request) async throws -> Response {
        let ifMatch = request.headers[.ifMatchHeader]
        // DELETE of `<path>/.priority` clears the priority; the node stays.
        let operation: WriteRequest.Operation = call.isPriority
            ? .setPriority(nil, placeholder: nil) : .set(ParsedWrite(node: .empty, placeholders: []))
        let outcome = try await commit(call, WriteRequest(path: call.path, operation: operation, ifMatch: ifMatch, wantsETag: ifMatch != nil))
        if case .committed(_, let etag) = outcome {
            var headers = HTTPFields()
            if let etag { headers[.eTag] = etag }
            return render(call, Array("null".utf8), headers: headers)
        }
        return respondToWrite(call, outcome)
    }

    func patch(_ call: RestCall, request: Request) async throws -> Response {
        try checkWriteSizeLimit(call.parameters)
        let json = try await body(request)
        let members: [JSONMember]
        switch json {
        case .null:
            let outcome = try await commit(call, WriteRequest(path: call.path, operation: .set(ParsedWrite(node: .empty, placeholders: []))))
            return respondToWrite(call, outcome)
        case .object(let m): members = m
        default: throw RestError.badRequest(ErrorMessage.invalidPatch)
        }
        let outcome = try await commit(call, WriteRequest(path: call.path, operation: try updateOperation(members, at: call.path)))
        return respondToWrite(call, outcome)
    }

    /// A PUT to `…/.priority`: a number, a string, null or the timestamp server value.
    func priorityOperation(_ json: JSONValue) throws -> WriteRequest.Operation {
        switch json {
        case .null: return .setPriority(nil, placeholder: nil)
        case .int, .double, .string: return .setPriority(Leaf(json: json), placeholder: nil)
        case .object(let m) where m.count == 1 && m[0].key == ".sv" && m[0].value == .string("timestamp"):
            return .setPriority(nil, placeholder: .timestamp)
        default: throw RestError.badRequest("Invalid priority: use a number, a string or null")
        }
    }

    /// A multi-path update (`relative/path → value`, `…/.priority` entries) checked for
    /// overlaps and depth, all or nothing.
    func updateOperation(_ members: [JSONMember], at path: Path) throws -> WriteRequest.Operation {
        var entries: [(path: Path, value: ParsedWrite)] = []
        var priorities: [(path: Path, priority: Leaf?)] = []
        for m in members {
            if m.key == ".priority" || m.key.hasSuffix("/.priority") {
                let relative: Path
                do {
                    relative = try Path.validated(String(m.key.dropLast(".priority".count)))
                } catch {
                    throw RestError.badRequest(ErrorMessage.invalidPatch)
                }
                switch m.value {
                case .null: priorities.append((relative, nil))
                case .int, .double, .string: priorities.append((relative, Leaf(json: m.value)))
                default: throw RestError.badRequest("Invalid priority: use a number, a string or null")
                }
                continue
            }
            let relative: Path
            do {
                relative = try Path.validated(m.key)
            } catch {
                throw RestError.badRequest(ErrorMessage.invalidPatch)
            }
            guard !relative.isRoot else { throw RestError.badRequest(ErrorMessage.invalidPatch) }
            let target = path.appending(relative)
            guard target.count <= Limits.maxDepth else { throw RestError.badRequest("Invalid data; path is too deep (over 32 levels)") }
            entries.append((relative, try parseWrite(m.value, at: target)))
        }
        // Two spellings of one path (`a/b` and `a//b`) overlap as surely as an ancestor does.
        var seen = Set<Path>()
        for entry in entries where !seen.insert(entry.path).inserted {
            throw RestError.badRequest("Invalid data; the update contains the path \(entry.path) twice")
        }
        let all = seen
        // Each check looks up the ancestors of one path (at most 32) in the set: comparing every priority
        // with every path instead was O(n²) for n paths and n priorities.
        var priorityPaths = Set<Path>()
        for p in priorities {
            guard priorityPaths.insert(p.path).inserted else {
                throw RestError.badRequest("Invalid data; the update sets the priority of \(p.path) twice")
            }
            var prefix = p.path
            while true {
                if all.contains(prefix) { throw RestError.badRequest("Invalid data; the update sets \(p.path) and its priority separately") }
                guard let parent = prefix.parent else { break }
                prefix = parent
            }
        }
        for p in all {
            var prefix = p
            while let parent = prefix.parent, !parent.isRoot {
                if all.contains(parent) { throw RestError.badRequest("Invalid data; the update contains overlapping paths \(parent) and \(p)") }
                prefix = parent
            }
        }
        return .update(entries, priorities: priorities)
    }
}
