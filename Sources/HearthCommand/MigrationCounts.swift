/// The sizes `--dry-run` prints.
struct MigrationCounts {
    var leaves: [String: Int] = [:]
    var accounts = 0
    var buckets = 0
    var objects = 0
    var links = 0

    /// One line per namespace, then the project's totals.
    func report(namespaces: [String]) -> String {
        var lines = namespaces.map { "namespace \($0): \(leaves[$0] ?? 0) leaves" }
        lines.append("accounts: \(accounts)")
        lines.append("buckets: \(buckets), objects: \(objects)")
        lines.append("links: \(links)")
        lines.append("dry run: nothing was copied")
        return lines.joined(separator: "\n")
    }
}
