/// Who a request acts as, decided once for every product: the admin credential, a user with the claims of
/// a verified ID token, or nobody signed in.
public enum Caller: Sendable, Hashable {
    /// The admin credential: rules are skipped (a product may still let the admin act as a user).
    case admin
    /// A signed-in user; the value is the rules' `auth` variable (`uid`, `provider`, `token`).
    case user(JSONValue)
    /// No credential.
    case signedOut

    /// The rules' `auth` variable: the user's, nil for the admin and for nobody.
    public var auth: JSONValue? {
        if case .user(let auth) = self { return auth }
        return nil
    }
}
