import Foundation
import HearthCore
import HearthLinks
import HearthServer

extension Settings {
    /// Dynamic Links: the domains links may be made on, and the app-association files served for them.
    struct LinkSettings {
        /// URI prefixes (`https://example.page.link`, `https://example.com/links`).
        var domains: [String] = []
        /// The JSON of `/.well-known/apple-app-site-association` and `/.well-known/assetlinks.json`.
        var appleAppSiteAssociation: [UInt8]?
        var assetLinks: [UInt8]?
        /// RE2 patterns a deep link or web fallback must match whole (`--link-allow`); none = the
        /// link domains' and authorized domains' hosts only (anything in `--dev`).
        var allow: [String] = []
        /// Anyone with an API key may make links (`--links-public-create`); otherwise outside `--dev`
        /// only the admin and signed-in users.
        var publicCreate = false

        /// `"links": {"domains": [...], "appleAppSiteAssociation": <JSON or "path">, "assetLinks": <JSON or "path">}`;
        /// a relative path is relative to the config file's folder.
        mutating func apply(_ members: [JSONMember], file path: String) throws {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            for m in members {
                switch (m.key, m.value) {
                case ("domains", .array(let items)):
                    domains = try items.map {
                        guard let s = $0.stringValue else { throw Failure(description: "config file \(path): links.domains holds strings") }
                        return s
                    }
                case ("appleAppSiteAssociation", let value):
                    appleAppSiteAssociation = try Self.document(value, name: "links.appleAppSiteAssociation", relativeTo: folder)
                case ("assetLinks", let value):
                    assetLinks = try Self.document(value, name: "links.assetLinks", relativeTo: folder)
                case ("allow", .array(let items)):
                    allow = try items.map {
                        guard let s = $0.stringValue, !s.isEmpty else { throw Failure(description: "config file \(path): links.allow holds patterns (strings)") }
                        return s
                    }
                case ("publicCreate", .bool(let on)): publicCreate = on
                default: throw Failure(description: "config file \(path): unknown or mistyped setting \"links.\(m.key)\"")
                }
            }
        }

        /// Inline JSON (object or array), or a string naming a file that holds JSON; checked here so a
        /// typo fails at start, not when iOS or Android fetch the file.
        static func document(_ value: JSONValue, name: String, relativeTo folder: URL) throws -> [UInt8] {
            switch value {
            case .object, .array: return value.jsonBytes
            case .string(let file):
                let url = file.hasPrefix("/") ? URL(fileURLWithPath: file) : folder.appendingPathComponent(file)
                guard let data = FileManager.default.contents(atPath: url.path) else {
                    throw Failure(description: "\(name): cannot read \(url.path)")
                }
                guard let json = try? JSONValue.parse(Array(data)), json.isContainer else {
                    throw Failure(description: "\(name): \(url.path) does not hold a JSON object or array")
                }
                return json.jsonBytes
            default: throw Failure(description: "\(name) must be a JSON object, an array or a file path")
            }
        }

        /// The allowlist: the patterns compiled (a bad one fails the start), or without patterns the
        /// hosts of the link domains and of `authorizedHosts`; everything in `--dev`.
        func allowlist(dev: Bool, authorizedHosts: Set<String>) throws -> LinkAllowlist {
            if dev && allow.isEmpty { return .any }
            var hosts = authorizedHosts
            for d in try checkedDomains() {
                if let host = URL(string: d.prefix)?.host { hosts.insert(host.lowercased()) }
            }
            do {
                return try LinkAllowlist(patterns: allow, hosts: hosts)
            } catch {
                throw Failure(description: "a --link-allow pattern does not compile: \(error)")
            }
        }

        /// The domains, checked: each must be `http(s)://host[:port][/path]`.
        func checkedDomains() throws -> [LinkDomain] {
            try domains.map {
                guard let domain = LinkDomain($0) else {
                    throw Failure(description: "the link domain \($0) must look like https://example.page.link or https://example.com/links")
                }
                return domain
            }
        }
    }

    /// `a, b` → `["a", "b"]`, case kept (prefix paths are case-sensitive).
    static func rawList(_ s: String) -> [String] {
        s.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

extension JSONValue {
    fileprivate var isContainer: Bool {
        switch self {
        case .object, .array: true
        default: false
        }
    }
}
