import HearthCore
import HearthRules
import HearthStore

/// The stored rules document of a namespace: its source text, the compiled rules and the
/// `.indexOn` declarations.
package struct RulesDocument: Sendable {
    /// Source as uploaded (comments included).
    package var source: String
    package var json: JSONValue
    /// The compiled `.read`/`.write`/`.validate` rules.
    package var ruleSet: RuleSet

    /// New namespaces in `--dev` are open, as in the Firebase emulator.
    package static let openSource = "{\n  \"rules\": {\n    \".read\": true,\n    \".write\": true\n  }\n}\n"

    package static let open = try! RulesDocument(source: openSource)
    /// Locked: only the admin reads and writes, as a Firebase database created in locked mode.
    package static let denyAll = try! RulesDocument(source: "{\"rules\": {\".read\": false, \".write\": false}}\n")

    /// The rules a namespace has until an admin sets some: open in `--dev`, locked otherwise (the
    /// project's default namespace included; deny by default, so a fresh production server gives no
    /// anonymous sign-up free storage before the rules are deployed).
    package static func initial(dev: Bool) -> RulesDocument { dev ? .open : .denyAll }

    /// Compiles a document; errors name the line and column.
    package init(source: String) throws(ValidationError) {
        do {
            ruleSet = try RuleSet(source: source)
        } catch {
            throw ValidationError("Invalid rules: \(error.description)")
        }
        // The compiler has checked the shape, `.indexOn` included.
        json = ruleSet.document
        self.source = source
    }

    /// Whether `.indexOn` at a rules node matching `location` lists `index` (a child path or `.value`).
    package func hasIndex(_ index: String, at location: Path) -> Bool {
        var frontier: [JSONValue] = [json["rules"] ?? .null]
        for key in location.keys {
            var next: [JSONValue] = []
            for node in frontier {
                guard case .object(let members) = node else { continue }
                for m in members where m.key.utf8.elementsEqual(key.string.utf8) || (m.key.hasPrefix("$") && m.key.count > 1) {
                    next.append(m.value)
                }
            }
            frontier = next
            if frontier.isEmpty { return false }
        }
        for node in frontier {
            switch node[".indexOn"] {
            case .string(let s)?: if s == index { return true }
            case .array(let items)?: if items.contains(.string(index)) { return true }
            default: continue
            }
        }
        return false
    }

    /// Every `.indexOn` declaration, as index specs for the store.
    package var indexSpecs: [IndexSpec] {
        var out: [IndexSpec] = []
        func walk(_ node: JSONValue, _ pattern: [String]) {
            guard case .object(let members) = node else { return }
            for m in members {
                if m.key == ".indexOn" {
                    let names: [String]
                    switch m.value {
                    case .string(let s): names = [s]
                    case .array(let items): names = items.compactMap(\.stringValue)
                    default: names = []
                    }
                    for n in names where !out.contains(IndexSpec(pattern: pattern, index: n)) {
                        out.append(IndexSpec(pattern: pattern, index: n))
                    }
                } else if !m.key.hasPrefix(".") {
                    walk(m.value, pattern + [m.key])
                }
            }
        }
        walk(json["rules"] ?? .null, [])
        return out
    }
}
