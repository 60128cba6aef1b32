import ArgumentParser
import Foundation
import HearthAuth
import HearthCore
import HearthSQLite
import HearthStore
import HearthWire

/// Where the accounts of a data folder live, for the offline `users` and `auth` commands.
struct AccountsLocation: ParsableArguments {
    @Option(help: "Data folder (HEARTH_DATA; default ./hearth-data).") var data: String?
    @Option(help: "Project id (HEARTH_PROJECT; default demo).") var project: String?

    var folder: String {
        URL(fileURLWithPath: data ?? ProcessInfo.processInfo.environment["HEARTH_DATA"] ?? "./hearth-data").standardizedFileURL.path
    }

    var projectID: String { project ?? ProcessInfo.processInfo.environment["HEARTH_PROJECT"] ?? "demo" }

    /// The accounts of `projectID` in `folder`. Only `creating` commands (import, create) may start
    /// a new data folder or accounts file; the others refuse, rather than create an empty one
    /// beside another project's accounts (a forgotten `--project` would otherwise list nobody,
    /// or import into a file the server never reads).
    func service(creating: Bool = false) throws -> AuthService {
        let fm = FileManager.default
        let accounts = "\(folder)/\(projectID).auth.sqlite"
        if !fm.fileExists(atPath: accounts) {
            let others = ((try? fm.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".auth.sqlite") }.sorted()
            // Naming the project is how a second project's accounts are started on purpose.
            let named = project != nil || ProcessInfo.processInfo.environment["HEARTH_PROJECT"] != nil
            if !others.isEmpty && !(creating && named) {
                let projects = others.map { String($0.dropLast(".auth.sqlite".count)) }.joined(separator: ", ")
                throw fail(named
                    ? "\(folder) has no accounts for project \(projectID), only for \(projects)"
                    : "\(folder) has no accounts for project \(projectID), only for \(projects): pass --project (or HEARTH_PROJECT)")
            }
            if !creating {
                throw fail(fm.fileExists(atPath: folder) ? "\(folder) has no accounts yet" : "there is no data folder at \(folder)")
            }
        }
        let n = try passwordHashN()
        try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let store = try SQLiteAccountStore(path: accounts)
        return AuthService(
            projectID: projectID, store: store, keys: try KeyRing.load(folder: folder + "/auth-keys"), hasher: PasswordHasher(rounds: n))
    }

    /// scrypt's N for the server's `--password-cost` as the folder's config file (or `HEARTH_CONFIG`) and `HEARTH_PASSWORD_COST`
    /// set it, so passwords set here are hashed as the server would hash them.
    func passwordHashN() throws -> Int {
        let env = ProcessInfo.processInfo.environment
        var settings = Settings()
        let file = env["HEARTH_CONFIG"] ?? folder + "/hearth.json"
        do {
            if FileManager.default.fileExists(atPath: file) { try settings.apply(file: file) }
            try settings.applyPasswordCost(environment: env)
            return try settings.passwordHashN()
        } catch let failure as Settings.Failure {
            throw fail("\(failure)")
        }
    }
}


struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Manage the accounts in a data folder (works while the server runs).",
        subcommands: [Import.self, Export.self, List.self, Create.self, Delete.self, SetClaims.self]
    )

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import the JSON that `firebase auth:export` or `hearth users export --password-hashes` writes (or the same shape from another backend); passwords keep working with their hash parameters.")
        @OptionGroup var location: AccountsLocation
        @Argument(help: "The exported JSON file ({\"users\": [...]}).") var file: String
        @Option(help: "How the passwordHash fields were made: SCRYPT (Firebase's; the default with --hash-key), BCRYPT, STANDARD_SCRYPT, PBKDF2_SHA256 or PBKDF_SHA1.")
        var hashAlgo: String?
        @Option(help: "base64_signer_key of the Firebase project's password hash parameters.") var hashKey: String?
        @Option(help: "base64_salt_separator (default Bw==).") var saltSeparator = "Bw=="
        @Option(help: "SCRYPT rounds (default 8); PBKDF iterations.") var rounds: Int?
        @Option(help: "SCRYPT mem_cost (default 14); STANDARD_SCRYPT's N.") var memCost: Int?
        @Option(help: "STANDARD_SCRYPT r.") var blockSize: Int?
        @Option(help: "STANDARD_SCRYPT p.") var parallelization: Int?
        @Option(help: "STANDARD_SCRYPT derived key length in bytes.") var dkLen: Int?

        func run() async throws {
            guard let data = FileManager.default.contents(atPath: file) else { throw fail("cannot read \(file)") }
            guard let json = try? JSONValue.parse(Array(data)), case .object = json, case .array(let exported)? = json["users"] else {
                throw fail("\(file) is not a Firebase auth export ({\"users\": [...]})")
            }
            var users: [JSONValue] = []
            var withHashes = 0
            var redacted = 0
            for (i, u) in exported.enumerated() {
                guard case .object(var m) = u else { throw fail("user \(i) is not a JSON object; nothing was imported") }
                // Firebase's export names the last sign-in `lastSignedInAt`.
                if let last = m.first(where: { $0.key == "lastSignedInAt" }) { m.append(JSONMember("lastLoginAt", last.value)) }
                // Lookups and `list_users` show every hash as this placeholder; it is no password.
                if m.contains(where: { $0.key == "passwordHash" && $0.value == .string(UserRecord.redactedHash) }) {
                    m.removeAll { $0.key == "passwordHash" || $0.key == "salt" }
                    redacted += 1
                }
                if m.contains(where: { $0.key == "passwordHash" }) { withHashes += 1 }
                users.append(.object(m))
            }
            if redacted > 0 {
                print("\(redacted) users carry the redacted placeholder instead of a password hash: imported without a password (they can reset it)")
            }
            let algorithm = hashAlgo?.uppercased() ?? (hashKey != nil ? "SCRYPT" : nil)
            if withHashes > 0 && algorithm == nil {
                throw fail(
                    "\(withHashes) users have password hashes: pass --hash-key (and --salt-separator/--rounds/--mem-cost) from the Firebase console, or --hash-algo for hashes from elsewhere")
            }
            var request = IdentityToolkit.UploadAccountRequest()
            // Read as the server reads an import: a user with a mistyped field is reported alone, below.
            do { request.users = try AuthError.decode([IdentityToolkit.UserImport].self, from: .array(users)) } catch { throw fail(error) }
            if let algorithm {
                request.hashAlgorithm = algorithm
                if algorithm == "SCRYPT" {
                    guard let hashKey else { throw fail("SCRYPT needs --hash-key") }
                    (request.signerKey, request.saltSeparator) = (hashKey, saltSeparator)
                    request.rounds = Int64(rounds ?? 8)
                    request.memoryCost = Int64(memCost ?? 14)
                } else {
                    request.rounds = rounds.map(Int64.init)
                    request.cpuMemCost = memCost.map(Int64.init)
                    request.blockSize = blockSize.map(Int64.init)
                    request.parallelization = parallelization.map(Int64.init)
                    request.dkLen = dkLen.map(Int64.init)
                }
            }
            let result: IdentityToolkit.UploadAccountResponse
            do { result = try await location.service(creating: true).batchCreate(request) } catch { throw fail(error) }
            let errors = result.error ?? []
            let failed = errors.count
            for e in errors { print("user \(e.index): \(e.message)") }
            print("imported \(users.count - failed) of \(users.count) users")
            if failed > 0 { throw ExitCode.failure }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write every account as JSON ({\"users\": [...]}, lookup's user format), without password hashes unless asked.")
        @OptionGroup var location: AccountsLocation
        @Flag(help: "Include the password hashes and salts (standard scrypt), so `users import` elsewhere keeps the passwords working; the import command is printed.")
        var passwordHashes = false
        @Option(help: "With --password-hashes: write the hashes made with this scrypt N (default: the N most of them have; the others are named on stderr).")
        var hashN: Int?
        @Argument(help: "Output file (- for standard output).") var file = "-"

        func run() async throws {
            let service = try location.service()
            var accounts: [AuthService.ExportedAccount] = []
            var token: String?
            repeat {
                let page = try await service.exportPage(after: token, limit: 1000)
                accounts += page.accounts
                token = page.next
            } while token != nil
            var all = accounts.map(\.user)
            if passwordHashes {
                // One file, one set of hash parameters: the cost most passwords were hashed with.
                // (Sign-ins move older hashes to the server's current cost.)
                let costs = Dictionary(accounts.compactMap(\.password).map { ($0.cost, 1) }, uniquingKeysWith: +)
                let cost = hashN ?? costs.max { ($0.value, $0.key) < ($1.value, $1.key) }?.key ?? PasswordHasher.legacyCost
                for (i, account) in accounts.enumerated() {
                    guard let password = account.password, password.cost == cost, case .object(var m) = all[i] else { continue }
                    m.append(JSONMember("passwordHash", .string(password.hash)))
                    m.append(JSONMember("salt", .string(password.salt)))
                    all[i] = .object(m)
                }
                let (r, p, length) = (PasswordHasher.blockSize, PasswordHasher.parallelism, PasswordHasher.keyLength)
                let target = file == "-" ? "FILE" : file
                var said = """
                    password hashes: STANDARD_SCRYPT, N \(cost), r \(r), p \(p), key length \(length)
                    import with: hearth users import \(target) --hash-algo STANDARD_SCRYPT --mem-cost \(cost) --block-size \(r) --parallelization \(p) --dk-len \(length)

                    """
                let imported = accounts.filter(\.hasImportedHash).count
                if imported > 0 { said += "\(imported) users still have an imported password hash (no sign-in since the import): written without it\n" }
                for (n, count) in costs.sorted(by: { $0.key < $1.key }) where n != cost {
                    said += "\(count) users have a password hashed with N \(n): written without it (export them with --hash-n \(n))\n"
                }
                FileHandle.standardError.write(Data(said.utf8))
            }
            let out = JSONValue.object([JSONMember("users", .array(all))]).jsonBytes + [0x0A]
            if file == "-" {
                FileHandle.standardOutput.write(Data(out))
            } else {
                do { try OwnerOnlyFile.save(out, to: file) } catch { throw fail("cannot write \(file): \(error)") }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List accounts: uid, email, phone, name, flags.")
        @OptionGroup var location: AccountsLocation

        func run() async throws {
            let service = try location.service()
            var token: String?
            var count = 0
            repeat {
                let page = try await service.batchGet(maxResults: 1000, pageToken: token)
                for u in page.users {
                    count += 1
                    let flags = [u.disabled == true ? "disabled" : nil, u.emailVerified == true ? "verified" : nil].compactMap { $0 }.joined(separator: ",")
                    print([u.localId, u.email, u.phoneNumber, u.displayName].map { $0 ?? "-" }.joined(separator: "\t") + (flags.isEmpty ? "" : "\t" + flags))
                }
                token = page.nextPageToken
            } while token != nil
            FileHandle.standardError.write(Data("\(count) users\n".utf8))
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an account.")
        @OptionGroup var location: AccountsLocation
        @Option var uid: String?
        @Option var email: String?
        @Option(help: "Password (at least 6 characters); prefer HEARTH_NEW_PASSWORD so it stays out of shell history.") var password: String?
        @Option var displayName: String?
        @Option var phone: String?

        func run() async throws {
            let request = IdentityToolkit.SignUpRequest(
                localId: uid, email: email, password: password ?? ProcessInfo.processInfo.environment["HEARTH_NEW_PASSWORD"],
                displayName: displayName, phoneNumber: phone)
            do {
                let created = try await location.service(creating: true).signUp(request, privileged: true)
                print(created.localId ?? "")
            } catch { throw fail(error) }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an account by uid.")
        @OptionGroup var location: AccountsLocation
        @Argument var uid: String

        func run() async throws {
            let request = IdentityToolkit.DeleteAccountRequest(localId: uid)
            do { _ = try await location.service().delete(request, privileged: true) } catch { throw fail(error) }
        }
    }

    struct SetClaims: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-claims", abstract: "Set a user's custom claims (a JSON object; {} clears them).")
        @OptionGroup var location: AccountsLocation
        @Argument var uid: String
        @Argument(help: "Claims, e.g. '{\"admin\": true}'.") var claims: String

        func run() async throws {
            let request = IdentityToolkit.SetAccountInfoRequest(localId: uid, customAttributes: claims)
            do { _ = try await location.service().update(request, privileged: true) } catch { throw fail(error) }
        }
    }
}

struct AuthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth", abstract: "Auth keys.", subcommands: [RotateKey.self])

    struct RotateKey: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-key",
            abstract: "Add a new ID-token signing key; running servers on this data folder sign with it within a second, older keys keep verifying for 15 days.")
        @OptionGroup var location: AccountsLocation

        func run() throws {
            print("new signing key \(try KeyRing.rotate(in: location.folder + "/auth-keys"))")
        }
    }
}
