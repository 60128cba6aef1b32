import Foundation
import HTTPTypes
import HearthCore
import HearthDatabase
import Hummingbird
import NIOCore

extension DatabaseController {
    /// `/.settings/namespaces[/<name>].json` (admin only; checked by the caller):
    /// - `GET /.settings/namespaces.json` → `["demo","other"]`, every database that exists;
    /// - `GET /.settings/namespaces/<name>.json` → `{"name":"<name>"}`, or 404;
    /// - `PUT /.settings/namespaces/<name>.json` creates one; the body, when not empty, is its rules
    ///   document (as for `/.settings/rules.json`), else it starts locked (`.read`/`.write` false);
    ///   409 if it exists;
    /// - `DELETE /.settings/namespaces/<name>.json` deletes one and all its data.
    func namespaces(_ request: Request, segments: ArraySlice<Substring>, parameters: [String: String]) async throws -> Response {
        let pretty = parameters["print"] == "pretty"
        func reply(_ value: JSONValue) -> Response {
            var w = JSONWriter(pretty: pretty)
            w.write(value)
            return Responses.json(w.bytes)
        }
        guard let first = segments.first else {
            guard request.method == .get else { throw RestError(.methodNotAllowed, "Method not allowed") }
            return reply(.array(registry.names.map { .string($0) }))
        }
        guard segments.count == 1, let name = percentDecode(first), NamespaceRegistry.isValid(name) else {
            throw RestError.badRequest("A database name is 1-63 letters, digits, - or _")
        }
        switch request.method {
        case .get:
            guard registry.names.contains(name) else { throw RestError(NamespaceError.notFound) }
            return reply(.object([JSONMember("name", .string(name))]))
        case .put:
            let text = try await rulesText(request)
            var rules: RulesDocument?
            if !text.allSatisfy(\.isWhitespace), text.trimmingCharacters(in: .whitespacesAndNewlines) != "null" {
                do {
                    rules = try RulesDocument(source: text)
                } catch {
                    throw RestError.badRequest(error.message)
                }
            }
            do {
                try await registry.create(name, rules: rules)
            } catch {
                throw RestError(error)
            }
            return reply(.object([JSONMember("name", .string(name)), JSONMember("status", .string("created"))]))
        case .delete:
            do {
                try await registry.delete(name)
            } catch {
                throw RestError(error)
            }
            return reply(.object([JSONMember("status", .string("ok"))]))
        default:
            throw RestError(.methodNotAllowed, "Method not allowed")
        }
    }
}
