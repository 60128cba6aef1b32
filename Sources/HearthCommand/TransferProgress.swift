import Foundation

/// The progress line of `hearth db export|import` on standard error (bytes, rate and, when the total is
/// known, percent and ETA): rewritten in place about five times a second. Shown only when standard error
/// is a terminal or `--progress` asks for it; standard output stays the data.
final class TransferProgress {
    private let enabled: Bool
    private let interactive = isatty(STDERR_FILENO) != 0
    private let started = Date()
    private var lastPrint = Date.distantPast
    private var printed = false
    /// The size to reach, when known (an import's file size).
    let total: Int?

    /// A progress line for `verb` ("exported", "read"), on when `forced` or standard error is a terminal.
    init(forced: Bool, total: Int? = nil) {
        self.enabled = forced || isatty(STDERR_FILENO) != 0
        self.total = total
    }

    /// Shows `bytes` done when a line is due (always with `force`).
    func report(_ step: String, bytes: Int, force: Bool = false) {
        guard enabled else { return }
        let now = Date()
        guard force || now.timeIntervalSince(lastPrint) >= (interactive ? 0.2 : 2) else { return }
        lastPrint = now
        let seconds = max(now.timeIntervalSince(started), 0.001)
        let rate = Double(bytes) / seconds
        var line = "\(step) \(Self.size(Double(bytes)))"
        if let total, total > 0 {
            let eta = rate > 0 ? Int(Double(max(total - bytes, 0)) / rate) : 0
            line += " of \(Self.size(Double(total))) (\(bytes * 100 / total) %), \(Self.size(rate))/s, ETA \(eta / 60)m\(String(format: "%02d", eta % 60))s"
        } else {
            line += ", \(Self.size(rate))/s"
        }
        FileHandle.standardError.write(Data((interactive ? "\r\u{1B}[K" + line : line + "\n").utf8))
        printed = interactive
    }

    /// Ends the line in place so the next output starts on its own line.
    func finish() {
        if printed { FileHandle.standardError.write(Data("\n".utf8)) }
        printed = false
    }

    private static func size(_ bytes: Double) -> String {
        if bytes >= Double(1 << 30) { return String(format: "%.2f GiB", bytes / Double(1 << 30)) }
        if bytes >= Double(1 << 20) { return String(format: "%.1f MiB", bytes / Double(1 << 20)) }
        if bytes >= 1024 { return String(format: "%.1f KiB", bytes / 1024) }
        return "\(Int(bytes)) B"
    }
}
