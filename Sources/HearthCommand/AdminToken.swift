import Foundation
import HearthAuth
import Logging

/// The admin credential: `owner` in dev mode, else `HEARTH_ADMIN_TOKEN`, else a token generated once
/// into `<data>/admin-token` (mode 0600) and printed that one time.
enum AdminToken {
    static func resolve(dev: Bool, folder: String, logger: Logger) throws -> String {
        if dev { return "owner" }
        if let token = ProcessInfo.processInfo.environment["HEARTH_ADMIN_TOKEN"], !token.isEmpty { return token }
        let file = folder + "/admin-token"
        if let data = FileManager.default.contents(atPath: file),
            let token = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty
        {
            return token
        }
        var rng = SystemRandomNumberGenerator()
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &rng)) }.joined()
        try OwnerOnlyFile.save(Array(token.utf8), to: file)
        // Printed once, on stdout, so the operator can copy it; never logged.
        // Written unbuffered, so it shows at once even when stdout is a file or a pipe.
        FileHandle.standardOutput.write(Data("Generated admin token (stored in \(file)): \(token)\n".utf8))
        return token
    }
}
