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
