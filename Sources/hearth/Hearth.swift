import ArgumentParser

@main
struct Hearth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth",
        abstract: "A self-hosted backend for Swift apps: a Firebase-compatible realtime database in one binary.",
        version: "0.1.0",
        subcommands: [Serve.self, RulesCommand.self, StorageCommand.self, UsersCommand.self, AuthCommand.self]
    )
}
