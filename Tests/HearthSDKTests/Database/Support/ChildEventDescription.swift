@testable import Hearth

/// A compact description of a child event for assertions: "added b after a".
func describe(_ e: ChildEvent) -> String {
    let name: String
    switch e {
    case .added: name = "added"
    case .changed: name = "changed"
    case .removed: name = "removed"
    case .moved: name = "moved"
    }
    return "\(name) \(e.snapshot.key ?? "") after \(e.previousSiblingKey ?? "-")"
}
