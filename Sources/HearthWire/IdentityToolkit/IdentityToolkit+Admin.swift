extension IdentityToolkit {
    /// One refused entry of a batch (`batchCreate`, `batchDelete`): its index in the request and why.
    public struct BatchError: Codable, Sendable, Hashable {
        /// The entry's index in the request.
        public var index: Int
        /// The entry's uid (`batchDelete` only).
        public var localId: String?
        /// Firebase's code and detail (`NOT_DISABLED : …`).
        public var message: String

        /// A refusal of entry `index`.
        public init(index: Int, localId: String? = nil, message: String) {
            self.index = index
            self.localId = localId
            self.message = message
        }
    }

    /// `accounts:batchDelete`: the accounts not deleted (an empty object when all were).
    public struct BatchDeleteAccountsResponse: Codable, Sendable, Hashable {
        /// The refused entries; absent when there are none.
        public var errors: [BatchError]?

        /// The answer listing `errors`.
        public init(errors: [BatchError]) { self.errors = errors.isEmpty ? nil : errors }
    }

    /// `accounts:batchCreate` (`uploadAccount`): the accounts not imported.
    public struct UploadAccountResponse: Codable, Sendable, Hashable {
        /// `identitytoolkit#UploadAccountResponse`.
        public var kind: String? = "identitytoolkit#UploadAccountResponse"
        /// The refused entries; absent when there are none.
        public var error: [BatchError]?

        /// The answer listing `errors`.
        public init(errors: [BatchError]) { error = errors.isEmpty ? nil : errors }
    }

    /// `accounts:batchGet` (`downloadAccount`): one page of accounts.
    public struct DownloadAccountResponse: Codable, Sendable, Hashable {
        /// `identitytoolkit#DownloadAccountResponse`.
        public var kind: String? = "identitytoolkit#DownloadAccountResponse"
        /// The page's accounts.
        public var users: [UserInfo]
        /// The token for the next page; absent on the last.
        public var nextPageToken: String?

        /// A page of `users`.
        public init(users: [UserInfo], nextPageToken: String?) {
            self.users = users
            self.nextPageToken = nextPageToken
        }
    }

    /// `accounts:query`: how many accounts match and, unless only counted, one page of them.
    public struct QueryUserInfoResponse: Codable, Sendable, Hashable {
        /// The number of matching accounts, as a decimal string.
        public var recordsCount: String
        /// The page's accounts; absent when the request asked for the count only.
        public var userInfo: [UserInfo]?

        /// The answer for `count` matches.
        public init(count: Int, userInfo: [UserInfo]?) {
            recordsCount = String(count)
            self.userInfo = userInfo
        }
    }

    /// `:createSessionCookie`.
    public struct CreateSessionCookieResponse: Codable, Sendable, Hashable {
        /// The signed session cookie.
        public var sessionCookie: String

        /// The answer carrying `sessionCookie`.
        public init(sessionCookie: String) { self.sessionCookie = sessionCookie }
    }

    /// `accounts:createAuthUri`: how an email can sign in (with email-enumeration protection, only a session id).
    public struct CreateAuthUriResponse: Codable, Sendable, Hashable {
        /// `identitytoolkit#CreateAuthUriResponse`.
        public var kind: String? = "identitytoolkit#CreateAuthUriResponse"
        /// Whether the email has an account.
        public var registered: Bool?
        /// The providers the account signs in with (`password`, `google.com`, …).
        public var allProviders: [String]?
        /// The sign-in methods (`password`, `emailLink`, `google.com`, …).
        public var signinMethods: [String]?
        /// An opaque session id.
        public var sessionId: String?

        /// The answer that says nothing about the address (email-enumeration protection).
        public init(sessionId: String) { self.sessionId = sessionId }

        /// The answer describing the address's account.
        public init(registered: Bool, allProviders: [String], signinMethods: [String], sessionId: String) {
            self.registered = registered
            self.allProviders = allProviders
            self.signinMethods = signinMethods
            self.sessionId = sessionId
        }
    }

    /// `GET projects` (v3 `getProjectConfig`).
    public struct ProjectConfig: Codable, Sendable, Hashable {
        /// The project's id.
        public var projectId: String
        /// The hosts sign-in pages and continue URLs may be on.
        public var authorizedDomains: [String]

        /// The configuration of `projectId`.
        public init(projectId: String, authorizedDomains: [String]) {
            self.projectId = projectId
            self.authorizedDomains = authorizedDomains
        }
    }

    /// `GET recaptchaParams` (v3 `getRecaptchaParam`).
    public struct GetRecaptchaParamResponse: Codable, Sendable, Hashable {
        /// `identitytoolkit#GetRecaptchaParamResponse`.
        public var kind: String? = "identitytoolkit#GetRecaptchaParamResponse"
        /// The reCAPTCHA token.
        public var recaptchaStoken: String
        /// The reCAPTCHA site key.
        public var recaptchaSiteKey: String

        /// The answer with these values.
        public init(recaptchaStoken: String, recaptchaSiteKey: String) {
            self.recaptchaStoken = recaptchaStoken
            self.recaptchaSiteKey = recaptchaSiteKey
        }
    }
}
