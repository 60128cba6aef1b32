/// Builds the rule tree from the document's `rules` object: checks every key (`.read`, `.write`,
/// `.validate`, `.indexOn`, one `$wildcard` per level, valid data keys) and compiles every rule with
/// the variables in scope where it stands. Errors name the line and column of the key or value.
struct RuleCompiler {
    let locator: SourceLocator

    static let forbidden: Set<Unicode.Scalar> = [".", "#", "$", "[", "]", "/"]

    mutating func node(_ value: SourceValue, location: [String], captures: [String]) throws(RulesError) -> RuleNode {
        guard case .object(let members) = value.kind else {
            throw locator.error("Expected an object of rules here", at: value.offset)
        }
        let where_ = "/" + location.joined(separator: "/")
        var read: CompiledRule?
        var write: CompiledRule?
        var validate: CompiledRule?
        var children: [String: RuleNode] = [:]
        var wildcard: RuleNode?
        var wildcardName: String?
        for m in members {
            if m.key.hasPrefix(".") {
                let prefix = location.isEmpty ? "/" : where_ + "/"
                switch m.key {
                case ".read":
                    read = try rule(m.value, location: prefix + m.key, scope: ExpressionScope(captures: captures, allowsNewData: false, allowsQuery: true))
                case ".write":
                    write = try rule(m.value, location: prefix + m.key, scope: ExpressionScope(captures: captures, allowsNewData: true, allowsQuery: false))
                case ".validate":
                    validate = try rule(m.value, location: prefix + m.key, scope: ExpressionScope(captures: captures, allowsNewData: true, allowsQuery: false))
                case ".indexOn":
                    switch m.value.kind {
                    case .string: continue
                    case .array(let items):
                        for item in items {
                            guard case .string = item.kind else { throw locator.error(".indexOn must list strings", at: item.offset) }
                        }
                    default: throw locator.error(".indexOn must be a string or an array of strings", at: m.value.offset)
                    }
                default:
                    throw locator.error("Unknown rule \"\(m.key)\": expected .read, .write, .validate or .indexOn", at: m.keyOffset)
                }
            } else if m.key.hasPrefix("$") {
                let name = m.key
                guard name.count > 1, !name.unicodeScalars.dropFirst().contains(where: { Self.forbidden.contains($0) }) else {
                    throw locator.error("Invalid wildcard name \"\(name)\"", at: m.keyOffset)
                }
                if wildcard != nil { throw locator.error("Only one wildcard ($name) is allowed per level", at: m.keyOffset) }
                if captures.contains(name) { throw locator.error("The wildcard \(name) is already used above", at: m.keyOffset) }
                wildcardName = name
                wildcard = try node(m.value, location: location + [name], captures: captures + [name])
            } else {
                guard !m.key.isEmpty, !m.key.unicodeScalars.contains(where: { Self.forbidden.contains($0) || $0.value < 0x20 || $0.value == 0x7F })
                else { throw locator.error("Invalid key \"\(m.key)\" in rules", at: m.keyOffset) }
                children[m.key] = try node(m.value, location: location + [m.key], captures: captures)
            }
        }
        return RuleNode(
            location: where_, read: read, write: write, validate: validate, children: children, wildcard: wildcard,
            wildcardName: wildcardName)
    }

    func rule(_ value: SourceValue, location: String, scope: ExpressionScope) throws(RulesError) -> CompiledRule {
        switch value.kind {
        case .bool(let b):
            return CompiledRule(expr: .literal(.bool(b)), text: b ? "true" : "false", location: location, readsData: false)
        case .string(let text, let offsets):
            var parser = ExpressionParser(text: text, offsets: offsets, locator: locator, scope: scope)
            let expr = try parser.parseRule()
            return CompiledRule(expr: expr, text: text, location: location, readsData: parser.readsData)
        default:
            throw locator.error("A rule is a boolean or an expression string", at: value.offset)
        }
    }
}
