import Foundation
import HearthCore
import Synchronization
import Testing

/// Collects a sequence's elements in the background so a test can act between them.
final class EventRecorder<Element: Sendable>: Sendable {
    private final class Storage: Sendable {
        let items = Mutex<[Element]>([])
        let failure = Mutex<(any Error)?>(nil)
        let finished = Mutex(false)
    }

    private let storage = Storage()
    private let task: Task<Void, Never>

    init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element == Element {
        let storage = self.storage
        task = Task {
            do {
                for try await element in sequence { storage.items.withLock { $0.append(element) } }
            } catch {
                storage.failure.withLock { $0 = error }
            }
            storage.finished.withLock { $0 = true }
        }
    }

    deinit { task.cancel() }

    var all: [Element] { storage.items.withLock { $0 } }
    var error: (any Error)? { storage.failure.withLock { $0 } }
    var isFinished: Bool { storage.finished.withLock { $0 } }

    /// Waits until at least `count` elements arrived (fails the test after `timeout`).
    @discardableResult
    func wait(for count: Int, timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation) async -> [Element] {
        let ok = await eventually(timeout: timeout) { self.all.count >= count || self.isFinished }
        let items = all
        if !ok || items.count < count {
            Issue.record("Expected \(count) events, got \(items.count) (error: \(String(describing: error)))", sourceLocation: sourceLocation)
        }
        return items
    }

    /// Waits until the sequence ended (with or without an error).
    func waitUntilFinished(timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation) async {
        let ok = await eventually(timeout: timeout) { self.isFinished }
        if !ok { Issue.record("The sequence did not finish", sourceLocation: sourceLocation) }
    }

    func stop() { task.cancel() }
}



/// Parses JSON text (test fixtures).
func json(_ text: String) -> JSONValue {
    do {
        return try JSONValue.parse(text)
    } catch {
        preconditionFailure("invalid fixture JSON: \(error)")
    }
}
