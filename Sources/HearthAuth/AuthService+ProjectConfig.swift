public import HearthCore

extension AuthService {
    /// `GET projects` (v3 `getProjectConfig`): the JS SDK checks the page's host against
    /// `authorizedDomains` before it opens a sign-in popup or redirect. `localhost` is always
    /// listed, as Firebase does for every project, so development pages work; then the hosts
    /// continue URLs may point to. Hearth has no project number, so `projectId` is the project ID,
    /// as in the Secure Token `project_id`.
    public var projectConfig: JSONValue {
        let domains = ["localhost"] + (options.authorizedDomains ?? []).map { $0.lowercased() }.filter { $0 != "localhost" }.sorted()
        return .object([
            JSONMember("projectId", .string(projectID)),
            JSONMember("authorizedDomains", .array(domains.map { .string($0) })),
        ])
    }

    /// `GET recaptchaParams` (v3 `getRecaptchaParam`): the SDKs fetch a site key before phone
    /// sign-in. Hearth does not check reCAPTCHA (`sendVerificationCode` ignores the token), so the
    /// values are placeholders that say so rather than keys anyone could mistake for real ones.
    public var recaptchaParams: JSONValue {
        .object([
            JSONMember("kind", .string("identitytoolkit#GetRecaptchaParamResponse")),
            JSONMember("recaptchaStoken", .string("hearth-does-not-check-recaptcha")),
            JSONMember("recaptchaSiteKey", .string("hearth-no-recaptcha-site-key")),
        ])
    }
}
