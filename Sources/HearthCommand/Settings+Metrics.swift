import HearthCore
import HearthServer

extension Settings {
    /// `metrics.listen` from the config file's `metrics` object (nil: not set); other keys are refused.
    static func metricsListen(_ members: [JSONMember], file path: String) throws -> String? {
        var listen: String?
        for m in members {
            switch (m.key, m.value) {
            case ("listen", .string(let s)): listen = s
            default: throw Failure(description: "config file \(path): unknown or mistyped setting \"metrics.\(m.key)\"")
            }
        }
        return listen
    }

    /// The metrics listener's address, checked (nil: none asked for).
    func checkedMetricsListen() throws -> MetricsListenAddress? {
        guard let text = metricsListen else { return nil }
        guard let address = MetricsListenAddress(parsing: text) else {
            throw Failure(description: "the metrics address (--metrics-listen, HEARTH_METRICS_LISTEN, metrics.listen) must be HOST:PORT or [IPv6]:PORT, not \"\(text)\"")
        }
        return address
    }
}
