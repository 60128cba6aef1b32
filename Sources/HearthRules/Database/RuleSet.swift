public import HearthCore

/// A compiled Realtime Database rules document.
///
/// ```swift
/// let rules = try RuleSet(source: #"{"rules": {"users": {"$uid": {".write": "auth.uid === $uid"}}}}"#)
/// let decision = rules.canWrite([(Path("users/alice"), node)], auth: ["uid": "alice"], now: now, data: store)
/// ```
///
/// The document is parsed and type-checked once; evaluation walks the compiled tree.
public struct RuleSet: Sendable {
    /// The document as given (comments included).
    public let source: String
    /// The document as plain JSON (comments dropped): `format=strict`, `.indexOn` declarations.
    public let document: JSONValue
    let root: RuleNode

    /// Compiles a rules document. Errors name the line and column in `source`.
    public init(source: String) throws(RulesError) {
        var parser = RulesSourceParser(source)
        let document = try parser.parseDocument()
        let locator = parser.locator
        guard case .object(let members) = document.kind else {
            throw locator.error("A rules document is an object with one member, \"rules\"", at: document.offset)
        }
        guard let rules = members.first(where: { $0.key == "rules" }) else {
            throw locator.error("Missing the \"rules\" member", at: document.offset)
        }
        if let other = members.first(where: { $0.key != "rules" }) {
            throw locator.error("Unexpected top-level member \"\(other.key)\": only \"rules\" is allowed", at: other.keyOffset)
        }
        self.source = source
        self.document = document.json
        var compiler = RuleCompiler(locator: locator)
        root = try compiler.node(rules.value, location: [], captures: [])
    }

    /// Every rule at every location, for inspection: (location such as `/users/$uid`, `.read`, text).
    public var rules: [(location: String, kind: String, text: String)] {
        var out: [(String, String, String)] = []
        func walk(_ node: RuleNode) {
            for (kind, rule) in [(".read", node.read), (".write", node.write), (".validate", node.validate)] {
                if let rule { out.append((node.location, kind, rule.text)) }
            }
            for key in node.children.keys.sorted() { walk(node.children[key]!) }
            if let w = node.wildcard { walk(w) }
        }
        walk(root)
        return out
    }
}

/// One compiled rule.
struct CompiledRule: Sendable {
    let expr: Expr
    /// The expression as written (`true`/`false` for JSON booleans).
    let text: String
    /// Where it stands, e.g. `/users/$uid/.write`.
    let location: String
    let readsData: Bool
}

final class RuleNode: Sendable {
    let location: String
    let read: CompiledRule?
    let write: CompiledRule?
    let validate: CompiledRule?
    let children: [String: RuleNode]
    let wildcard: RuleNode?
    let wildcardName: String?

    init(
        location: String, read: CompiledRule?, write: CompiledRule?, validate: CompiledRule?,
        children: [String: RuleNode], wildcard: RuleNode?, wildcardName: String?
    ) {
        self.location = location
        self.read = read
        self.write = write
        self.validate = validate
        self.children = children
        self.wildcard = wildcard
        self.wildcardName = wildcardName
    }

    /// The rule node for a data key: a literal match first, else the wildcard (which captures).
    @inline(__always)
    func child(_ key: String) -> (node: RuleNode, captures: Bool)? {
        if let c = children[key] { return (c, false) }
        if let w = wildcard { return (w, true) }
        return nil
    }
}

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
