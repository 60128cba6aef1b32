import HearthCore

extension JSONValue {
    /// The value with every object key in snake_case (`id_token`) spelled in lowerCamel (`idToken`), at every depth.
    /// Identity Toolkit bodies are proto3 JSON, which accepts both spellings; Firebase's emulator camel-cases every
    /// incoming key the same way. Where a body has both spellings of a key, the lowerCamel one is kept.
    func camelCasedKeys() -> JSONValue {
        switch self {
        case .object(let members):
            guard members.contains(where: { Self.isSnakeCase($0.key) || $0.value.hasNestedContainers }) else { return self }
            var out: [JSONMember] = []
            out.reserveCapacity(members.count)
            var keys = Set<String>()
            for member in members where !Self.isSnakeCase(member.key) {
                keys.insert(member.key)
                out.append(JSONMember(member.key, member.value.camelCasedKeys()))
            }
            for member in members where Self.isSnakeCase(member.key) {
                let key = Self.lowerCamel(member.key)
                guard keys.insert(key).inserted else { continue }
                out.append(JSONMember(key, member.value.camelCasedKeys()))
            }
            return .object(out)
        case .array(let items):
            guard hasNestedContainers else { return self }
            return .array(items.map { $0.camelCasedKeys() })
        default:
            return self
        }
    }

    private var hasNestedContainers: Bool {
        switch self {
        case .object: true
        case .array(let items): items.contains { if case .object = $0 { true } else if case .array = $0 { true } else { false } }
        default: false
        }
    }

    /// `a_b`, not `_a` or `a_` (which are left as they are).
    private static func isSnakeCase(_ key: String) -> Bool {
        key.utf8.contains(UInt8(ascii: "_")) && key.utf8.first != UInt8(ascii: "_") && key.utf8.last != UInt8(ascii: "_")
    }

    private static func lowerCamel(_ key: String) -> String {
        var out = ""
        for (i, part) in key.split(separator: "_", omittingEmptySubsequences: true).enumerated() {
            out += i == 0 ? String(part) : part.prefix(1).uppercased() + part.dropFirst()
        }
        return out
    }
}
