extension IdentityToolkit {
    /// `accounts:batchDelete` (admin): up to 1000 accounts to delete.
    public struct BatchDeleteAccountsRequest: Codable, Sendable, Equatable {
        /// The uids.
        public var localIds: [String]?
        /// Delete accounts that are not disabled too.
        public var force: Bool?

        /// A request with the given fields; the others are absent.
        public init(localIds: [String]? = nil, force: Bool? = nil) {
            self.localIds = localIds
            self.force = force
        }
    }

    /// `accounts:query` (admin): a count and a page of accounts, optionally only those the expressions name.
    public struct QueryUserInfoRequest: Codable, Sendable, Equatable {
        /// Accounts per page, 1-500 (0 or absent: 500).
        public var limit: Int64?
        /// Accounts to skip.
        public var offset: Int64?
        /// Whether to answer the accounts (default) or only their count.
        public var returnUserInfo: Bool?
        /// Accounts to match; each names one.
        public var expression: [QueryExpression]?

        /// A request with the given fields; the others are absent.
        public init(limit: Int64? = nil, offset: Int64? = nil, returnUserInfo: Bool? = nil, expression: [QueryExpression]? = nil) {
            self.limit = limit
            self.offset = offset
            self.returnUserInfo = returnUserInfo
            self.expression = expression
        }
    }

    /// One account an `accounts:query` asks for, by exactly one of its fields.
    public struct QueryExpression: Codable, Sendable, Equatable {
        /// The account's email.
        public var email: String?
        /// The account's uid.
        public var userId: String?
        /// The account's phone number.
        public var phoneNumber: String?

        /// A request with the given fields; the others are absent.
        public init(email: String? = nil, userId: String? = nil, phoneNumber: String? = nil) {
            self.email = email
            self.userId = userId
            self.phoneNumber = phoneNumber
        }
    }

    /// `:createSessionCookie` (admin): an ID token to turn into a session cookie.
    public struct CreateSessionCookieRequest: Codable, Sendable, Equatable {
        /// The signed-in user's ID token.
        public var idToken: String?
        /// The cookie's lifetime in seconds (300 to 14 days; default 14 days).
        public var validDuration: Int64?

        /// A request with the given fields; the others are absent.
        public init(idToken: String? = nil, validDuration: Int64? = nil) {
            self.idToken = idToken
            self.validDuration = validDuration
        }
    }

    /// v3 `downloadAccount` (admin): a page of accounts.
    public struct DownloadAccountRequest: Codable, Sendable, Equatable {
        /// Accounts per page, 1-1000 (default 20).
        public var maxResults: PageSize?
        /// Where the previous page ended.
        public var nextPageToken: String?

        /// A request with the given fields; the others are absent.
        public init(maxResults: PageSize? = nil, nextPageToken: String? = nil) {
            self.maxResults = maxResults
            self.nextPageToken = nextPageToken
        }
    }

    /// `accounts:createAuthUri`: the email whose sign-in methods to list (`fetchSignInMethodsForEmail`).
    public struct CreateAuthUriRequest: Codable, Sendable, Equatable {
        /// The email.
        public var identifier: String?
        /// The app's URI (required by Firebase's SDKs; not used).
        public var continueUri: String?

        /// A request with the given fields; the others are absent.
        public init(identifier: String? = nil, continueUri: String? = nil) {
            self.identifier = identifier
            self.continueUri = continueUri
        }
    }
}
