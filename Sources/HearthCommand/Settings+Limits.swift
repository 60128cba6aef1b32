import HearthCore
import HearthServer

/// The `limits` settings.
extension Settings {
    /// Request rate limits and connection limits: `--rate-limit-ip`, `--rate-limit-user`, `--max-connections`,
    /// `--max-listeners-per-connection`; `HEARTH_RATE_LIMIT_IP`, …; the config file's `limits` section.
    struct LimitSettings {
        /// Requests per client address, as written (`100/s,burst=200`); nil: unlimited.
        var ip: String?
        /// Requests per signed-in user, as written; nil: unlimited.
        var user: String?
        /// Most open connections; nil: derived from the descriptor limit.
        var maxConnections: Int?
        /// Most listens per realtime connection; nil: 10,000.
        var maxListenersPerConnection: Int?

        /// `"limits": {"ip": "100/s,burst=200", "user": "20/s", "maxConnections": 4000, "maxListenersPerConnection": 1000}`;
        /// a rate may also be a number of requests per second.
        mutating func apply(_ members: [JSONMember], file path: String) throws {
            for m in members {
                switch (m.key, m.value) {
                case ("ip", .string(let s)): ip = s
                case ("ip", .int(let i)): ip = "\(i)/s"
                case ("user", .string(let s)): user = s
                case ("user", .int(let i)): user = "\(i)/s"
                case ("maxConnections", .int(let i)): maxConnections = Int(clamping: i)
                case ("maxListenersPerConnection", .int(let i)): maxListenersPerConnection = Int(clamping: i)
                default: throw Failure(description: "config file \(path): unknown or mistyped setting \"limits.\(m.key)\"")
                }
            }
        }

        /// `HEARTH_RATE_LIMIT_IP`, `HEARTH_RATE_LIMIT_USER`, `HEARTH_MAX_CONNECTIONS`, `HEARTH_MAX_LISTENERS_PER_CONNECTION`.
        mutating func apply(environment env: [String: String]) throws {
            if let v = env["HEARTH_RATE_LIMIT_IP"] { ip = v }
            if let v = env["HEARTH_RATE_LIMIT_USER"] { user = v }
            for (name, keyPath) in [
                ("HEARTH_MAX_CONNECTIONS", \LimitSettings.maxConnections), ("HEARTH_MAX_LISTENERS_PER_CONNECTION", \LimitSettings.maxListenersPerConnection),
            ] {
                guard let v = env[name] else { continue }
                guard let n = Int(v), n > 0 else { throw Failure(description: "\(name) must be a positive number") }
                self[keyPath: keyPath] = n
            }
        }

        /// The server's limits, or a failure naming the setting that is wrong.
        func checked() throws -> RequestLimits {
            var limits = RequestLimits()
            do { limits.ip = try ip.map { try RateLimit(parsing: $0) } ?? .unlimited } catch {
                throw Failure(description: "--rate-limit-ip (limits.ip): \(error)")
            }
            do { limits.user = try user.map { try RateLimit(parsing: $0) } ?? .unlimited } catch {
                throw Failure(description: "--rate-limit-user (limits.user): \(error)")
            }
            if let maxConnections {
                guard maxConnections > 0 else { throw Failure(description: "--max-connections (limits.maxConnections) must be a positive number") }
                limits.maxConnections = maxConnections
            }
            if let maxListenersPerConnection {
                guard maxListenersPerConnection > 0 else {
                    throw Failure(description: "--max-listeners-per-connection (limits.maxListenersPerConnection) must be a positive number")
                }
                limits.maxListenersPerConnection = maxListenersPerConnection
            }
            return limits
        }
    }
}
