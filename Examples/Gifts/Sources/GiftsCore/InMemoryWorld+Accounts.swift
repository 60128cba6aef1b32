import Foundation

/// Accounts and people: what the auth server, the rules of `/users` and the `searchKey` trigger do.
extension InMemoryWorld {
    static func normalizedEmail(_ email: String) -> String { email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() }

    /// The rules of `/users/$uid`: a display name of 1–100 characters, first and last names up to 100.
    static func isValid(_ profile: UserProfile) -> Bool {
        (1...UserProfile.maxNameLength).contains(profile.displayName.utf16.count) && profile.firstName.utf16.count <= UserProfile.maxNameLength
            && profile.lastName.utf16.count <= UserProfile.maxNameLength
    }

    func signUp(_ device: String, email: String, password: String, firstName: String, lastName: String) throws(AppError) -> String {
        try checkFailure()
        let email = Self.normalizedEmail(email)
        guard email.split(separator: "@").count == 2 else { throw .invalidInput("The email address is badly formatted.") }
        guard password.count >= 6 else { throw .invalidInput("The password must be 6 characters long or more.") }
        guard !accounts.values.contains(where: { $0.email == email }) else { throw .emailInUse }
        let profile = UserProfile(firstName: firstName, lastName: lastName)
        guard Self.isValid(profile) else { throw .permissionDenied }
        let uid = newID("u")
        accounts[uid] = Account(email: email, password: password)
        sessions[device] = uid
        db.setProfile(profile, of: uid)
        return uid
    }

    func signIn(_ device: String, email: String, password: String) throws(AppError) -> String {
        try checkFailure()
        let email = Self.normalizedEmail(email)
        guard let uid = accounts.first(where: { $0.value.email == email && $0.value.password == password })?.key else { throw .wrongCredentials }
        sessions[device] = uid
        return uid
    }

    func signOut(_ device: String) { sessions[device] = nil }

    func currentUser(_ device: String) -> String? { sessions[device] }

    /// `/users` ordered by `searchKey`, from the normalized prefix to the end of its range.
    func search(_ device: String, prefix: String, limit: Int) throws(AppError) -> [Person] {
        try readable(device)
        let key = GiftsDatabase.searchKey(prefix)
        guard !key.isEmpty, limit > 0 else { return [] }
        return db.searchKeys.filter { $0.value.hasPrefix(key) }
            .sorted { ($0.value, $0.key) < ($1.value, $1.key) }
            .prefix(limit)
            .compactMap { entry in db.users[entry.key].map { Person(id: entry.key, profile: $0) } }
    }

    func person(_ device: String, uid: String) throws(AppError) -> Person? {
        try readable(device)
        return db.users[uid].map { Person(id: uid, profile: $0) }
    }
}
