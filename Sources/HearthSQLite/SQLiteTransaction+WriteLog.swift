import Foundation
import GRDB
import HearthCore
import HearthStore

/// The write log: what each committed change did, kept in the namespace's own database, in the
/// transaction of the write itself, so it is exactly as durable as the data and a backup's snapshot
/// (``SQLiteSnapshot``) carries it up to its own sequence (see ``WriteLog``).
extension SQLiteTransaction {
    /// Records `changes` in `write_log` when the store keeps a write log; otherwise does nothing
    /// (one boolean test: no cost on the write path).
    func logChanges(_ changes: [Change]) throws {
        guard writeLog else { return }
        let millis = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        let insert = try db.cachedStatement(sql: "INSERT INTO write_log(seq, millis, path, kind, value) VALUES(?, ?, ?, ?, ?)")
        for change in changes {
            let row = WriteLog.encode(change)
            try insert.execute(arguments: [Int64(change.sequence), millis, row.path, row.kind, Data(row.value)])
        }
    }
}

extension WriteLog {
    /// One change as the three stored columns: the path (keys joined by `/`, which no key may hold),
    /// `put` or `patch`, and the value JSON (export format, priorities kept; a patch is
    /// `[{"path":"a/b","value":V},…]` in the change's order).
    static func encode(_ change: Change) -> (path: String, kind: String, value: [UInt8]) {
        var w = JSONWriter()
        switch change.kind {
        case .put(let node):
            w.write(node, format: .export)
            return (text(change.path), "put", w.bytes)
        case .patch(let entries):
            w.beginArray()
            for (i, entry) in entries.enumerated() {
                w.separator(first: i == 0)
                w.beginObject()
                w.key("path")
                w.write(text(entry.path))
                w.separator(first: false)
                w.key("value")
                w.write(entry.node, format: .export)
                w.endObject()
            }
            w.endArray(empty: entries.isEmpty)
            return (text(change.path), "patch", w.bytes)
        }
    }

    /// The change stored in one row; throws ``WriteLog/Failure`` when the row is malformed.
    static func decode(sequence: UInt64, path: String, kind: String, value: [UInt8]) throws -> Change {
        let json: JSONValue
        do {
            json = try value.withUnsafeBytes { try JSONValue.parse($0) }
        } catch {
            throw Failure(description: "write log entry \(sequence) is not JSON (\(error))")
        }
        let location = Path(path)
        do {
            switch kind {
            case "put":
                return Change(sequence: sequence, path: location, kind: .put(try Node(json: json)))
            case "patch":
                guard case .array(let items) = json else { break }
                var entries: [PatchEntry] = []
                for item in items {
                    guard case .string(let relative)? = item["path"], let v = item["value"] else {
                        throw Failure(description: "write log entry \(sequence) has a malformed patch entry")
                    }
                    entries.append(PatchEntry(path: Path(relative), node: try Node(json: v)))
                }
                return Change(sequence: sequence, path: location, kind: .patch(entries))
            default: break
            }
        } catch let error as Failure {
            throw error
        } catch {
            throw Failure(description: "write log entry \(sequence) holds an invalid value (\(error))")
        }
        throw Failure(description: "write log entry \(sequence) has an unknown kind \(kind)")
    }

    /// `a/b/c` for a path; the empty string for the root.
    static func text(_ path: Path) -> String { path.keys.map(\.string).joined(separator: "/") }

    /// Applies one logged change to `tx` the way the writer applied it.
    static func apply(_ change: Change, to tx: SQLiteTransaction) throws {
        switch change.kind {
        case .put(let node): try tx.set(change.path, node)
        case .patch(let entries):
            for entry in entries { try tx.set(change.path.appending(entry.path), entry.node) }
        }
    }
}
