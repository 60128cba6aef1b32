/// Builds a page of Prometheus' text exposition format (version 0.0.4): for each metric family a `# HELP` and a
/// `# TYPE` line, then its samples.
struct PrometheusText {
    /// The page's media type.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"
    /// The page so far.
    private(set) var text = ""

    /// An empty page.
    init() {}

    /// Starts a metric family: its name, what it measures and its type (`counter`, `gauge`, `histogram`).
    mutating func family(_ name: String, _ help: String, type: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    /// One sample: `name{label="value",…} value`.
    mutating func sample(_ name: String, _ labels: KeyValuePairs<String, String> = [:], _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.key)=\"\(Self.escaped($0.value))\"" }.joined(separator: ",") + "}"
        }
        text += " " + Self.number(value) + "\n"
    }

    /// A family with one sample and no labels.
    mutating func single(_ name: String, _ help: String, type: String, _ value: Double) {
        family(name, help, type: type)
        sample(name, [:], value)
    }

    /// Integers without a fraction, others as Swift prints them; `+Inf` for infinity.
    static func number(_ value: Double) -> String {
        if value == .infinity { return "+Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// A label value with `\`, `"` and newlines escaped, as the format requires.
    static func escaped(_ value: String) -> String {
        var out = ""
        for c in value {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(c)
            }
        }
        return out
    }
}
