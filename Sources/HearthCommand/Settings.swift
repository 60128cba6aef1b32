import Foundation
import HearthAuth
import HearthCore
import HearthDatabase
import HearthLinks
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
    /// Seconds a client has to send a request head, and seconds a connection may stay silent.
    var headerTimeout = 60
    var idleTimeout = 60
    var durability = "full"
    /// A `postgres://` URL: the databases live in that PostgreSQL server, shared with other nodes,
    /// instead of SQLite files in the data folder.
    var postgres: String?
    /// Email-enumeration protection (`INVALID_LOGIN_CREDENTIALS` for both unknown emails and wrong passwords, no
    /// `registered` in createAuthUri); nil = on outside `--dev`, off in it.
    var emailPrivacy: Bool?
    /// Reverse proxies whose `X-Forwarded-For` names the client (addresses or CIDR ranges).
    var trustedProxies: [String] = []
    /// log2 of the scrypt N new password hashes use.
    var passwordCost = 14
    static let passwordCosts = 12...18
    /// How the outside world reaches this server: the base of links in auth emails.
    var publicURL: String?
    /// Hosts a `continueUrl` in auth emails may point to (besides the public URL's host; `localhost` only if listed).
    var authorizedDomains: [String] = []
    /// Client IDs whose Apple / Google ID tokens `signInWithIdp` accepts outside `--dev`; empty = that provider is off.
    var appleClientIDs: [String] = []
    var googleClientIDs: [String] = []
    var smtp = SMTPSettings()
    var sms = SMSSettings()
    var services = OutsideServicesSettings()
    var links = LinkSettings()
    /// Scheduled backups while serving (`--backup-every`, `--backup-keep`, `--backup-dir`).
    var backup = BackupScheduleSettings()
    /// Request rate limits and connection limits (`limits`).
    var limits = LimitSettings()
    /// The separate metrics listener's `HOST:PORT` (`--metrics-listen`; config `metrics.listen`; `HEARTH_METRICS_LISTEN`).
    var metricsListen: String?
    /// HTTPS with a certificate and key, and HSTS (`--tls-cert`, `--tls-key`, `--hsts-max-age`).
    var tls = TLSSettings()
    /// Push notifications through APNs and FCM (`--apns-*`, `--fcm-*`).
    var push = PushSettings()

    /// The mail server for auth emails; none configured = links are not mailed.
    struct SMTPSettings {
        var host: String?
        var port: Int?
        var security: String?
        var username: String?
        var password: String?
        var passwordFile: String?
        var from: String?
        var caFile: String?

        mutating func apply(_ members: [JSONMember], file path: String) throws {
            for m in members {
                switch (m.key, m.value) {
                case ("host", .string(let v)): host = v
                case ("port", .int(let v)): port = Int(v)
                case ("security", .string(let v)): security = v
                case ("username", .string(let v)): username = v
                case ("password", .string(let v)): password = v
                case ("passwordFile", .string(let v)): passwordFile = v
                case ("from", .string(let v)): from = v
                case ("caFile", .string(let v)): caFile = v
                default: throw Failure(description: "config file \(path): unknown or mistyped setting \"smtp.\(m.key)\"")
                }
            }
        }

        mutating func apply(environment env: [String: String]) throws {
            if let v = env["HEARTH_SMTP_HOST"] { host = v }
            if let v = env["HEARTH_SMTP_PORT"] {
                guard let p = Int(v) else { throw Failure(description: "HEARTH_SMTP_PORT must be a number") }
                port = p
            }
            if let v = env["HEARTH_SMTP_SECURITY"] { security = v }
            if let v = env["HEARTH_SMTP_USERNAME"] { username = v }
            if let v = env["HEARTH_SMTP_PASSWORD"] { password = v }
            if let v = env["HEARTH_SMTP_PASSWORD_FILE"] { passwordFile = v }
            if let v = env["HEARTH_SMTP_FROM"] { from = v }
            if let v = env["HEARTH_SMTP_CA_FILE"] { caFile = v }
        }

        /// The sender's configuration, or nil when no host is set.
        func configuration() throws -> SMTPConfiguration? {
            guard let host, !host.isEmpty else { return nil }
            guard let from else { throw Failure(description: "an SMTP host needs a sender address (--smtp-from, HEARTH_SMTP_FROM)") }
            guard let mode = SMTPConfiguration.Security(rawValue: security ?? "starttls") else {
                throw Failure(description: "SMTP security must be starttls, tls or none")
            }
            var secret = password
            if let passwordFile {
                guard let data = FileManager.default.contents(atPath: passwordFile) else {
                    throw Failure(description: "cannot read the SMTP password file \(passwordFile)")
                }
                secret = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
            }
            if (username == nil) != (secret == nil) { throw Failure(description: "SMTP needs both a username and a password, or neither") }
            let port = port ?? (mode == .tls ? 465 : mode == .startTLS ? 587 : 25)
            guard (1...65535).contains(port) else { throw Failure(description: "the SMTP port must be 1-65535") }
            return SMTPConfiguration(host: host, port: port, security: mode, username: username, password: secret, from: from, trustedCertificates: caFile)
        }
    }

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
            case ("headerTimeout", .int(let i)): headerTimeout = Int(clamping: i)
            case ("idleTimeout", .int(let i)): idleTimeout = Int(clamping: i)
            case ("durability", .string(let s)): durability = s
            case ("postgres", .string(let s)): postgres = s
            case ("emailPrivacy", .bool(let b)): emailPrivacy = b
            case ("emailPrivacy", .string(let v)): emailPrivacy = try Self.onOff(v, "emailPrivacy")
            case ("trustedProxies", .array(let items)): trustedProxies = try Self.strings(items, "trustedProxies", file: path)
            case ("passwordCost", .int(let i)): passwordCost = Int(clamping: i)
            case ("publicURL", .string(let s)): publicURL = s
            case ("authorizedDomains", .array(let items)):
                authorizedDomains = try items.map {
                    guard let s = $0.stringValue else { throw Failure(description: "config file \(path): authorizedDomains holds strings") }
                    return s
                }
            case ("appleClientIds", .array(let items)): appleClientIDs = try Self.strings(items, "appleClientIds", file: path)
            case ("googleClientIds", .array(let items)): googleClientIDs = try Self.strings(items, "googleClientIds", file: path)
            case ("smtp", .object(let members)): try smtp.apply(members, file: path)
            case ("sms", .object(let members)): try sms.apply(members, file: path)
            case ("services", .object(let members)): try services.apply(members, file: path)
            case ("links", .object(let members)): try links.apply(members, file: path)
            case ("backup", .object(let members)): try backup.apply(members, file: path)
            case ("limits", .object(let members)): try limits.apply(members, file: path)
            case ("metrics", .object(let members)): metricsListen = try Self.metricsListen(members, file: path) ?? metricsListen
            case ("tls", .object(let members)): try tls.apply(members, file: path)
            case ("push", .object(let members)): try push.apply(members, file: path)
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
        for (name, keyPath) in [("HEARTH_HEADER_TIMEOUT", \Settings.headerTimeout), ("HEARTH_IDLE_TIMEOUT", \Settings.idleTimeout)] {
            guard let v = env[name] else { continue }
            guard let n = Int(v), n > 0 else { throw Failure(description: "\(name) must be a positive number of seconds") }
            self[keyPath: keyPath] = n
        }
        if let v = env["HEARTH_DURABILITY"] { durability = v }
        if let v = env["HEARTH_POSTGRES"], !v.isEmpty { postgres = v }
        if let v = env["HEARTH_EMAIL_PRIVACY"] { emailPrivacy = try Self.onOff(v, "HEARTH_EMAIL_PRIVACY") }
        if let v = env["HEARTH_TRUSTED_PROXIES"] { trustedProxies = Self.rawList(v) }
        try applyPasswordCost(environment: env)
        if let v = env["HEARTH_PUBLIC_URL"] { publicURL = v }
        if let v = env["HEARTH_AUTHORIZED_DOMAINS"] { authorizedDomains = Self.list(v) }
        if let v = env["HEARTH_LINK_DOMAINS"] { links.domains = Self.rawList(v) }
        if let v = env["HEARTH_LINKS_PUBLIC_CREATE"] { links.publicCreate = v == "1" || v == "true" }
        if let v = env["HEARTH_APPLE_CLIENT_IDS"] { appleClientIDs = Self.rawList(v) }
        if let v = env["HEARTH_GOOGLE_CLIENT_IDS"] { googleClientIDs = Self.rawList(v) }
        try smtp.apply(environment: env)
        sms.apply(environment: env)
        services.apply(environment: env)
        try backup.apply(environment: env)
        try limits.apply(environment: env)
        if let v = env["HEARTH_METRICS_LISTEN"], !v.isEmpty { metricsListen = v }
        try tls.apply(environment: env)
        push.apply(environment: env)
    }

    /// `HEARTH_PASSWORD_COST` alone (the `users` commands read only this of the environment).
    mutating func applyPasswordCost(environment env: [String: String]) throws {
        guard let v = env["HEARTH_PASSWORD_COST"] else { return }
        guard let n = Int(v) else { throw Failure(description: "HEARTH_PASSWORD_COST must be a number") }
        passwordCost = n
    }

    /// scrypt's N for new password hashes, once the cost is known to be in range.
    func passwordHashN() throws -> Int {
        guard Self.passwordCosts.contains(passwordCost) else {
            throw Failure(description: "the password cost must be 12-18 (log2 of scrypt's N; got \(passwordCost))")
        }
        return 1 << passwordCost
    }

    /// `on`/`off` (also `true`/`false`, `yes`/`no`, `1`/`0`).
    static func onOff(_ value: String, _ name: String) throws -> Bool {
        switch value.lowercased() {
        case "on", "true", "yes", "1": return true
        case "off", "false", "no", "0": return false
        default: throw Failure(description: "\(name) must be on or off (got \(value))")
        }
    }

    /// The trusted proxies, checked.
    func checkedTrustedProxies() throws -> TrustedProxies {
        do { return try TrustedProxies(trustedProxies) } catch { throw Failure(description: "--trusted-proxies: \(error)") }
    }

    /// `a.com, b.com` → `["a.com", "b.com"]`.
    static func list(_ s: String) -> [String] {
        s.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    /// The public URL, checked: http(s), a host, no path, query or fragment.
    func checkedPublicURL() throws -> String? {
        guard let publicURL else { return nil }
        let trimmed = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        guard let url = URL(string: trimmed), ["http", "https"].contains(url.scheme ?? ""), let host = url.host, !host.isEmpty,
            url.path.isEmpty, url.query == nil, url.fragment == nil
        else {
            throw Failure(description: "the public URL must look like https://host[:port] (got \(publicURL))")
        }
        return trimmed
    }

    /// The identity providers with client IDs configured, their keys fetched through `keys`.
    func identityProviders(keys: any ProviderKeySource) -> IdentityProviders {
        var providers: [IdentityProviders.Provider] = []
        if !appleClientIDs.isEmpty { providers.append(.apple(clientIDs: Set(appleClientIDs))) }
        if !googleClientIDs.isEmpty { providers.append(.google(clientIDs: Set(googleClientIDs))) }
        return IdentityProviders(providers: providers, keys: keys)
    }

    static func strings(_ items: [JSONValue], _ key: String, file path: String) throws -> [String] {
        try items.map {
            guard let s = $0.stringValue, !s.isEmpty else { throw Failure(description: "config file \(path): \(key) holds non-empty strings") }
            return s
        }
    }

    /// Where continue URLs may point: the public URL's host and the configured domains (`localhost` only when
    /// listed: a production server's users are not on the machine it runs on).
    func continueDomains() -> Set<String> {
        var domains = Set(authorizedDomains.map { $0.lowercased() })
        if let publicURL, let host = ContinueURL(publicURL)?.host { domains.insert(host) }
        return domains
    }

    /// Hosts `sendOobCode`'s `linkDomain` may name: the public URL's and the short-link domains'.
    func hostingLinkDomains() throws -> Set<String> {
        var hosts = Set(try links.checkedDomains().compactMap { ContinueURL($0.prefix)?.host })
        if let publicURL, let host = ContinueURL(publicURL)?.host { hosts.insert(host) }
        return hosts
    }
}
