import ArgumentParser
import Foundation
import HearthDatabase
import HearthSQLite
import HearthServer

/// `hearth namespaces create|list|delete`: the databases (namespaces) of a data folder, without the server.
struct NamespacesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "namespaces",
        abstract: "Manage the databases (namespaces, ?ns=) of a data folder. Outside --dev a database exists only once created.",
        discussion: """
            create and list work while the server runs (it notices a new database within two seconds). Delete with the \
            server stopped, or on a running server with DELETE /.settings/namespaces/<name>.json (see docs/realtime.md).
            """,
        subcommands: [Create.self, List.self, Delete.self]
    )

    static func stores(_ location: AccountsLocation) -> SQLiteStoreFactory { SQLiteStoreFactory(folder: location.folder) }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a database; it starts with the rules file given, or locked (.read and .write false).")
        @OptionGroup var location: AccountsLocation
        @Argument(help: "The name: 1-63 letters, digits, - or _.") var name: String
        @Option(help: "A rules file ({\"rules\": {...}}, comments allowed) for the new database.") var rules: String?

        func run() async throws {
            var text: String?
            if let rules {
                guard let data = FileManager.default.contents(atPath: rules), let s = String(data: data, encoding: .utf8) else {
                    throw fail("cannot read \(rules)")
                }
                text = s
            }
            do {
                try FileManager.default.createDirectory(atPath: location.folder, withIntermediateDirectories: true)
                try await HearthServer.createNamespace(name, rules: text, in: NamespacesCommand.stores(location))
            } catch {
                throw fail(error)
            }
            print("created \(name)\(text == nil ? " (locked: set its rules with PUT /.settings/rules.json?ns=\(name))" : "")")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the databases, the project's default one marked.")
        @OptionGroup var location: AccountsLocation

        func run() async throws {
            do {
                for name in try HearthServer.namespaceNames(in: NamespacesCommand.stores(location)) {
                    print(name == location.projectID ? "\(name)\t(default)" : name)
                }
            } catch {
                throw fail("cannot list \(location.folder): \(error)")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a database and all its data (stop the server first, or use the REST call on a running one).")
        @OptionGroup var location: AccountsLocation
        @Argument(help: "The name.") var name: String

        func run() async throws {
            guard name != location.projectID else { throw fail("\(name) is the project's default database; it cannot be deleted") }
            do {
                try await HearthServer.deleteNamespace(name, in: NamespacesCommand.stores(location))
            } catch {
                throw fail(error)
            }
            print("deleted \(name)")
        }
    }
}
