import ArgumentParser
import Foundation

/// Exit codes that say what went wrong (64 = usage, from ArgumentParser).
extension ExitCode {
    static let dataFolderNotWritable = ExitCode(3)
    static let corruptDatabase = ExitCode(4)
    static let portInUse = ExitCode(5)
    static let badConfiguration = ExitCode(6)
    /// `hearth rules check|test`: the rules do not compile, or a case did not come out as expected.
    static let rulesFailed = ExitCode(7)
}

/// Prints `hearth: <message>` to standard error and returns `code` to throw.
func fail(_ message: String, _ code: ExitCode = .failure) -> ExitCode {
    FileHandle.standardError.write(Data("hearth: \(message)\n".utf8))
    return code
}

/// Prints an error (an auth error as the server would name it) and returns exit code 1.
/// An `ExitCode` (already reported by `fail(_:_:)`) passes through unprinted.
func fail(_ error: any Error) -> ExitCode {
    if let code = error as? ExitCode { return code }
    return fail("\(error)")
}
