public import HearthWire

extension AuthService {
    /// `GET projects` (v3 `getProjectConfig`): the JS SDK checks the page's host against
    /// `authorizedDomains` before it opens a sign-in popup or redirect. `localhost` is always
    /// listed, as Firebase does for every project, so development pages work; then the hosts
    /// continue URLs may point to. Hearth has no project number, so `projectId` is the project ID,
    /// as in the Secure Token `project_id`.
    public var projectConfig: IdentityToolkit.ProjectConfig {
        let domains = ["localhost"] + (options.authorizedDomains ?? []).map { $0.lowercased() }.filter { $0 != "localhost" }.sorted()
        return IdentityToolkit.ProjectConfig(projectId: projectID, authorizedDomains: domains)
    }

    /// `GET recaptchaParams` (v3 `getRecaptchaParam`): the SDKs fetch a site key before phone
    /// sign-in. Hearth does not check reCAPTCHA (`sendVerificationCode` ignores the token), so the
    /// values are placeholders that say so rather than keys anyone could mistake for real ones.
    public var recaptchaParams: IdentityToolkit.GetRecaptchaParamResponse {
        IdentityToolkit.GetRecaptchaParamResponse(
            recaptchaStoken: "hearth-does-not-check-recaptcha", recaptchaSiteKey: "hearth-no-recaptcha-site-key")
    }
}
