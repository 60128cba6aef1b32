import HearthCore
import HearthRules
import HearthStore

/// Who a request acts as, for the rules.
package enum Access: Sendable {
    /// The admin credential without an override: rules are bypassed.
    case admin
    /// Rules apply with this `auth` (nil = signed out).
    case user(JSONValue?)

    /// The rules' `auth` (nil for admin and for a signed-out user).
    package var auth: JSONValue? {
        if case .user(let a) = self { return a }
        return nil
    }
}

/// The store, as the rules see it.
package struct StoreRuleData: RuleDataSource {
    let reader: any StoreReader

    package init(reader: any StoreReader) { self.reader = reader }

    package func summary(at path: Path) throws -> NodeSummary { try reader.summary(path) }

    package func childKeys(at path: Path, limit: Int) throws -> [Key] {
        try reader.shallow(path, Query(order: .key, limit: .first(limit))).children.map(\.0)
    }
}

/// Checks writes against a namespace's rules inside the writer's transaction.
package struct RulesAuthorizer: WriteAuthorizer {
    let rules: RuleSet
    let auth: JSONValue?

    package init(rules: RuleSet, auth: JSONValue?) {
        self.rules = rules
        self.auth = auth
    }

    package func denial(for writes: [(path: Path, node: Node)], data: any StoreReader, now: Int64) -> String? {
        let decision = rules.canWrite(writes, auth: auth, now: now, data: StoreRuleData(reader: data))
        return decision.allowed ? nil : decision.reason
    }

    package func readDenial(at path: Path, data: any StoreReader, now: Int64) -> String? {
        let decision = rules.canRead(path, auth: auth, now: now, data: StoreRuleData(reader: data))
        return decision.allowed ? nil : decision.reason
    }
}

extension Access {
    /// nil for admin; `.some(auth)` (auth possibly nil) when rules apply.
    package var userAuth: JSONValue?? {
        if case .user(let auth) = self { return .some(auth) }
        return nil
    }
}
