import ArgumentParser

/// Exit codes that say what went wrong (64 = usage, from ArgumentParser).
extension ExitCode {
    static let dataFolderNotWritable = ExitCode(3)
    static let corruptDatabase = ExitCode(4)
    static let portInUse = ExitCode(5)
    static let badConfiguration = ExitCode(6)
    /// `hearth rules check|test`: the rules do not compile, or a case did not come out as expected.
    static let rulesFailed = ExitCode(7)
}
