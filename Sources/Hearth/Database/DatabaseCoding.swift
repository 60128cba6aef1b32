import Foundation
import HearthCore
import HearthWire

/// Converts between `Codable` values and the database's JSON.
///
/// Dates are milliseconds since 1970 (what `ServerValue.timestamp` stores); `Data` is base64.
enum DatabaseCoding {
    static func encode(_ value: some Encodable, path: Path) throws(DatabaseError) -> JSONValue {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.nonConformingFloatEncodingStrategy = .throw
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw DatabaseError(code: .encodingFailed, path: path.description, message: "The value cannot be encoded as JSON", cause: error)
        }
        do {
            return try JSONValue.parse(Array(data))
        } catch {
            throw DatabaseError(code: .encodingFailed, path: path.description, message: "The encoder produced invalid JSON", cause: error)
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, from node: Node, path: Path) throws(DatabaseError) -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        do {
            return try decoder.decode(T.self, from: Data(node.jsonBytes()))
        } catch {
            if node.isEmpty { throw .notFound(path.description) }
            throw .decodingFailed(path.description, DecodingDiagnosis.explained(error, decoding: T.self, from: plainJSON(node)))
        }
    }

    /// The plain JSON (arrays for dense integer keys, no priorities) of a node.
    static func plainJSON(_ node: Node) -> JSONValue {
        (try? JSONValue.parse(node.jsonBytes())) ?? .null
    }

    /// The export JSON (priorities as `.priority`/`.value`) of a node.
    static func exportJSON(_ node: Node) -> JSONValue {
        (try? JSONValue.parse(node.jsonBytes(format: .export))) ?? .null
    }
}
