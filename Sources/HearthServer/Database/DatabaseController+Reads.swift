import HTTPTypes
import HearthCore
import HearthDatabase
import HearthStore
import HearthWire
import Logging
import Hummingbird
import HummingbirdCore
import NIOCore

extension DatabaseController {
    /// A read or query refused under the rules in force is tried once more when other rules were stored
    /// meanwhile (published on another node sharing the store, whose notice is still on the way).
    func get(_ call: RestCall, request: Request) async throws -> Response {
        if call.parameters["shallow"] == "values" { return try await shallowValues(call) }
        // The plan checks under the namespace's rules in force, which the retry has just replaced.
        return try await call.namespace.underNewestRules({ _ in
            let plan = try readPlan(call, headers: request.headers)
            let (node, etag) = try await call.namespace.database.store.snapshot { reader in try plan.read(reader) }
            return try plan.reply(node, etag: etag).response
        }, refused: { error in
            // Refused for want of an index, or by the read rules.
            switch error as? DatabaseError {
            case .invalid? where call.parameters["orderBy"] != nil, .permissionDenied?: return true
            default: return false
            }
        })
    }

    /// How a GET (or HEAD) is read and answered: everything the request asks for, checked before
    /// the snapshot is taken.
    struct ReadPlan: Sendable {
        let call: RestCall
        let format: RenderFormat
        let shallow: Bool
        let query: Query?
        let ifNoneMatch: String?
        let wantsETag: Bool
        let check: (@Sendable (any StoreReader) throws -> Void)?

        /// The node and, when asked for, its ETag.
        func read(_ reader: any StoreReader) throws -> (Node, String?) {
            try check?(reader)
            let path = call.path
            if shallow {
                return (try reader.shallow(path, query), wantsETag ? try reader.read(path).etag : nil)
            }
            if let query {
                let result = try reader.query(path, query)
                return (result, wantsETag ? try reader.read(path).etag : nil)
            }
            let node = try reader.read(path)
            return (node, wantsETag ? node.etag : nil)
        }

        /// As `read`, but nil when the answer would take more than `rowLimit` stored rows (or a
        /// query or shallow read, which is not bounded that way).
        func read(_ reader: any StoreReader, rowLimit: Int) throws -> (Node, String?)? {
            guard !shallow, query == nil else { return nil }
            try check?(reader)
            guard let node = try reader.read(call.path, rowLimit: rowLimit) else { return nil }
            return (node, wantsETag ? node.etag : nil)
        }

        func reply(_ node: Node, etag: String?) throws -> InlineReply {
            var headers = HTTPFields()
            if let etag { headers[.eTag] = etag }
            if let ifNoneMatch, let etag, ifNoneMatch == etag || ifNoneMatch == "\"\(etag)\"" {
                return InlineReply(status: .notModified, headers: headers)
            }
            var bytes = node.jsonBytes(format: format, pretty: call.pretty)
            if let callback = call.parameters["callback"] {
                guard !callback.isEmpty, callback.utf8.allSatisfy({ c in
                    (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x2E || c == 0x24
                }) else { throw RestError.badRequest("Invalid callback name") }
                bytes = Array(callback.utf8) + [0x28] + bytes + [0x29]
                headers[.contentType] = "application/javascript; charset=utf-8"
                headers[.accessControlAllowOrigin] = "*"
                return call.silent ? Responses.noContentReply(headers: headers) : InlineReply(status: .ok, headers: headers, body: .init(bytes: bytes))
            }
            if let download = call.parameters["download"] {
                let safe = download.filter { $0 != "\"" && $0 != "\r" && $0 != "\n" }
                headers[.contentDisposition] = "attachment; filename=\"\(safe)\""
            }
            if call.silent { return Responses.noContentReply(headers: headers) }
            return Responses.jsonReply(bytes, headers: headers)
        }
    }

    func readPlan(_ call: RestCall, headers: HTTPFields) throws -> ReadPlan {
        try checkTimeout(call.parameters)
        let format: RenderFormat = call.parameters["format"] == "export" ? .export : .plain
        let shallow = call.parameters["shallow"] == "true"
        let ifNoneMatch = headers[.ifNoneMatchHeader]
        let wantsETag = headers[.firebaseETag]?.lowercased() == "true" || ifNoneMatch != nil || headers[.ifMatchHeader] != nil
        let query: Query?
        if shallow {
            query = try shallowQuery(call.parameters)
        } else {
            do {
                query = try Query(parameters: call.parameters)
            } catch {
                throw RestError.badRequest(error.message)
            }
            if let query { try service.checkIndex(query, in: call.namespace, at: call.path) }
        }
        return ReadPlan(
            call: call, format: format, shallow: shallow, query: query, ifNoneMatch: ifNoneMatch, wantsETag: wantsETag,
            check: readCheck(call, query: query))
    }

    /// The largest read answered on an event loop: a bigger one goes the asynchronous way, so one
    /// read never holds up the other connections on the loop for long.
    static let inlineRowLimit = 256

    /// The query parameters a read answered on the event loop may carry; any other (a query, a
    /// timeout, `shallow`, a callback) sends it the asynchronous way.
    static let inlineParameters: Set<String> = ["auth", "access_token", "print", "format", "ns"]

    /// Answers a small plain read at once on the calling thread (the connection's event loop), the
    /// same as `respond` would: its namespace is open, its store reads without waiting, and it
    /// touches at most ``inlineRowLimit`` rows. Nil sends the request the asynchronous way.
    func respondNow(to head: HTTPRequest, uri: URI) -> InlineReply? {
        guard head.method == .get, head.headerFields[.accept]?.contains("text/event-stream") != true else { return nil }
        let parameters = parseQueryString(uri.query)
        guard parameters.keys.allSatisfy(Self.inlineParameters.contains) else { return nil }
        let pretty = parameters["print"] == "pretty"
        do {
            guard case .rest(let target) = try target(head, path: uri.path, parameters: parameters), target.method == .get, !target.isPriority,
                let lease = registry.leaseIfOpen(target.namespaceName)
            else { return nil }
            defer { registry.release(lease) }
            let namespace = lease.namespace
            let plan = try readPlan(try call(target, namespace: namespace, parameters: parameters), headers: head.headerFields)
            guard let answered = try namespace.database.store.snapshotNow({ reader in try plan.read(reader, rowLimit: Self.inlineRowLimit) }),
                case let (node, etag)? = answered
            else { return nil }
            return try plan.reply(node, etag: etag)
        } catch {
            return errorReply(error, pretty: pretty)
        }
    }

    /// GET of `<path>/.priority`: the node's priority (`null` when it has none), under the node's read rules.
    func priority(_ call: RestCall) async throws -> Response {
        for name in ["shallow", "orderBy", "startAt", "startAfter", "endAt", "endBefore", "equalTo", "limitToFirst", "limitToLast"]
        where call.parameters[name] != nil {
            throw RestError.badRequest("\(name) cannot be used on a .priority path")
        }
        let path = call.path
        let check = readCheck(call, query: nil)
        let priority = try await call.namespace.database.store.snapshot { reader -> Leaf? in
            try check?(reader)
            return try reader.read(path).priority
        }
        return render(call, (priority?.json ?? .null).jsonBytes)
    }

    /// `shallow=true` may be combined only with key-ordered paging (as firebase-tools does).
    func shallowQuery(_ p: [String: String]) throws -> Query? {
        let allowed: Set<String> = ["limitToFirst", "startAfter", "startAt", "orderBy"]
        for name in ["startAt", "startAfter", "endAt", "endBefore", "equalTo", "limitToFirst", "limitToLast", "orderBy"]
        where p[name] != nil && !allowed.contains(name) {
            throw RestError.badRequest("shallow cannot be combined with \(name)")
        }
        if let o = p["orderBy"], o != "\"$key\"" { throw RestError.badRequest("shallow can only be combined with orderBy \"$key\"") }
        func key(_ raw: String) -> Leaf {
            if case .string(let s)? = try? JSONValue.parse(raw) { return .string(s) }
            return .string(raw)
        }
        var q = Query(order: .key)
        if let s = p["startAt"] { q.start = .init(value: key(s)) }
        if let s = p["startAfter"] { q.start = .init(value: key(s), strict: true) }
        if let l = p["limitToFirst"] {
            guard let n = Int(l), n >= 0 else { throw RestError.badRequest("limitToFirst must be a non-negative integer") }
            q.limit = .first(n)
        }
        return q.isUnfiltered ? nil : q
    }

    func checkTimeout(_ p: [String: String]) throws {
        guard let t = p["timeout"] else { return }
        let units: [(String, Double)] = [("ms", 0.001), ("min", 60), ("s", 1)]
        for (suffix, factor) in units where t.hasSuffix(suffix) {
            if let n = Double(t.dropLast(suffix.count)), n > 0, n * factor <= 900 { return }
            break
        }
        throw RestError.badRequest("Invalid timeout: use a positive number of ms, s or min up to 15min")
    }
}
