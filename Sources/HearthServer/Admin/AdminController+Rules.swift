import Foundation
import HearthCore
import HearthDatabase
import HearthRules
import Hummingbird
import NIOCore

extension AdminController {
    /// `/.hearth/rules/…`: the rules checker, the simulator and the cases runner, for the console's Rules page. Every
    /// endpoint is `POST` with a JSON body and answers JSON; a malformed request is 400 `{"error":"message"}`, another
    /// method 405, another path 404. Publishing uses the public endpoints (`PUT /.settings/rules.json?ns=…` for a
    /// database, `PUT /internal/setRules` for storage).
    ///
    /// - `POST /.hearth/rules/check` `{"kind":"database"|"storage","source":"…"}` → `{"ok":true}` or
    ///   `{"ok":false,"errors":[{"line":L,"column":C,"message":"…"}]}`: the checker of `hearth rules check` (for
    ///   storage, the storage rules compiler the server loads rules with). Lines and columns are 1-based, columns
    ///   counted in characters. The checker stops at the first error, so `errors` holds one.
    /// - `POST /.hearth/rules/simulate`: one request decided by rules, see ``simulateDatabase(_:)`` and
    ///   ``simulateStorage(_:)``.
    /// - `POST /.hearth/rules/test` `{"kind":"database","namespace"?,"source"?,"cases":…}` → `{"passed":n,"failed":m,
    ///   "results":[{"name","expected":"allow"|"deny","allowed":bool,"ok":bool,"reason"}]}`: runs the cases of
    ///   `hearth rules test` (`cases` is the same JSON: an array of cases or `{"data"?, "cases":[…]}`) against
    ///   `source`, or the namespace's published rules when there is no `source` (`namespace` defaults to the
    ///   server's default database). Cases never read the namespace's data: each has its `data` (or the file's).
    ///   A case that cannot be read or run is counted failed, with `"error"` and no `allowed`. At most 1,000 cases.
    ///   A draft `source` with an error is 400 naming its line and column.
    func rules(_ request: Request, _ rest: Substring) async throws -> Response {
        let action = rest.drop { $0 == "/" }
        guard ["check", "simulate", "test"].contains(action) else { throw AdminError(.notFound, "No admin endpoint at \(request.uri.path)") }
        guard request.method == .post else { throw AdminError(.methodNotAllowed, "\(request.method) is not allowed here; use POST") }
        let body = try await rulesBody(request)
        let kind = try RulesKind(body)
        switch (action, kind) {
        case ("check", _): return ConsoleController.json(try Self.check(body, kind: kind))
        case ("simulate", .database): return ConsoleController.json(try await simulateDatabase(body))
        case ("simulate", .storage): return ConsoleController.json(try await simulateStorage(body))
        case (_, .database): return ConsoleController.json(try await runCases(body))
        case (_, .storage): throw AdminError.badRequest("Cases files are for database rules; simulate storage requests one by one.")
        }
    }

    /// The request's JSON object (bounded by the server's body limit).
    private func rulesBody(_ request: Request) async throws -> JSONValue {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: configuration.maxBodyBytes)
        } catch {
            throw AdminError(.contentTooLarge, "The request body is over \(configuration.maxBodyBytes) bytes")
        }
        let json: JSONValue
        do {
            json = try buffer.withUnsafeReadableBytes { raw in try JSONReader(maxDepth: 128).parse(raw) }
        } catch {
            throw AdminError.badRequest("The body is not valid JSON")
        }
        guard case .object = json else { throw AdminError.badRequest("The body is a JSON object") }
        return json
    }

    /// `check`: compiles `source` and reports its first error.
    private static func check(_ body: JSONValue, kind: RulesKind) throws -> JSONValue {
        guard let source = body["source"]?.stringValue else { throw AdminError.badRequest("\"source\" (the rules text) is required") }
        let failure: RulesError?
        switch kind {
        case .database:
            do { _ = try RuleSet(source: source); failure = nil } catch { failure = error }
        case .storage:
            do { _ = try StorageRules(source: source); failure = nil } catch { failure = error }
        }
        guard let failure else { return .object([JSONMember("ok", .bool(true))]) }
        let item = JSONValue.object([
            JSONMember("line", .int(Int64(failure.line))), JSONMember("column", .int(Int64(failure.column))),
            JSONMember("message", .string(failure.message)),
        ])
        return .object([JSONMember("ok", .bool(false)), JSONMember("errors", .array([item]))])
    }

    /// `test`: every case against the draft or the published rules.
    private func runCases(_ body: JSONValue) async throws -> JSONValue {
        let rules = try await databaseRules(body)
        var data = Node.empty
        let list: [JSONValue]
        switch body["cases"] {
        case .array(let items)?: list = items
        case .object(let file)?:
            let file = JSONValue.object(file)
            guard case .array(let items)? = file["cases"] else { throw AdminError.badRequest("The cases file needs a \"cases\" array") }
            list = items
            if let d = file["data"] {
                do { data = try Node(json: d) } catch { throw AdminError.badRequest("The cases file's \"data\" is invalid: \(error.message)") }
            }
        default: throw AdminError.badRequest("\"cases\" is an array of cases or {\"data\"?, \"cases\": […]}")
        }
        guard list.count <= 1000 else { throw AdminError.badRequest("At most 1000 cases at once (\(list.count) given)") }
        var results: [JSONValue] = []
        var passed = 0
        for (i, item) in list.enumerated() {
            let name = item["name"]?.stringValue ?? "case \(i + 1)"
            let expected = JSONMember("expected", item["expect"]?.stringValue.map { .string($0) } ?? .null)
            do {
                let testCase = try RulesTestCase(json: item, defaultData: data)
                let decision = try testCase.evaluate(rules)
                let ok = decision.allowed == testCase.expectAllowed
                if ok { passed += 1 }
                results.append(.object([
                    JSONMember("name", .string(name)), expected, JSONMember("allowed", .bool(decision.allowed)),
                    JSONMember("ok", .bool(ok)), JSONMember("reason", .string(decision.reason)),
                ]))
            } catch {
                results.append(.object([
                    JSONMember("name", .string(name)), expected, JSONMember("ok", .bool(false)),
                    JSONMember("error", .string(error.message)), JSONMember("reason", .string("the case could not run: \(error.message)")),
                ]))
            }
        }
        return .object([
            JSONMember("passed", .int(Int64(passed))), JSONMember("failed", .int(Int64(list.count - passed))),
            JSONMember("results", .array(results)),
        ])
    }

    /// The draft `source` compiled (400 with its line and column when it has an error), else the published rules of
    /// `namespace`.
    func databaseRules(_ body: JSONValue) async throws -> RuleSet {
        if let source = body["source"], source != .null {
            guard let text = source.stringValue else { throw AdminError.badRequest("\"source\" is the rules text") }
            do {
                return try RuleSet(source: text)
            } catch {
                throw AdminError.badRequest("The rules have an error at line \(error.line), column \(error.column): \(error.message)")
            }
        }
        return try await withNamespace(body) { $0.rules.ruleSet }
    }
}

/// Which rules a `/.hearth/rules` request is about: `kind` (default `database`).
enum RulesKind {
    /// A Realtime Database rules document.
    case database
    /// A Cloud Storage rules file.
    case storage

    /// `kind` from a request body.
    init(_ body: JSONValue) throws {
        switch body["kind"] {
        case nil, .null?, .string("database")?: self = .database
        case .string("storage")?: self = .storage
        default: throw AdminError.badRequest("\"kind\" is \"database\" or \"storage\"")
        }
    }
}
