import HTTPTypes
import HearthCore
import HearthDatabase
import HearthRules
import HearthStore
import HearthWire
import Hummingbird

extension DatabaseController {
    /// `/.settings/rules.json`: read or replace the rules document (admin only).
    func settings(
        _ request: Request, segments: [Substring], identity: Identity, namespace: Namespace, parameters: [String: String]
    ) async throws -> Response {
        guard segments == ["rules"] else { throw RestError(.notFound, "Unknown settings location") }
        guard case .admin = identity else { throw RestError.permissionDenied }
        switch request.method {
        case .get:
            let rules = namespace.rules
            if parameters["format"] == "strict" {
                var w = JSONWriter(pretty: true)
                w.write(rules.json)
                return Responses.json(w.bytes)
            }
            return Responses.json(Array(rules.source.utf8))
        case .put:
            let text = try await rulesText(request)
            let rules: RulesDocument
            do {
                rules = try RulesDocument(source: text)
            } catch {
                throw RestError.badRequest(error.message)
            }
            let specs = rules.indexSpecs
            try await namespace.database.store.write { tx in
                try tx.setSetting("rules", text)
                try tx.setIndexes(specs)
            }
            namespace.install(rules)
            return Responses.json(JSONValue.object([JSONMember("status", .string("ok"))]).jsonBytes)
        default:
            throw RestError(.methodNotAllowed, "Method not allowed")
        }
    }

    /// A rules document's text from a request body (one the admin sends to `/.settings`).
    func rulesText(_ request: Request) async throws -> String {
        do {
            return String(buffer: try await request.body.collect(upTo: configuration.maxBodyBytes))
        } catch {
            throw RestError.badRequest("Rules document too large")
        }
    }
}
