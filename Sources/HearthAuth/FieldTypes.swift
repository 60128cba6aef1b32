import HearthCore

/// The JSON type an Identity Toolkit request field must have. Google's front end refuses a
/// field of the wrong type with 400 `INVALID_ARGUMENT` before the service sees it; without this
/// check a wrong type would read as "absent" and, say, `validDuration: "abc"` would quietly mint
/// a 14-day cookie.
enum FieldType: Sendable {
    case string, bool, int64, object
    /// An array of strings.
    case strings
    /// An array of objects.
    case objects

    /// The proto name Google's messages use.
    var protoName: String {
        switch self {
        case .string, .strings: "TYPE_STRING"
        case .bool: "TYPE_BOOL"
        case .int64: "TYPE_INT64"
        case .object, .objects: "TYPE_MESSAGE"
        }
    }

    func accepts(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (_, .null): true
        case (.string, .string), (.bool, .bool), (.object, .object): true
        case (.int64, .int): true
        case (.int64, .double(let d)): Int64(exactly: d) != nil
        case (.int64, .string(let s)): Int64(s) != nil
        case (.strings, .array(let items)): items.allSatisfy { if case .string = $0 { true } else { false } }
        case (.objects, .array(let items)): items.allSatisfy { if case .object = $0 { true } else { false } }
        default: false
        }
    }
}

extension JSONValue {
    /// Throws `INVALID_ARGUMENT` for the first listed field that is present with another type
    /// (`null` counts as absent).
    func checkFieldTypes(_ types: KeyValuePairs<String, FieldType>) throws {
        for (key, type) in types {
            guard let value = self[key], !type.accepts(value) else { continue }
            let shown = value.jsonBytes.count <= 64 ? String(decoding: value.jsonBytes, as: UTF8.self) : "(\(value.jsonBytes.count) bytes)"
            throw AuthError("INVALID_ARGUMENT", "Invalid value at '\(key)' (\(type.protoName)), \(shown)")
        }
    }
}

extension AuthService {
    /// Fields of a user as create, update and import send them.
    static let userFieldTypes: KeyValuePairs<String, FieldType> = [
        "localId": .string, "email": .string, "password": .string, "displayName": .string, "photoUrl": .string,
        "phoneNumber": .string, "emailVerified": .bool, "disabled": .bool, "disableUser": .bool, "customAttributes": .string,
        "validSince": .int64, "createdAt": .int64, "lastLoginAt": .int64, "deleteAttribute": .strings, "deleteProvider": .strings,
        "providerUserInfo": .objects, "linkProviderUserInfo": .object, "idToken": .string, "oobCode": .string,
        "returnSecureToken": .bool, "passwordHash": .string, "salt": .string, "rawPassword": .string,
    ]
}
