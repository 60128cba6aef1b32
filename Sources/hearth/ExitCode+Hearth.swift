import ArgumentParser

/// Exit codes that say what went wrong (64 = usage, from ArgumentParser).
extension ExitCode {
    static let dataFolderNotWritable = ExitCode(3)
    static let corruptDatabase = ExitCode(4)
    static let portInUse = ExitCode(5)
    static let badConfiguration = ExitCode(6)
}
