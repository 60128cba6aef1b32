import Foundation
import HearthCore
import Testing

/// One group of a data-driven corpus file (`{"groups": [{"name", …}, …]}`), shared by the
/// database-rules and storage-rules corpora.
struct CorpusGroup: CustomTestStringConvertible, Sendable {
    var file: String
    var name: String
    var json: JSONValue
    var testDescription: String { "\(file): \(name)" }

    /// Every group of every `*.json` file in the resource folder, in file order. An unreadable
    /// file or a missing folder becomes a group that fails, so it is never silently skipped.
    static func load(folder name: String) -> [CorpusGroup] {
        guard let folder = Bundle.module.url(forResource: name, withExtension: nil),
            let files = try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        else { return [CorpusGroup(file: name, name: "missing resource folder", json: .null)] }
        var out: [CorpusGroup] = []
        for file in files.sorted(by: { $0.lastPathComponent < $1.lastPathComponent }) where file.pathExtension == "json" {
            guard let bytes = try? Data(contentsOf: file), let json = try? JSONValue.parse(Array(bytes)),
                case .array(let groups)? = json["groups"]
            else {
                out.append(CorpusGroup(file: file.lastPathComponent, name: "unreadable file", json: .null))
                continue
            }
            for g in groups {
                out.append(CorpusGroup(file: file.lastPathComponent, name: g["name"]?.stringValue ?? "?", json: g))
            }
        }
        return out
    }
}
