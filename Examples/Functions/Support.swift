import HearthCore

extension JSONValue {
    /// The members of an object (empty for anything else).
    var members: [JSONMember] {
        if case .object(let m) = self { return m }
        return []
    }

    /// An integer, or a double with no fraction.
    var int64: Int64? {
        switch self {
        case .int(let i): i
        case .double(let d) where d.rounded() == d && abs(d) < 9e15: Int64(d)
        default: nil
        }
    }

    static let timestamp = JSONValue.object([JSONMember(".sv", .string("timestamp"))])

    static func increment(_ by: Int64) -> JSONValue {
        .object([JSONMember(".sv", .object([JSONMember("increment", .int(by))]))])
    }
}
