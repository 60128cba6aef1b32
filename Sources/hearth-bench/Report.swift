import Foundation

/// A goal a metric is checked against.
enum Target: Codable, Sendable {
    case atLeast(Double)
    case atMost(Double)
    case equals(Double)

    func isMet(by value: Double) -> Bool {
        switch self {
        case .atLeast(let t): return value >= t
        case .atMost(let t): return value <= t
        case .equals(let t): return value == t
        }
    }

    func describe(unit: String) -> String {
        let u = unit.isEmpty ? "" : " \(unit)"
        switch self {
        case .atLeast(let t): return "≥ \(formatNumber(t))\(u)"
        case .atMost(let t): return "≤ \(formatNumber(t))\(u)"
        case .equals(let t): return "= \(formatNumber(t))\(u)"
        }
    }
}

func formatNumber(_ v: Double) -> String {
    if v.isNaN { return "n/a" }
    if v == v.rounded(), abs(v) < 1e15 {
        let i = Int(v)
        if abs(i) >= 10_000 {
            // Thousands separators for readability.
            let s = String(abs(i))
            var out = ""
            for (n, ch) in s.reversed().enumerated() {
                if n > 0, n % 3 == 0 { out.append(",") }
                out.append(ch)
            }
            return (i < 0 ? "-" : "") + String(out.reversed())
        }
        return String(i)
    }
    if abs(v) >= 100 { return String(format: "%.0f", v) }
    if abs(v) >= 10 { return String(format: "%.1f", v) }
    if abs(v) >= 1 { return String(format: "%.2f", v) }
    return String(format: "%.3f", v)
}

struct MetricRow: Codable, Sendable {
    var scenario: String
    var metric: String
    /// nil when the scenario failed before measuring it.
    var value: Double?
    var unit: String
    var target: String?
    var met: Bool?
    var note: String?

    init(_ scenario: String, _ metric: String, _ value: Double?, unit: String = "", target: Target? = nil, note: String? = nil) {
        self.scenario = scenario
        self.metric = metric
        self.value = value
        self.unit = unit
        self.target = target?.describe(unit: unit)
        if let target { met = value.map { target.isMet(by: $0) } ?? false }
        self.note = note
    }

    var valueText: String {
        guard let value else { return "—" }
        return unit.isEmpty ? formatNumber(value) : "\(formatNumber(value)) \(unit)"
    }
}

struct BenchReport: Codable {
    var tool = "hearth-bench"
    var date: String
    var gitCommit: String?
    var server: String
    /// Modification time of the server binary (tells which build was measured when HEAD moved since).
    var serverBuilt: String?
    var quick: Bool
    var loadGenerator: String
    var machine: MachineInfo
    var notes: [String]
    var results: [MetricRow]
}

/// Renders rows as an aligned plain-text table.
func renderTable(_ rows: [MetricRow]) -> String {
    let header = ["scenario", "metric", "value", "target", "met?"]
    let body = rows.map { r in
        [r.scenario, r.metric, r.valueText, r.target ?? "", r.met.map { $0 ? "yes" : "NO" } ?? ""]
    }
    var widths = header.map(\.count)
    for row in body { for (i, c) in row.enumerated() { widths[i] = max(widths[i], c.count) } }
    func line(_ cells: [String]) -> String {
        cells.enumerated().map { i, c in c.padding(toLength: widths[i], withPad: " ", startingAt: 0) }
            .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
    }
    var out = [line(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
    out += body.map(line)
    let notes = rows.compactMap { r in r.note.map { "  \(r.scenario)/\(r.metric): \($0)" } }
    if !notes.isEmpty { out += ["", "notes:"] + notes }
    return out.joined(separator: "\n")
}
