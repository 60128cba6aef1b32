import HearthCore
import HearthRules
import HearthStorage
import Hummingbird
import NIOCore

/// `PUT /internal/setRules` (the emulator's shape: `{"rules":{"files":[{"name","content"}]}}`) and
/// `GET /internal/getRules`. Admin only outside `--dev`.
extension StorageController {
    func rulesEndpoint(_ request: Request) async throws -> Response {
        try requireAdmin(request)
        switch (request.method, request.uri.path) {
        case (.get, "/internal/getRules"):
            return Self.json(.object([JSONMember("rules", .object([JSONMember("files", .array([.object([
                JSONMember("name", .string("storage.rules")), JSONMember("content", .string(access.rules.current.source)),
            ])]))]))]))
        case (.put, "/internal/setRules"), (.post, "/internal/setRules"):
            let body = try await metadataBody(request)
            guard case .array(let files)? = body["rules"]?["files"], let content = files.first?["content"]?.stringValue else {
                throw StorageError.badRequest("Expected {\"rules\":{\"files\":[{\"name\":\"storage.rules\",\"content\":\"…\"}]}}")
            }
            do {
                try access.rules.replace(with: content)
            } catch let error as RulesError {
                throw StorageError.badRequest("\(error)")
            }
            return Self.json(.object([]))
        default:
            throw StorageError.notFound()
        }
    }
}
