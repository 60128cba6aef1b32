import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A signed-in session: the user and its tokens.
struct AuthSession: Sendable, Hashable, Codable {
    var user: User
    var idToken: String
    var refreshToken: String
    /// When the ID token expires, by this device's clock (receipt time + `expiresIn`), so a
    /// server clock that differs does not matter.
    var expiresAt: Date
}

/// The session file in ``HearthOptions/persistenceDirectory``: written atomically (a temporary
/// file created with mode 0600, synced, then renamed over the old one), so it is never half
/// written and never readable by other users, even for a moment.
struct SessionFile: Sendable {
    let url: URL

    init(directory: URL, projectID: String) {
        let safe = String(projectID.unicodeScalars.map { scalar -> Character in
            let c = Character(scalar)
            return c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "_" || c == ".") ? c : "_"
        })
        url = directory.appendingPathComponent("hearth-auth-\(safe).json")
    }

    private struct Stored: Codable {
        var version: Int
        var session: AuthSession
    }

    /// The saved session; nil if none or unreadable (a damaged file means signed out).
    func load() -> AuthSession? {
        guard let data = try? Data(contentsOf: url), let stored = try? JSONDecoder().decode(Stored.self, from: data), stored.version == 1
        else { return nil }
        return stored.session
    }

    func save(_ session: AuthSession) throws {
        let data = try JSONEncoder().encode(Stored(version: 1, session: session))
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp").path
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw Self.posixError() }
        var written = 0
        let ok = data.withUnsafeBytes { raw -> Bool in
            while written < raw.count {
                let n = write(fd, raw.baseAddress! + written, raw.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += n
            }
            return fsync(fd) == 0
        }
        let failure = ok ? nil : Self.posixError()
        close(fd)
        if let failure {
            unlink(temporary)
            throw failure
        }
        guard rename(temporary, url.path) == 0 else {
            let error = Self.posixError()
            unlink(temporary)
            throw error
        }
    }

    /// Deletes the file; no file is not an error.
    func remove() throws {
        guard unlink(url.path) == 0 || errno == ENOENT else { throw Self.posixError() }
    }

    private static func posixError() -> any Error {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
}
