import ArgumentParser
import AsyncHTTPClient
import HearthAuth
import Foundation
import HearthCore
import HearthDatabase
import HearthFiles
import HearthPostgres
import HearthLinks
import HearthStorage
import NIOPosix
import HearthRules
import HearthSQLite
import HearthServer
import HearthStore
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the Hearth server.")

    @Option(help: "Port to listen on (HEARTH_PORT; default 9000, 0 = any free port).") var port: Int?
    @OptionGroup(title: "Push notifications") var push: PushOptions
    @Option(help: "Address to bind (HEARTH_HOST; default 127.0.0.1).") var host: String?
    @Option(help: "Data folder (HEARTH_DATA; default ./hearth-data).") var data: String?
    @Option(help: "Project id, also the default namespace (HEARTH_PROJECT; default demo).") var project: String?
    @Flag(help: "Development mode: admin token `owner`, unindexed queries answered by scanning (HEARTH_DEV).") var dev = false
    @Option(help: "JSON config file (HEARTH_CONFIG; default <data>/hearth.json when present).") var config: String?
    @Option(help: "Unindexed queries: enforce (400, as Firebase) or scan (HEARTH_INDEX_POLICY).") var indexPolicy: String?
    @Option(help: "Largest request body in bytes (HEARTH_MAX_BODY_BYTES; default 16 MiB).") var maxBodyBytes: Int?
    @Option(help: "Seconds a client has to send a complete request head (HEARTH_HEADER_TIMEOUT; default 60).") var headerTimeout: Int?
    @Option(help: "Seconds a connection may stay silent between requests or inside a request body; streams and realtime connections are not idle (HEARTH_IDLE_TIMEOUT; default 60).")
    var idleTimeout: Int?
    @Option(help: "full (fsync every commit) or normal (survives crashes, not power loss) (HEARTH_DURABILITY).") var durability: String?
    @Option(help: "Keep the databases in PostgreSQL, shared by every node started with the same URL, e.g. postgres://hearth:secret@db:5432/hearth (HEARTH_POSTGRES); the data folder then holds the signing keys and files, shared by the nodes.")
    var postgres: String?
    @Option(help: "Email-enumeration protection, on or off: one INVALID_LOGIN_CREDENTIALS for unknown email and wrong password, no `registered` from createAuthUri (HEARTH_EMAIL_PRIVACY; default on, off with --dev).")
    var emailPrivacy: String?
    @Option(help: "Comma-separated addresses or CIDR ranges of reverse proxies whose X-Forwarded-For names the client (HEARTH_TRUSTED_PROXIES).")
    var trustedProxies: String?
    @Option(help: "log2 of scrypt's N for new password hashes, 12-18 (HEARTH_PASSWORD_COST; default 14: ~35-65 ms and 16 MiB per hash here). Older hashes keep working and move to the new cost at their next sign-in.")
    var passwordCost: Int?
    @Option(help: "How clients reach this server, the base of links in auth emails, e.g. https://api.example.com (HEARTH_PUBLIC_URL).")
    var publicURL: String?
    @Option(help: "Comma-separated hosts an email link's continueUrl may point to, besides the public URL's; localhost only if listed (HEARTH_AUTHORIZED_DOMAINS).")
    var authorizedDomains: String?
    @Option(help: "SMTP server for auth emails (HEARTH_SMTP_HOST); without one, links are not mailed.") var smtpHost: String?
    @Option(help: "SMTP port (HEARTH_SMTP_PORT; default 587, 465 with tls, 25 with none).") var smtpPort: Int?
    @Option(help: "starttls (default), tls or none (HEARTH_SMTP_SECURITY).") var smtpSecurity: String?
    @Option(help: "SMTP user name (HEARTH_SMTP_USERNAME).") var smtpUsername: String?
    @Option(help: "File holding the SMTP password (HEARTH_SMTP_PASSWORD_FILE, or HEARTH_SMTP_PASSWORD).") var smtpPasswordFile: String?
    @Option(help: "Sender of auth emails, e.g. \"My App <no-reply@example.com>\" (HEARTH_SMTP_FROM).") var smtpFrom: String?
    @Option(help: "PEM file of CA certificates to trust for the SMTP server (HEARTH_SMTP_CA_FILE).") var smtpCaFile: String?
    @Option(help: "SMS provider account for phone codes, Twilio's Messages API (HEARTH_SMS_ACCOUNT_SID); without one, codes are not texted.") var smsAccountSid: String?
    @Option(help: "File holding the SMS account's auth token (HEARTH_SMS_AUTH_TOKEN_FILE, or HEARTH_SMS_AUTH_TOKEN).") var smsAuthTokenFile: String?
    @Option(help: "Sender of phone codes: an E.164 number or a messaging service id MG… (HEARTH_SMS_FROM).") var smsFrom: String?
    @Option(help: "The SMS API's origin (HEARTH_SMS_BASE_URL; default https://api.twilio.com, or a compatible provider).") var smsBaseUrl: String?
    @Option(help: "PEM certificate (chain) file: serve HTTPS with HTTP/2 and HTTP/1.1 instead of plain HTTP; SIGHUP reloads it (HEARTH_TLS_CERT; config tls.cert).")
    var tlsCert: String?
    @Option(help: "PEM private key file of --tls-cert (HEARTH_TLS_KEY; config tls.key).") var tlsKey: String?
    @Option(help: "Send Strict-Transport-Security: max-age=SECONDS on every response; TLS only (HEARTH_HSTS_MAX_AGE; config tls.hstsMaxAge; default off).")
    var hstsMaxAge: Int?
    @Option(help: "Geocoder for functions, a Nominatim-compatible API (HEARTH_GEOCODER_URL; default https://nominatim.openstreetmap.org when a user agent is given).")
    var geocoderUrl: String?
    @Option(help: "User-Agent naming your app and a contact, required by the public Nominatim (HEARTH_GEOCODER_USER_AGENT).") var geocoderUserAgent: String?
    @Option(help: "openHAB server for functions' smart home, e.g. http://openhab.local:8080 (HEARTH_OPENHAB_URL).") var openhabUrl: String?
    @Option(help: "File holding the openHAB API token (HEARTH_OPENHAB_TOKEN_FILE, or HEARTH_OPENHAB_TOKEN).") var openhabTokenFile: String?
    @Option(help: "OpenWeather API origin for functions (HEARTH_OPENWEATHER_URL; default https://api.openweathermap.org).") var openweatherUrl: String?
    @Option(help: "File holding the OpenWeather API key; weather for functions is on with a key (HEARTH_OPENWEATHER_KEY_FILE, or HEARTH_OPENWEATHER_KEY).")
    var openweatherKeyFile: String?
    @Option(help: "Comma-separated client IDs (bundle ID, services ID) whose Sign in with Apple ID tokens signInWithIdp accepts (HEARTH_APPLE_CLIENT_IDS); none = Apple sign-in off.")
    var appleClientIds: String?
    @Option(help: "Comma-separated OAuth client IDs whose Google ID tokens signInWithIdp accepts (HEARTH_GOOGLE_CLIENT_IDS); none = Google sign-in off.")
    var googleClientIds: String?
    @Option(help: "Comma-separated Dynamic Links domain prefixes, e.g. https://example.page.link,https://example.com/links (HEARTH_LINK_DOMAINS).")
    var linkDomains: String?
    @Option(help: "Most databases (namespaces) open at once; an idle one is closed to open another (default 64).")
    var maxOpenDatabases: Int?
    @Option(help: "Seconds a database may go unused before it is closed (default 120).")
    var databaseIdleSeconds: Int?
    @Option(help: "A pattern (RE2, matched against the whole URL) that deep links and web fallbacks of short links may match (repeatable; config links.allow). Without one, only the link domains' and authorized domains' hosts are allowed outside --dev.")
    var linkAllow: [String] = []
    @Flag(help: "Let anyone with an API key make short links, as Firebase did; otherwise outside --dev only the admin and signed-in users (HEARTH_LINKS_PUBLIC_CREATE).")
    var linksPublicCreate = false
    @Option(help: "Back up the data folder while serving, every interval: 90s, 30m, 1h, 1d (HEARTH_BACKUP_EVERY; config backup.every). See hearth backup.")
    var backupEvery: String?
    @Option(help: "Scheduled backups: keep this many newest complete ones (HEARTH_BACKUP_KEEP; config backup.keep; default 48).") var backupKeep: Int?
    @Option(help: "Scheduled backups: the backups folder (HEARTH_BACKUP_DIR; config backup.dir; default <data>/backups).") var backupDir: String?
    @Option(help: "Scheduled backups: read at most this many bytes per second, 64M, 1G, 0 = no limit (HEARTH_BACKUP_MAX_RATE; config backup.maxRate; default 64M).")
    var backupMaxRate: String?
    @Flag(inversion: .prefixedNo, help: "Keep a write log in each realtime database for point-in-time restores (HEARTH_WRITE_LOG; config backup.writeLog; default: on with --backup-every).")
    var writeLog: Bool?
    @Option(help: "Log format: text (one line per record, the default) or json (one JSON object per line) (HEARTH_LOG_FORMAT).")
    var logFormat: String?
    @Option(help: "File holding a credential that may read /metrics and nothing else, besides the admin credential (HEARTH_METRICS_TOKEN_FILE, or HEARTH_METRICS_TOKEN).")
    var metricsTokenFile: String?
    @Option(help: "Requests per client address: 100/s, 6000/m or 50000/h, with an optional burst (100/s,burst=200); 0 = unlimited, the default (HEARTH_RATE_LIMIT_IP; config limits.ip). Over it: 429 with Retry-After.")
    var rateLimitIp: String?
    @Option(help: "Requests per signed-in user (uid of a valid ID token), written as --rate-limit-ip; 0 = unlimited, the default (HEARTH_RATE_LIMIT_USER; config limits.user).")
    var rateLimitUser: String?
    @Option(help: "Most connections (HTTP and WebSocket) open at once; more are closed at accept (HEARTH_MAX_CONNECTIONS; config limits.maxConnections; default: the descriptor limit less a reserve for databases and files).")
    var maxConnections: Int?
    @Option(help: "Most listens one realtime connection may hold; more fail (HEARTH_MAX_LISTENERS_PER_CONNECTION; config limits.maxListenersPerConnection; default 10000).")
    var maxListenersPerConnection: Int?
    @Option(help: "Also serve /metrics, /healthz and /readyz, without a credential, on this internal HOST:PORT (HEARTH_METRICS_LISTEN; config metrics.listen).")
    var metricsListen: String?

    func resolve() throws -> Settings {
        let env = ProcessInfo.processInfo.environment
        var s = Settings()
        let dataFolder = data ?? env["HEARTH_DATA"] ?? s.data
        if let file = config ?? env["HEARTH_CONFIG"] {
            try s.apply(file: file)
        } else if FileManager.default.fileExists(atPath: dataFolder + "/hearth.json") {
            try s.apply(file: dataFolder + "/hearth.json")
        }
        try s.apply(environment: env)
        if let port { s.port = port }
        if let host { s.host = host }
        if let data { s.data = data }
        if let project { s.project = project }
        if dev { s.dev = true }
        if let indexPolicy {
            guard let p = IndexPolicy(rawValue: indexPolicy) else {
                throw Settings.Failure(description: "--index-policy must be enforce or scan")
            }
            s.indexPolicy = p
        }
        if let maxBodyBytes { s.maxBodyBytes = maxBodyBytes }
        if let headerTimeout { s.headerTimeout = headerTimeout }
        if let idleTimeout { s.idleTimeout = idleTimeout }
        if let durability { s.durability = durability }
        if let postgres { s.postgres = postgres }
        if let emailPrivacy { s.emailPrivacy = try Settings.onOff(emailPrivacy, "--email-privacy") }
        if let trustedProxies { s.trustedProxies = Settings.rawList(trustedProxies) }
        _ = try s.checkedTrustedProxies()
        if let passwordCost { s.passwordCost = passwordCost }
        if let publicURL { s.publicURL = publicURL }
        if let authorizedDomains { s.authorizedDomains = Settings.list(authorizedDomains) }
        if let appleClientIds { s.appleClientIDs = Settings.rawList(appleClientIds) }
        if let googleClientIds { s.googleClientIDs = Settings.rawList(googleClientIds) }
        if let smtpHost { s.smtp.host = smtpHost }
        if let smtpPort { s.smtp.port = smtpPort }
        if let smtpSecurity { s.smtp.security = smtpSecurity }
        if let smtpUsername { s.smtp.username = smtpUsername }
        if let smtpPasswordFile { s.smtp.passwordFile = smtpPasswordFile }
        if let smtpFrom { s.smtp.from = smtpFrom }
        if let smtpCaFile { s.smtp.caFile = smtpCaFile }
        if let smsAccountSid { s.sms.accountSID = smsAccountSid }
        if let smsAuthTokenFile { s.sms.authTokenFile = smsAuthTokenFile }
        if let smsFrom { s.sms.from = smsFrom }
        if let smsBaseUrl { s.sms.baseURL = smsBaseUrl }
        push.apply(to: &s.push)
        _ = try s.push.checkedAPNs()
        if let tlsCert { s.tls.certificate = tlsCert }
        if let tlsKey { s.tls.key = tlsKey }
        if let hstsMaxAge { s.tls.hstsMaxAge = hstsMaxAge }
        _ = try s.tls.checked()
        if let geocoderUrl { s.services.geocoderURL = geocoderUrl }
        if let geocoderUserAgent { s.services.geocoderUserAgent = geocoderUserAgent }
        if let openhabUrl { s.services.openHABURL = openhabUrl }
        if let openhabTokenFile { s.services.setOpenHABTokenFile(openhabTokenFile) }
        if let openweatherUrl { s.services.openWeatherURL = openweatherUrl }
        if let openweatherKeyFile { s.services.setOpenWeatherKeyFile(openweatherKeyFile) }
        if let linkDomains { s.links.domains = Settings.rawList(linkDomains) }
        if !linkAllow.isEmpty { s.links.allow = linkAllow }
        if linksPublicCreate { s.links.publicCreate = true }
        if let backupEvery { s.backup.every = backupEvery }
        if let backupKeep { s.backup.keep = backupKeep }
        if let backupDir { s.backup.dir = backupDir }
        if let rateLimitIp { s.limits.ip = rateLimitIp }
        if let rateLimitUser { s.limits.user = rateLimitUser }
        if let maxConnections { s.limits.maxConnections = maxConnections }
        if let maxListenersPerConnection { s.limits.maxListenersPerConnection = maxListenersPerConnection }
        _ = try s.limits.checked()
        if let writeLog { s.backup.writeLog = writeLog }
        if let backupMaxRate { s.backup.maxRate = backupMaxRate }
        if let metricsListen { s.metricsListen = metricsListen }
        _ = try s.checkedMetricsListen()
        _ = try s.backup.checkedInterval()
        _ = try s.links.checkedDomains()
        _ = try s.links.allowlist(dev: s.dev, authorizedHosts: [])
        return s
    }

    func run() async throws {
        #if os(Linux)
        // Allocations of 128 KB and more (scrypt's 16 MB work buffers) go straight to mmap and back
        // to the system when freed; with glibc's adaptive threshold they stayed in its arenas and
        // idle RSS grew from ~40 MB to ~130 MB after a few sign-ins (measured).
        _ = glibcMallopt(glibcMMapThreshold, 128 * 1024)
        #endif
        var logger = Logger(label: "hearth", factory: { LineLogHandler(label: $0) })
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        let (settings, durability, passwordHashN) = try checkedSettings()
        logger = try configuredLogger(level: logger.logLevel)
        let outsideServices = try Self.outsideServices(settings, logger: logger)
        let folder = try Self.writableFolder(settings.data)
        let adminToken: String
        do {
            adminToken = try AdminToken.resolve(dev: settings.dev, folder: folder, logger: logger)
        } catch {
            throw fail("cannot create the admin token: \(error)", .dataFolderNotWritable)
        }
        let (factory, backendServices, postgres) = try await Self.databases(settings, folder: folder, durability: durability, logger: logger)
        // A step that fails after PostgreSQL was connected closes its connections before the exit.
        func orClose<T>(_ step: () async throws -> T) async throws -> T {
            do { return try await step() } catch {
                try? await postgres?.shutdown()
                throw error
            }
        }
        let (auth, publicURL, trustedProxies) = try await orClose {
            try await Self.authService(settings, folder: folder, passwordHashN: passwordHashN, postgres: postgres, logger: logger)
        }
        var configuration = ServerConfiguration(
            host: settings.host, port: settings.port, defaultNamespace: settings.project, adminToken: adminToken,
            maxBodyBytes: settings.maxBodyBytes, indexPolicy: settings.indexPolicy ?? (settings.dev ? .scan : .enforce),
            dev: settings.dev, publicURL: publicURL, trustedProxies: trustedProxies, maxOpenNamespaces: maxOpenDatabases ?? 64,
            namespaceIdleSeconds: databaseIdleSeconds ?? 120, linksPublicCreate: settings.links.publicCreate)
        configuration.requestHeadTimeout = .seconds(settings.headerTimeout)
        configuration.idleTimeout = .seconds(settings.idleTimeout)
        configuration.limits = try settings.limits.checked()
        let metricsTokenPath = metricsTokenFile ?? ProcessInfo.processInfo.environment["HEARTH_METRICS_TOKEN_FILE"]
        configuration.metricsToken = try metricsTokenPath.map { path in
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw fail("cannot read the metrics token file \(path)", .badConfiguration) }
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        } ?? ProcessInfo.processInfo.environment["HEARTH_METRICS_TOKEN"]
        configuration.metricsListen = try settings.checkedMetricsListen()
        // The certificate and key are read and checked before anything listens; a bad file stops the start.
        do { configuration.tls = try settings.tls.certificates() } catch {
            try? await postgres?.shutdown()
            throw fail("\(error)", .badConfiguration)
        }
        // Small uploads spend their time in fsync; more threads than cores let many wait at once.
        let filePool = NIOThreadPool(numberOfThreads: 16)
        filePool.start()
        let rulesFile = folder + "/storage.rules"
        let storage = try await orClose {
            try await Self.storageService(settings, folder: folder, durability: durability, rulesFile: rulesFile, pool: filePool, postgres: postgres)
        }
        let functions = HearthCommand.registered.withLock { $0 }
        let links = try await orClose {
            try Self.linkService(settings, folder: folder, durability: durability, publicURL: publicURL, postgres: postgres, logger: logger)
        }
        let messaging = try await orClose {
            try Self.messagingService(settings, folder: folder, durable: durability == .full, postgres: postgres, logger: logger)
        }
        let server = HearthServer(
            configuration: configuration, stores: factory, logger: logger, auth: auth, storage: storage, storageRulesFile: rulesFile,
            functions: functions, links: links, outsideServices: outsideServices, messaging: messaging?.service)
        let startLogger = logger
        let servesTLS = configuration.tls != nil
        let group = server.serviceGroup(services: backendServices) { port in
            if servesTLS { startLogger.info("serving HTTPS (HTTP/2 and HTTP/1.1) on port \(port); SIGHUP reloads the certificate") }
            startLogger.info(
                "Hearth listening on \(servesTLS ? "https" : "http")://\(settings.host):\(port) with data in \(postgres.map { "\($0.location) and " } ?? "")\(folder); \(settings.dev ? "databases are created on first use with open rules (--dev)" : "databases start locked until rules are set, and ones other than \(settings.project) exist once created (hearth namespaces create)")",
                metadata: ["hearth.dev": "\(settings.dev)"])
        }
        do {
            try await group.run()
        } catch {
            await server.shutdown()
            try? await messaging?.http.shutdown()
            try? await postgres?.shutdown()
            if "\(error)".contains("Address already in use") || "\(error)".contains("EADDRINUSE") {
                throw fail("port \(settings.port) on \(settings.host) is already in use", .portInUse)
            }
            throw fail("\(error)")
        }
        await server.shutdown()
        try? await messaging?.http.shutdown()
        try? await postgres?.shutdown()
        try? await filePool.shutdownGracefully()
        logger.info("Hearth stopped")
    }
}

#if os(Linux)
/// glibc's `mallopt` (malloc.h is not part of Swift's Glibc module).
@_silgen_name("mallopt")
private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
/// `M_MMAP_THRESHOLD` from malloc.h.
private let glibcMMapThreshold: Int32 = -3
#endif
