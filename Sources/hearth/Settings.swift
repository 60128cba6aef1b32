import Foundation
import HearthCore
import HearthServer

/// Resolved settings: flags > environment (`HEARTH_*`) > config file > defaults.
struct Settings {
    var host = "127.0.0.1"
    var port = 9000
    var data = "./hearth-data"
    var project = "demo"
    var dev = false
    var indexPolicy: IndexPolicy?
    var maxBodyBytes = 16 * 1024 * 1024
    var durability = "full"
    /// Answer `INVALID_LOGIN_CREDENTIALS` for both unknown emails and wrong passwords.
    var emailPrivacy = false

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Applies a JSON config file (`{"port": 9000, "host": "…", "project": "…", "dev": true, …}`).
    mutating func apply(file path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(description: "cannot read config file \(path)")
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(Array(data))
        } catch {
            throw Failure(description: "config file \(path) is not valid JSON: \(error)")
        }
        guard case .object(let members) = json else { throw Failure(description: "config file \(path) must hold a JSON object") }
        for m in members {
            switch (m.key, m.value) {
            case ("host", .string(let s)): host = s
            case ("port", .int(let i)): port = Int(i)
            case ("project", .string(let s)): project = s
            case ("dev", .bool(let b)): dev = b
            case ("indexPolicy", .string(let s)):
                guard let p = IndexPolicy(rawValue: s) else { throw Failure(description: "indexPolicy must be enforce or scan") }
                indexPolicy = p
            case ("maxBodyBytes", .int(let i)): maxBodyBytes = Int(i)
            case ("durability", .string(let s)): durability = s
            case ("emailPrivacy", .bool(let b)): emailPrivacy = b
            default: throw Failure(description: "config file \(path): unknown or mistyped setting \"\(m.key)\"")
            }
        }
    }

    mutating func apply(environment env: [String: String]) throws {
        if let v = env["HEARTH_HOST"] { host = v }
        if let v = env["HEARTH_PORT"] {
            guard let p = Int(v) else { throw Failure(description: "HEARTH_PORT must be a number") }
            port = p
        }
        if let v = env["HEARTH_DATA"] { data = v }
        if let v = env["HEARTH_PROJECT"] { project = v }
        if let v = env["HEARTH_DEV"] { dev = ["1", "true", "yes"].contains(v.lowercased()) }
        if let v = env["HEARTH_INDEX_POLICY"] {
            guard let p = IndexPolicy(rawValue: v) else { throw Failure(description: "HEARTH_INDEX_POLICY must be enforce or scan") }
            indexPolicy = p
        }
        if let v = env["HEARTH_MAX_BODY_BYTES"] {
            guard let n = Int(v), n > 0 else { throw Failure(description: "HEARTH_MAX_BODY_BYTES must be a positive number") }
            maxBodyBytes = n
        }
        if let v = env["HEARTH_DURABILITY"] { durability = v }
        if let v = env["HEARTH_EMAIL_PRIVACY"] { emailPrivacy = ["1", "true", "yes"].contains(v.lowercased()) }
    }
}
