/// A malformed query, with Firebase's error text.
public struct QueryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Firebase's error text for the malformed parameter, returned to the client as is.
    public var message: String

    /// An error with Firebase's `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

extension Query {
    static let parameterNames: Set<String> = [
        "orderBy", "startAt", "startAfter", "endAt", "endBefore", "equalTo", "limitToFirst", "limitToLast",
    ]

    /// Builds a query from REST parameters (values already percent-decoded). Returns nil when no query
    /// parameter is present.
    public init?(parameters: [String: String]) throws(QueryError) {
        guard parameters.keys.contains(where: Query.parameterNames.contains) else { return nil }
        guard let orderText = parameters["orderBy"] else {
            throw QueryError("orderBy must be defined when other query parameters are defined")
        }
        guard case .string(let orderName)? = try? JSONValue.parse(orderText) else {
            throw QueryError("orderBy must be a valid JSON encoded path")
        }
        switch orderName {
        case "$key": order = .key
        case "$value": order = .value
        case "$priority": order = .priority
        default:
            guard let p = try? Path.validated(orderName), !p.isRoot else {
                throw QueryError("orderBy must be a valid JSON encoded path")
            }
            order = .child(p)
        }
        if let eq = parameters["equalTo"] {
            guard parameters["startAt"] == nil, parameters["endAt"] == nil, parameters["startAfter"] == nil,
                parameters["endBefore"] == nil
            else { throw QueryError("equalTo cannot be combined with startAt, endAt, startAfter or endBefore") }
            let b = try Query.bound(eq, strict: false)
            start = b
            end = b
        } else {
            if parameters["startAt"] != nil, parameters["startAfter"] != nil {
                throw QueryError("startAt and startAfter cannot both be specified")
            }
            if parameters["endAt"] != nil, parameters["endBefore"] != nil {
                throw QueryError("endAt and endBefore cannot both be specified")
            }
            if let s = parameters["startAt"] {
                start = try Query.bound(s, strict: false)
            } else if let s = parameters["startAfter"] {
                start = try Query.bound(s, strict: true)
            }
            if let s = parameters["endAt"] {
                end = try Query.bound(s, strict: false)
            } else if let s = parameters["endBefore"] {
                end = try Query.bound(s, strict: true)
            }
        }
        if order == .key {
            for b in [start, end] {
                if let v = b?.value, case .string = v {} else if b != nil {
                    throw QueryError("When using orderBy \"$key\", the start and end values must be strings")
                }
            }
        }
        var first: Int?
        var last: Int?
        if let s = parameters["limitToFirst"] { first = try Query.limitValue(s, name: "limitToFirst") }
        if let s = parameters["limitToLast"] { last = try Query.limitValue(s, name: "limitToLast") }
        switch (first, last) {
        case (.some, .some): throw QueryError("limitToFirst and limitToLast cannot both be specified")
        case (let n?, nil): limit = .first(n)
        case (nil, let n?): limit = .last(n)
        case (nil, nil): limit = nil
        }
    }

    static func limitValue(_ s: String, name: String) throws(QueryError) -> Int {
        guard let n = Int(s), n >= 0 else { throw QueryError("\(name) must be a non-negative integer") }
        return n
    }

    /// `value` or `value,"key"`. The value is read once from the front, so where it ends is known: trying
    /// each comma from the back instead re-parsed every prefix, quadratic for a bound like `[1,1,1,…`.
    static func bound(_ text: String, strict: Bool) throws(QueryError) -> Bound {
        let notPrimitive = QueryError("Constraint index field must be a JSON primitive")
        let bytes = Array(text.utf8)
        guard let prefix = try? JSONReader().parsePrefix(bytes) else { throw notPrimitive }
        let v = prefix.value
        var i = prefix.end
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
        if i == bytes.count { return try Bound(value: primitive(v), key: nil, strict: strict) }
        // A tie-breaking child name follows: `,"name"`.
        guard bytes[i] == UInt8(ascii: ","), case .string(let name)? = try? JSONValue.parse(bytes[(i + 1)...]) else {
            throw notPrimitive
        }
        guard let key = try? Key.validated(name) else { throw QueryError("Invalid key in query bound") }
        return try Bound(value: primitive(v), key: key, strict: strict)
    }

    static func primitive(_ v: JSONValue) throws(QueryError) -> Leaf? {
        switch v {
        case .null: return nil
        case .array, .object: throw QueryError("Constraint index field must be a JSON primitive")
        default: return Leaf(json: v)
        }
    }
}
