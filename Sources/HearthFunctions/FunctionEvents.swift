public import Foundation
public import HearthAuth
public import HearthCore
public import HearthStore
import HearthWire

/// A change at a location a database trigger watches.
public struct DatabaseEvent: Sendable {
    /// Unique per event and the same on every retry: use it as the idempotency key of the function's
    /// writes (``AdminDatabase/set(_:_:namespace:idempotencyKey:)``) to make them happen once.
    public let id: String
    /// The database (namespace) the change happened in.
    public let namespace: String
    /// The location that changed, e.g. `/reservations/r1`.
    public let path: String
    /// The wildcards of the trigger's pattern: `["id": "r1"]` for `/reservations/{id}`.
    public let params: [String: String]
    /// The value before and after the change (`.null` when absent), with priorities as `.priority`.
    public let before: JSONValue
    /// The value after the change (`.null` when deleted).
    public let after: JSONValue
    /// When the change committed.
    public let time: Date
    /// 1 on the first run, then 2, 3, … on retries.
    public let attempt: Int

    /// The value after the change, decoded (dates as milliseconds since 1970).
    public func after<T: Decodable>(as type: T.Type) throws -> T { try FunctionCoding.decode(type, from: after) }
    /// The value before the change, decoded.
    public func before<T: Decodable>(as type: T.Type) throws -> T { try FunctionCoding.decode(type, from: before) }
}

/// An account created or deleted.
public struct UserEvent: Sendable {
    /// Unique per event, the same on retries (an idempotency key).
    public let id: String
    /// The account as it was stored (for a deletion: just before). Password hashes are removed.
    public let user: UserRecord
    /// When the account changed.
    public let time: Date
    /// 1 on the first run, then 2, 3, … on retries.
    public let attempt: Int

    /// The account's user id.
    public var uid: String { user.localId }
}

/// A stored object finalized (uploaded, copied) or deleted.
public struct ObjectEvent: Sendable {
    /// Unique per event, the same on retries (an idempotency key).
    public let id: String
    /// The object's metadata (for a deletion: as it was).
    public let object: ObjectRecord
    /// When the object changed.
    public let time: Date
    /// 1 on the first run, then 2, 3, … on retries.
    public let attempt: Int

    /// The object's bucket.
    public var bucket: String { object.bucket }
    /// The object's name (its path in the bucket).
    public var name: String { object.name }
}

/// Converts between `Codable` values and database JSON, as the SDK does: dates are milliseconds
/// since 1970, `Data` is base64.
package enum FunctionCoding {
    static func encode(_ value: some Encodable) throws -> JSONValue {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.nonConformingFloatEncodingStrategy = .throw
        return try JSONValue.parse(Array(encoder.encode(value)))
    }

    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        do {
            return try decoder.decode(type, from: Data(value.jsonBytes))
        } catch {
            throw DecodingDiagnosis.explained(error, decoding: type, from: value)
        }
    }

    /// A decoding error in words a caller can act on (which field, what was wrong).
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func at(_ path: [any CodingKey]) -> String {
            path.isEmpty ? "the top level" : path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let c): return "missing \"\(key.stringValue)\" at \(at(c.codingPath))"
        case .typeMismatch(_, let c): return "wrong type at \(at(c.codingPath)): \(c.debugDescription)"
        case .valueNotFound(_, let c): return "missing value at \(at(c.codingPath))"
        case .dataCorrupted(let c): return "invalid value at \(at(c.codingPath)): \(c.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
