/// A value the server fills in when it applies a write: its clock, or an atomic increment.
///
/// Use it anywhere inside an `Encodable` value; it encodes as Firebase's `{".sv": …}` placeholder.
/// ```swift
/// struct Post: Encodable { var text: String; var createdAt = ServerValue.timestamp }
/// try await db.reference("posts").childByAutoId().setValue(Post(text: "hi"))
/// try await db.reference("posts/p1/likes").setValue(ServerValue.increment(1))
/// ```
/// Until the server confirms, local listeners see an estimate (the local clock corrected by the
/// server time offset, or the increment applied to the locally known value).
public struct ServerValue: Encodable, Sendable, Hashable {
    enum Kind: Hashable {
        case timestamp
        case incrementInt(Int64)
        case incrementDouble(Double)
    }

    let kind: Kind

    /// The server's time in milliseconds since 1970.
    public static let timestamp = ServerValue(kind: .timestamp)

    /// Adds `delta` to the stored number (a missing or non-numeric value counts as 0).
    public static func increment(_ delta: Int) -> ServerValue { ServerValue(kind: .incrementInt(Int64(delta))) }

    /// Adds `delta` to the stored number (a missing or non-numeric value counts as 0).
    public static func increment(_ delta: Double) -> ServerValue { ServerValue(kind: .incrementDouble(delta)) }

    private enum CodingKeys: String, CodingKey {
        case sv = ".sv"
    }

    private enum IncrementKeys: String, CodingKey {
        case increment
    }

    /// Writes the placeholder: `{".sv": "timestamp"}` or `{".sv": {"increment": delta}}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch kind {
        case .timestamp:
            try container.encode("timestamp", forKey: .sv)
        case .incrementInt(let d):
            var inner = container.nestedContainer(keyedBy: IncrementKeys.self, forKey: .sv)
            try inner.encode(d, forKey: .increment)
        case .incrementDouble(let d):
            var inner = container.nestedContainer(keyedBy: IncrementKeys.self, forKey: .sv)
            try inner.encode(d, forKey: .increment)
        }
    }
}
