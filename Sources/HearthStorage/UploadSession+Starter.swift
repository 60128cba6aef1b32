import HearthCore

extension UploadSession {
    /// The credential a resumable session was started with.
    package enum Starter: Codable, Sendable, Equatable {
        case admin
        /// A signed-in user, by uid.
        case user(String)
        /// No credential: the session URL alone lets a client go on (as it let it start).
        case signedOut

        package init(_ caller: Caller) {
            switch caller {
            case .admin: self = .admin
            case .user(let auth):
                if let uid = auth["uid"]?.stringValue { self = .user(uid) } else { self = .signedOut }
            case .signedOut: self = .signedOut
            }
        }
    }

    /// Refuses a caller other than the one who started the session (the admin may always go on):
    /// 401 without a credential, 403 with another one. Knowing a session's URL is not enough to
    /// write into someone else's upload.
    package func checkStarter(_ caller: Caller) throws {
        guard let starter, starter != .signedOut else { return }
        if case .admin = caller { return }
        if Starter(caller) == starter { return }
        if Starter(caller) == .signedOut {
            throw StorageError(.authError, "This upload belongs to a signed-in user; send their credential.")
        }
        throw StorageError.forbidden("Permission denied. This upload was started by another user.")
    }
}
