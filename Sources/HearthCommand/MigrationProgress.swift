import Foundation

/// The progress line of `hearth migrate` on standard error: rewritten in place on a terminal, plain lines
/// (at most one every few seconds) otherwise.
final class MigrationProgress {
    private let interactive = isatty(STDERR_FILENO) != 0
    private let started = Date()
    private var lastPrint = Date.distantPast
    private var printedInPlace = false
    /// Namespaces copied so far.
    var namespaces = 0
    /// Accounts copied so far.
    var accounts = 0
    /// Object records copied so far.
    var objects = 0
    /// Links copied so far.
    var links = 0
    /// Rows (leaves, accounts, codes, objects, links, events) written so far.
    var rows = 0

    /// Prints the line when it is due (always with `force`).
    func report(_ step: String, force: Bool = false) {
        let now = Date()
        guard force || now.timeIntervalSince(lastPrint) >= (interactive ? 0.2 : 5) else { return }
        lastPrint = now
        let seconds = max(now.timeIntervalSince(started), 0.001)
        let line =
            "\(step): \(namespaces) namespaces, \(accounts) accounts, \(objects) objects, \(links) links copied (\(Int(Double(rows) / seconds)) rows/s)"
        if interactive {
            FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
            printedInPlace = true
        } else {
            FileHandle.standardError.write(Data("\(line)\n".utf8))
        }
    }

    /// Ends the line in place so the next output starts on its own line.
    func finish() {
        if printedInPlace { FileHandle.standardError.write(Data("\n".utf8)) }
        printedInPlace = false
    }
}
