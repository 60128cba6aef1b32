import HTTPTypes
import HearthCore
import HearthStore
import HearthWire
import Logging
import Hummingbird

extension DatabaseController {
    func get(_ call: RestCall, request: Request) async throws -> Response {
        try checkTimeout(call.parameters)
        let format: RenderFormat = call.parameters["format"] == "export" ? .export : .plain
        let shallow = call.parameters["shallow"] == "true"
        let ifNoneMatch = request.headers[.ifNoneMatchHeader]
        let wantsETag = request.headers[.firebaseETag]?.lowercased() == "true" || ifNoneMatch != nil
            || request.headers[.ifMatchHeader] != nil
        let query: Query?
        if shallow {
            query = try shallowQuery(call.parameters)
        } else {
            do {
                query = try Query(parameters: call.parameters)
            } catch {
                throw RestError.badRequest(error.message)
            }
            if let query { try checkIndex(query, call: call) }
        }
        let path = call.path
        let check = call.readCheck(query: shallow ? nil : query)
        let (node, etag) = try await call.namespace.database.store.snapshot { reader -> (Node, String?) in
            try check?(reader)
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
        var headers = HTTPFields()
        if let etag { headers[.eTag] = etag }
        if let ifNoneMatch, let etag, ifNoneMatch == etag || ifNoneMatch == "\"\(etag)\"" {
            return Response(status: .notModified, headers: headers)
        }
        var bytes = node.jsonBytes(format: format, pretty: call.pretty)
        if let callback = call.parameters["callback"] {
            guard !callback.isEmpty, callback.utf8.allSatisfy({ c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x2E || c == 0x24
            }) else { throw RestError.badRequest("Invalid callback name") }
            bytes = Array(callback.utf8) + [0x28] + bytes + [0x29]
            headers[.contentType] = "application/javascript; charset=utf-8"
            headers[.accessControlAllowOrigin] = "*"
            return call.silent ? Responses.noContent(headers: headers) : Response(status: .ok, headers: headers, body: .init(byteBuffer: .init(bytes: bytes)))
        }
        if let download = call.parameters["download"] {
            let safe = download.filter { $0 != "\"" && $0 != "\r" && $0 != "\n" }
            headers[.contentDisposition] = "attachment; filename=\"\(safe)\""
        }
        if call.silent { return Responses.noContent(headers: headers) }
        return Responses.json(bytes, headers: headers)
    }

    /// GET of `<path>/.priority`: the node's priority (`null` when it has none), under the node's read rules.
    func priority(_ call: RestCall) async throws -> Response {
        for name in ["shallow", "orderBy", "startAt", "startAfter", "endAt", "endBefore", "equalTo", "limitToFirst", "limitToLast"]
        where call.parameters[name] != nil {
            throw RestError.badRequest("\(name) cannot be used on a .priority path")
        }
        let path = call.path
        let check = call.readCheck(query: nil)
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

    func checkIndex(_ query: Query, call: RestCall) throws {
        try checkIndex(query, namespace: call.namespace, path: call.path)
    }

    /// Refuses (or, with `--index-policy scan`, logs) a query whose ordering has no `.indexOn`.
    func checkIndex(_ query: Query, namespace: Namespace, path: Path) throws {
        guard let name = DatabaseController.indexName(query), !namespace.rules.hasIndex(name, at: path) else { return }
        switch configuration.indexPolicy {
        case .enforce:
            throw RestError.badRequest(ErrorMessage.indexNotDefined(name, path: path))
        case .scan:
            logger.notice(
                "query answered by scanning; add an index",
                metadata: ["hearth.ns": "\(namespace.name)", "hearth.path": "\(path)", "hearth.index": "\(name)"])
        }
    }

    /// The `.indexOn` entry a query's ordering needs; nil for key and priority order.
    static func indexName(_ query: Query) -> String? {
        switch query.order {
        case .key, .priority: return nil
        case .value: return ".value"
        case .child(let p): return p.keys.map(\.string).joined(separator: "/")
        }
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
