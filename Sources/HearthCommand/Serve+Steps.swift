import ArgumentParser
import Foundation
import HearthAuth
import HearthFiles
import HearthLinks
import HearthPostgres
import HearthRules
import HearthSQLite
import HearthServer
import HearthStorage
import HearthStore
import Logging
import NIOPosix
import ServiceLifecycle

/// The steps of `hearth serve`, each a product or a check, in the order `run` takes them. Each
/// throws the exit code the failure stands for, after printing why.
extension Serve {
    /// The flags, environment and config file resolved and checked: the settings, the store durability and
    /// the password hash cost.
    func checkedSettings() throws -> (Settings, SQLiteStore.Durability, passwordHashN: Int) {
        let settings: Settings
        do {
            settings = try resolve()
        } catch {
            throw fail("\(error)", .badConfiguration)
        }
        guard (maxOpenDatabases ?? 1) >= 1, (databaseIdleSeconds ?? 1) >= 1 else {
            throw fail("--max-open-databases and --database-idle-seconds must be at least 1", .badConfiguration)
        }
        guard (0...65535).contains(settings.port), settings.maxBodyBytes > 0, settings.headerTimeout > 0, settings.idleTimeout > 0,
            let durability = SQLiteStore.Durability(rawValue: settings.durability)
        else {
            throw fail("invalid port, body limit, timeouts or durability (full|normal)", .badConfiguration)
        }
        let passwordHashN: Int
        do { passwordHashN = try settings.passwordHashN() } catch { throw fail("\(error)", .badConfiguration) }
        return (settings, durability, passwordHashN)
    }

    /// The SQLite databases of the data folder; the project's database is opened once now, so a corrupt
    /// file is reported at start, not on the first request.
    ///
    /// With `--postgres`, the databases are rows of that server (its schema created or migrated now),
    /// and the change feed that brings other nodes' commits to this node's listeners is a service to run.
    static func databases(_ settings: Settings, folder: String, durability: SQLiteStore.Durability, logger: Logger) async throws
        -> (any StoreFactory, [any Service], PostgresServer?)
    {
        if let url = settings.postgres {
            if settings.backup.every != nil {
                throw fail("--backup-every backs up SQLite data folders; with --postgres back up the database with pg_dump (see docs/operations.md)", .badConfiguration)
            }
            if settings.backup.writeLog == true {
                throw fail("--write-log is for SQLite data folders; with --postgres use PostgreSQL's WAL archiving for point-in-time recovery (see docs/operations.md)", .badConfiguration)
            }
            let location: PostgresLocation
            do { location = try PostgresLocation(url: url) } catch { throw fail("--postgres: \(error)", .badConfiguration) }
            let server: PostgresServer
            do {
                server = try await PostgresServer(location: location, logger: logger)
            } catch {
                throw fail("cannot use PostgreSQL at \(location): \(error)", .corruptDatabase)
            }
            let feed = PostgresChangeFeed(server: server, logger: logger)
            return (PostgresStoreFactory(server: server, feed: feed), [feed], server)
        }
        if let schedule = try BackupSchedule(settings.backup, folder: folder, logger: logger) {
            return (try await databases(settings, folder: folder, durability: durability), [schedule], nil)
        }
        return (try await databases(settings, folder: folder, durability: durability), [], nil)
    }

    private static func databases(_ settings: Settings, folder: String, durability: SQLiteStore.Durability) async throws -> SQLiteStoreFactory {
        var factory = SQLiteStoreFactory(folder: folder, durability: durability)
        factory.writeLog = settings.backup.keepsWriteLog
        do {
            let store = try await factory.open(namespace: settings.project)
            try await store.close()
        } catch {
            throw fail("\(folder)/\(settings.project).sqlite is corrupt or not a Hearth database (\(error))", .corruptDatabase)
        }
        return factory
    }

    /// The data folder as an absolute path, created if missing and checked to be writable.
    static func writableFolder(_ data: String) throws -> String {
        let folder = URL(fileURLWithPath: data).standardizedFileURL.path
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let probe = folder + "/.write-probe"
            guard FileManager.default.createFile(atPath: probe, contents: Data()) else { throw Settings.Failure(description: "") }
            try FileManager.default.removeItem(atPath: probe)
        } catch {
            throw fail("the data folder \(folder) is not writable", .dataFolderNotWritable)
        }
        return folder
    }

    /// Accounts and sign-in: the account store and signing key in the data folder, mail (SMTP or
    /// the emulator's outbox), and the settings that only the auth product reads.
    ///
    /// With PostgreSQL the accounts live there; the signing keys stay in the (shared) data folder, created
    /// under a cluster-wide lock so that nodes starting at once all sign with the same first key.
    static func authService(_ settings: Settings, folder: String, passwordHashN: Int, postgres: PostgresServer?, logger: Logger) async throws
        -> (AuthService, publicURL: String?, TrustedProxies)
    {
        do {
            let trustedProxies = try settings.checkedTrustedProxies()
            let smtp = try settings.smtp.configuration()
            let sms = try settings.sms.configuration()
            let publicURL = try settings.checkedPublicURL()
            let outbox = OutboxSender()
            let email: any MessageSender = try smtp.map { smtp in
                do {
                    return try SMTPSender(configuration: smtp)
                } catch {
                    throw Settings.Failure(description: "cannot set up SMTP (sender address or CA file): \(error)")
                }
            } ?? outbox
            // Codes go to the provider when one is configured, else to the outbox (listed by the emulator's
            // endpoints under --dev).
            let sender: any MessageSender = smtp == nil && sms == nil
                ? outbox : ChannelRouter(email: email, sms: sms.map { SMSSender(configuration: $0) } ?? outbox)
            if let sms {
                logger.info("phone codes are texted through an SMS provider", metadata: ["hearth.sms": "\(sms.baseURL) (account \(sms.accountSID))"])
            }
            if let smtp {
                logger.info("auth emails go through SMTP", metadata: ["hearth.smtp": "\(smtp.host):\(smtp.port) (\(smtp.security.rawValue))"])
                if smtp.security == .none && smtp.username != nil {
                    logger.warning("the SMTP password is sent without encryption (security none)")
                }
            }
            if settings.dev && !(settings.appleClientIDs.isEmpty && settings.googleClientIDs.isEmpty) {
                logger.warning("--dev reads Apple and Google ID tokens unchecked, as the emulator does; the client IDs apply without --dev")
            }
            if !settings.dev {
                if smtp == nil { logger.warning("no SMTP server is configured: auth emails (password resets, sign-in links) are not delivered") }
                if sms == nil { logger.warning("no SMS provider is configured: phone verification codes are not delivered") }
                if publicURL == nil && smtp != nil {
                    logger.warning("no --public-url: emailed links point at http://\(settings.host):\(settings.port)")
                }
            }
            let options: AuthService.Options = settings.dev
                ? AuthService.Options(emailPrivacy: settings.emailPrivacy ?? false, identityProviders: .emulator)
                : .production(
                    authorizedDomains: settings.continueDomains(), emailPrivacy: settings.emailPrivacy ?? true,
                    identityProviders: settings.identityProviders(keys: ProviderKeys()), linkDomains: try settings.hostingLinkDomains())
            let accounts: any AccountStore
            // Sign-in and message limits count in memory on one node; on PostgreSQL every node counts in one table,
            // so ten bad passwords spread over the nodes lock the email as on one node.
            let attempts: any AttemptStore
            let keys: KeyRing
            if let postgres {
                accounts = PostgresAccountStore(server: postgres, project: settings.project)
                attempts = PostgresAttemptStore(server: postgres, project: settings.project)
                keys = try await postgres.whileHoldingLock(Self.keyFolderLock) { try KeyRing.load(folder: folder + "/auth-keys") }
            } else {
                accounts = try SQLiteAccountStore(path: "\(folder)/\(settings.project).auth.sqlite")
                attempts = MemoryAttemptStore()
                // A first start creates the signing key on another thread; the server listens meanwhile.
                keys = try KeyRing.load(folder: folder + "/auth-keys", creatingInBackground: true)
                let keyLogger = logger
                Task {
                    do { try await keys.waitUntilReady() } catch { keyLogger.error("cannot create the ID-token signing key in \(folder)/auth-keys: \(error)") }
                }
            }
            let deliveryLogger = logger
            let auth = AuthService(
                projectID: settings.project, store: accounts, keys: keys, hasher: PasswordHasher(rounds: passwordHashN),
                options: options, sender: sender,
                onDeliveryFailure: { channel, purpose, error in
                    deliveryLogger.error("could not send \(channel.rawValue) (\(purpose)): \(error)")
                }, attempts: attempts)
            return (auth, publicURL, trustedProxies)
        } catch let failure as Settings.Failure {
            throw fail("\(failure)", .badConfiguration)
        } catch let error as MailFormat.InvalidAddress {
            throw fail("the SMTP sender address is \(error)", .badConfiguration)
        } catch {
            throw fail("cannot open the accounts database or signing key in \(folder) (\(error))", .corruptDatabase)
        }
    }

    /// The advisory lock nodes take while loading (or creating) the signing keys of their shared folder.
    static let keyFolderLock: Int64 = 0x6865_6172_7468_0001

    /// File storage: the object catalog (in PostgreSQL when given), the blobs on disk, and the storage
    /// rules file checked now (a broken one stops the start instead of denying everything later).
    static func storageService(
        _ settings: Settings, folder: String, durability: SQLiteStore.Durability, rulesFile: String, pool: NIOThreadPool,
        postgres: PostgresServer?
    ) async throws -> StorageService {
        var blobConfiguration = LocalDiskBlobStore.Configuration()
        blobConfiguration.durable = durability == .full
        do {
            if let text = try? String(contentsOfFile: rulesFile, encoding: .utf8) {
                do {
                    _ = try StorageRules(source: text)
                } catch {
                    throw fail("\(rulesFile): \(error)", .badConfiguration)
                }
            }
            let catalog: any ObjectCatalog =
                try postgres.map { PostgresObjectCatalog(server: $0, project: settings.project) }
                ?? SQLiteObjectCatalog(path: "\(folder)/\(settings.project).storage.sqlite", durable: durability == .full)
            return StorageService(
                catalog: catalog,
                blobs: try await LocalDiskBlobStore(
                    folder: folder + "/storage", configuration: blobConfiguration, threadPool: pool), defaultBucket: "\(settings.project).appspot.com")
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw fail("cannot open file storage in \(folder) (\(error))", .corruptDatabase)
        }
    }

    /// Short links: their domains, the destination allowlist and the link store.
    static func linkService(
        _ settings: Settings, folder: String, durability: SQLiteStore.Durability, publicURL: String?, postgres: PostgresServer?, logger: Logger
    ) throws -> LinkService {
        do {
            let domains = try settings.links.checkedDomains()
            if !domains.isEmpty { logger.info("short links on \(domains.map(\.prefix).joined(separator: ", "))") }
            var authorizedHosts = Set(settings.authorizedDomains.map { $0.lowercased() })
            if let publicURL, let host = URL(string: publicURL)?.host { authorizedHosts.insert(host.lowercased()) }
            let allowlist = try settings.links.allowlist(dev: settings.dev, authorizedHosts: authorizedHosts)
            let store: any LinkStore =
                try postgres.map { PostgresLinkStore(server: $0, project: settings.project) }
                ?? SQLiteLinkStore(path: "\(folder)/\(settings.project).links.sqlite", durable: durability == .full)
            return LinkService(
                store: store, domains: domains,
                appleAppSiteAssociation: settings.links.appleAppSiteAssociation, assetLinks: settings.links.assetLinks, allowlist: allowlist)
        } catch let failure as Settings.Failure {
            throw fail("\(failure)", .badConfiguration)
        } catch {
            throw fail("cannot open \(folder)/\(settings.project).links.sqlite (\(error))", .corruptDatabase)
        }
    }
}
