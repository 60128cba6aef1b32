import Foundation
import HearthCore
import HearthSQLite
import HearthStore

/// Every storage backend the conformance suite runs against.
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory
    case sqlite

    var testDescription: String { rawValue }

    func makeStore(folder: String? = nil) throws -> any DatabaseStore {
        switch self {
        case .memory: return MemoryStore()
        case .sqlite:
            let dir = folder ?? Backend.temporaryFolder()
            return try SQLiteStore(path: dir + "/test.sqlite", durability: .normal)
        }
    }

    static func temporaryFolder() -> String {
        let dir = NSTemporaryDirectory() + "hearth-store-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }
}

import Testing

func json(_ text: String) -> Node {
    try! Node(json: JSONValue.parse(text))
}

extension DatabaseStore {
    func put(_ path: String, _ text: String) async throws {
        let node = json(text)
        try await write { try $0.set(Path(path), node) }
    }

    func get(_ path: String) async throws -> Node {
        try await snapshot { try $0.read(Path(path)) }
    }

    func getJSON(_ path: String, format: RenderFormat = .plain) async throws -> String {
        try await get(path).jsonString(format: format)
    }
}
