import Foundation
import HearthServer
import Logging

extension Serve {
    /// The logger `hearth serve` writes with: `--log-format` (HEARTH_LOG_FORMAT; text or json) at `level`, each record
    /// with the id of the request it was written for.
    func configuredLogger(level: Logger.Level) throws -> Logger {
        let name = logFormat ?? ProcessInfo.processInfo.environment["HEARTH_LOG_FORMAT"] ?? LogFormat.text.rawValue
        guard let format = LogFormat(rawValue: name) else {
            throw fail("--log-format must be text or json, not \(name)", .badConfiguration)
        }
        return format.logger(level: level, metadataProvider: HearthServer.logMetadataProvider)
    }
}
