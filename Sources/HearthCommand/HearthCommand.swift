import ArgumentParser
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import HearthFunctions
import HearthServer
import Synchronization

/// The `hearth` command line as a library: `hearth serve` and the admin commands.
///
/// The stock `hearth` executable calls ``main(functions:)`` with no functions. An app team builds its
/// own executable on the same entry point, registers its server functions, and runs it with exactly
/// the flags, environment variables and data folder of `hearth serve`:
///
/// ```swift
/// import HearthCommand
/// import HearthFunctions
///
/// var functions = Functions()
/// functions.onValueCreated("/reservations/{id}") { event, context in … }
/// await HearthCommand.main(functions: functions)
/// ```
public enum HearthCommand {
    /// Parses the process arguments and runs the chosen command; exits the process when done.
    public static func main(functions: Functions = Functions()) async {
        // Everything a command creates in the data folder (databases with their WAL files,
        // accounts with password hashes, blobs, keys) is for this user only, whatever the
        // shell's umask.
        umask(0o077)
        registered.withLock { $0 = functions }
        await HearthCLI.main()
    }

    /// What `serve` runs (set once, before parsing).
    static let registered = Mutex(Functions())
}

struct HearthCLI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth",
        abstract: "A self-hosted backend for Swift apps: a Firebase-compatible realtime database in one binary.",
        version: "0.1.0",
        subcommands: [
            Serve.self, MigrateCommand.self, RulesCommand.self, StorageCommand.self, UsersCommand.self, AuthCommand.self, LinksCommand.self, NamespacesCommand.self,
            DBCommand.self,
            BackupCommand.self,
            PushCommand.self,
        ]
    )
}
