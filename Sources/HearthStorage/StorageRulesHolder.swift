import Foundation
import HearthRules
import Synchronization

/// The storage rules in force, replaced as a whole: a rules file that does not compile never
/// replaces working rules. Kept in `<data>/storage.rules` when a path is given; a change to
/// that file (`hearth storage rules set`) is picked up within a second.
package final class StorageRulesHolder: Sendable {
    private struct State {
        var rules: StorageRules
        var modified: Date?
        var checked = Date.distantPast
    }

    private let state: Mutex<State>
    package let path: String?
    /// Told when the file changed but does not compile (the old rules stay).
    package let onInvalidFile: @Sendable (String) -> Void

    /// Rules from `path` if it holds valid ones, else the default (signed-in users read and write).
    package init(path: String?, onInvalidFile: @escaping @Sendable (String) -> Void = { _ in }) {
        self.path = path
        self.onInvalidFile = onInvalidFile
        var initial = State(rules: try! StorageRules(source: StorageRules.defaultSource))
        if let path, let text = try? String(contentsOfFile: path, encoding: .utf8), let saved = try? StorageRules(source: text) {
            initial.rules = saved
            initial.modified = Self.modification(path)
        }
        state = Mutex(initial)
    }

    package var current: StorageRules {
        guard let path else { return state.withLock { $0.rules } }
        let now = Date()
        let due = state.withLock { s in
            guard now.timeIntervalSince(s.checked) >= 1 else { return false }
            s.checked = now
            return true
        }
        if due, let modified = Self.modification(path), modified != state.withLock({ $0.modified }) {
            reload(path, modified: modified)
        }
        return state.withLock { $0.rules }
    }

    private func reload(_ path: String, modified: Date) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
        do {
            let rules = try StorageRules(source: text)
            state.withLock { s in (s.rules, s.modified) = (rules, modified) }
        } catch {
            state.withLock { $0.modified = modified }
            onInvalidFile("\(path): \(error)")
        }
    }

    private static func modification(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }

    /// Compiles and installs `source`; throws the compile error (with line and column) otherwise.
    package func replace(with source: String) throws {
        let compiled = try StorageRules(source: source)
        if let path { try Data(source.utf8).write(to: URL(fileURLWithPath: path), options: .atomic) }
        let modified = path.flatMap(Self.modification)
        state.withLock { s in (s.rules, s.modified) = (compiled, modified) }
    }
}
