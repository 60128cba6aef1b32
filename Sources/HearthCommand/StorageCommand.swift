import ArgumentParser
import Foundation
import HearthRules

/// `hearth storage rules check|set`: storage security rules without an HTTP call.
struct StorageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storage", abstract: "File storage administration.", subcommands: [Rules.self])

    struct Rules: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check storage rules, or install them in a data folder.", subcommands: [Check.self, Set.self])
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Compile a storage.rules file; errors name the line and column.")

        @Argument(help: "The rules file (rules_version = '2'; service firebase.storage { … }).") var file: String

        func run() throws {
            let rules = try compile(file)
            print("\(file): ok (\(rules.allowStatements.count) allow statements)")
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Install storage rules in the data folder; a running server picks them up within a second.")

        @Argument(help: "The rules file.") var file: String
        @Option(help: "Data folder (HEARTH_DATA; default ./hearth-data).") var data: String?

        func run() throws {
            let rules = try compile(file)
            let folder = data ?? ProcessInfo.processInfo.environment["HEARTH_DATA"] ?? "./hearth-data"
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try Data(rules.source.utf8).write(to: URL(fileURLWithPath: folder + "/storage.rules"), options: .atomic)
            } catch {
                throw fail("cannot write \(folder)/storage.rules: \(error)", .dataFolderNotWritable)
            }
            print("installed \(file) as \(folder)/storage.rules")
        }
    }
}

/// Compiles a storage rules file or exits 7 with the error's position.
private func compile(_ file: String) throws -> StorageRules {
    guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
        throw fail("cannot read \(file)", .rulesFailed)
    }
    do {
        return try StorageRules(source: text)
    } catch {
        FileHandle.standardError.write(Data("\(file): \(error)\n".utf8))
        throw ExitCode.rulesFailed
    }
}
