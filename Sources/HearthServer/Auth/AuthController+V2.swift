/// Identity Toolkit v2: the resources Firebase serves there (provider configurations, tenants,
/// multi-factor enrolment, password policy, reCAPTCHA config, token revocation) and Hearth does
/// not. They answer 501 `NOT_IMPLEMENTED`, as the Auth emulator does, so a client learns "not
/// here" rather than "wrong URL"; a path outside these families stays a 404.
extension AuthController {
    static let v2Prefix = "/identitytoolkit.googleapis.com/v2/"

    /// Collections under `v2/projects/{project}` (and `…/tenants/{tenant}`), by the name before
    /// any `:method`.
    static let v2ProjectResources: Set<Substring> = [
        "oauthIdpConfigs", "inboundSamlConfigs", "defaultSupportedIdpConfigs", "tenants", "config", "identityPlatform",
    ]

    /// Project-less v2 operations.
    static let v2Operations: Set<Substring> = ["passwordPolicy", "recaptchaConfig", "accounts:revokeToken"]

    /// The operation a v2 path (after ``v2Prefix``) names, for the 501 message; nil when Identity
    /// Toolkit v2 has no such route.
    static func v2Operation(_ rest: Substring) -> String? {
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 1, v2Operations.contains(parts[0]) { return String(parts[0]) }
        if parts.count == 2, parts[0] == "accounts", parts[1].hasPrefix("mfaEnrollment:") || parts[1].hasPrefix("mfaSignIn:") {
            return String(parts[1])
        }
        // projects/{p}/{resource}[/…], projects/{p}/tenants/{t}[/{resource}[/…]]
        guard parts.count >= 3, parts[0] == "projects", !parts[1].isEmpty else { return nil }
        var resource = parts[2]
        if resource == "tenants", parts.count >= 5 { resource = parts[4] }
        let name = resource.split(separator: ":", maxSplits: 1).first ?? ""
        return v2ProjectResources.contains(name) ? String(resource) : nil
    }
}
