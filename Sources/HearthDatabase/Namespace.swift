import HearthCore
import HearthRules
import HearthStore
import Synchronization

/// One open database: its writer, its listeners and its rules.
package final class Namespace: Sendable {
    package let name: String
    package let database: Database
    package let hub: RealtimeHub
    private let rulesBox: Mutex<RulesDocument>

    init(name: String, database: Database, hub: RealtimeHub, rules: RulesDocument) {
        self.name = name
        self.database = database
        self.hub = hub
        self.rulesBox = Mutex(rules)
    }

    package var rules: RulesDocument { rulesBox.withLock { $0 } }

    package func replaceRules(_ rules: RulesDocument) { rulesBox.withLock { $0 = rules } }

    /// Puts `rules` in force: later requests see them, and listeners whose reads they may now deny are re-checked.
    package func install(_ rules: RulesDocument) {
        replaceRules(rules)
        let ruleSet = rules.ruleSet
        hub.rulesChanged { ruleSet.readDependsOnData($0) }
    }

    /// Reads the stored rules again and puts them in force (another node replaced them); true when
    /// they differed from those in force.
    @discardableResult
    func reloadRules() async throws -> Bool {
        let source = try await database.store.snapshot { try $0.setting("rules") }
        guard let source, source != rules.source else { return false }
        // A stored document that no longer compiles denies everything until an admin replaces it.
        install((try? RulesDocument(source: source)) ?? .denyAll)
        return true
    }

    /// Before refusing a request it checked under `checked`: whether other rules are in force now, read
    /// again from the store first (another node published them and its notice is still on the way, or
    /// arrived meanwhile), so the request is worth checking again. A store only this process writes
    /// answers false unless this process replaced the rules meanwhile; so does one that cannot be read.
    package func rulesChanged(since checked: RulesDocument) async -> Bool {
        _ = try? await reloadRules()
        return rules.source != checked.source
    }

    /// Runs `body` under the rules in force; when `refused` says its error is a refusal and other rules are in
    /// force once the stored ones were read again (``rulesChanged(since:)``), runs it once more under those.
    package func underNewestRules<R>(
        _ body: (RulesDocument) async throws -> R, refused: (any Error) -> Bool
    ) async throws -> R {
        let checked = rules
        do {
            return try await body(checked)
        } catch where refused(error) {
            guard await rulesChanged(since: checked) else { throw error }
            return try await body(rules)
        }
    }
}

/// Why a namespace (a database) could not be had, created or deleted.
public struct NamespaceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why a namespace could not be used.
    public enum Code: Sendable, Equatable {
        /// No database by that name (outside `--dev` an admin creates them).
        case notFound
        /// Create: it exists already.
        case exists
        /// As many databases are open as allowed, and every one is in use.
        case busy
        /// The name is not 1–63 letters, digits, `-` or `_`, or it names the project's database
        /// where that is not allowed (deleting it).
        case invalid
        /// The store could not be opened.
        case unavailable
    }

    /// The kind of failure.
    public var code: Code
    /// A message safe to show a client.
    public var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }

    /// What Firebase answers for a database that does not exist.
    static let notFoundMessage = "Firebase error. Please ensure that you spelled the name of your Firebase correctly"
    package static let notFound = NamespaceError(.notFound, notFoundMessage)
}

/// A namespace held by a request or a connection: it is not closed as idle while held. Give it back
/// with ``NamespaceRegistry/release(_:)``.
package struct NamespaceLease: Sendable {
    package let namespace: Namespace
    let id: UInt64
}
