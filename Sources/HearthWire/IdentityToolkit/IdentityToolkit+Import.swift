extension IdentityToolkit {
    /// `accounts:batchCreate` (`uploadAccount`, admin): users to import and how their password hashes were made.
    ///
    /// A user with a field of the wrong type does not fail the request: it is decoded as far as it goes, with the
    /// mismatch in ``UserImport/invalidField``, and the import reports it for that user alone.
    public struct UploadAccountRequest: Codable, Sendable, Equatable {
        /// The users.
        public var users: [UserImport]?
        /// `SCRYPT` (Firebase's), `STANDARD_SCRYPT`, `BCRYPT`, `PBKDF2_SHA256`, `PBKDF_SHA1`; absent with raw passwords.
        public var hashAlgorithm: String?
        /// Firebase scrypt's signer key (base64).
        public var signerKey: String?
        /// Firebase scrypt's salt separator (base64).
        public var saltSeparator: String?
        /// Firebase scrypt's rounds, or PBKDF2's iterations.
        public var rounds: Int64?
        /// Firebase scrypt's memory cost, or standard scrypt's N.
        public var memoryCost: Int64?
        /// Standard scrypt's N as admin SDKs send it.
        public var cpuMemCost: Int64?
        /// Standard scrypt's r.
        public var blockSize: Int64?
        /// Standard scrypt's p.
        public var parallelization: Int64?
        /// Standard scrypt's derived key length, as admin SDKs send it.
        public var dkLen: Int64?
        /// Standard scrypt's derived key length.
        public var derivedKeyLength: Int64?
        /// Whether an import may replace existing accounts (Hearth always saves over them).
        public var allowOverwrite: Bool?
        /// Whether to check the users more strictly (not used).
        public var sanityCheck: Bool?

        /// A request with the given fields; the others are absent.
        public init(
            users: [UserImport]? = nil, hashAlgorithm: String? = nil, signerKey: String? = nil, saltSeparator: String? = nil,
            rounds: Int64? = nil, memoryCost: Int64? = nil, cpuMemCost: Int64? = nil, blockSize: Int64? = nil, parallelization: Int64? = nil,
            dkLen: Int64? = nil, derivedKeyLength: Int64? = nil, allowOverwrite: Bool? = nil, sanityCheck: Bool? = nil
        ) {
            self.users = users
            self.hashAlgorithm = hashAlgorithm
            self.signerKey = signerKey
            self.saltSeparator = saltSeparator
            self.rounds = rounds
            self.memoryCost = memoryCost
            self.cpuMemCost = cpuMemCost
            self.blockSize = blockSize
            self.parallelization = parallelization
            self.dkLen = dkLen
            self.derivedKeyLength = derivedKeyLength
            self.allowOverwrite = allowOverwrite
            self.sanityCheck = sanityCheck
        }
    }

    /// One user of an import (`accounts:batchCreate`).
    public struct UserImport: Codable, Sendable, Equatable {
        /// The uid (required).
        public var localId: String?
        /// The email.
        public var email: String?
        /// The profile's name.
        public var displayName: String?
        /// The profile's picture URL.
        public var photoUrl: String?
        /// An E.164 phone number.
        public var phoneNumber: String?
        /// Whether the email counts as verified.
        public var emailVerified: Bool?
        /// Whether the account is disabled.
        public var disabled: Bool?
        /// Custom claims as a JSON object's text.
        public var customAttributes: String?
        /// When the account was made, in milliseconds.
        public var createdAt: Int64?
        /// When the account last signed in, in milliseconds.
        public var lastLoginAt: Int64?
        /// Linked identity providers.
        public var providerUserInfo: [ProviderUserInfoInput]?
        /// The password's hash (base64), made with the request's `hashAlgorithm`.
        public var passwordHash: String?
        /// The hash's salt (base64).
        public var salt: String?
        /// A password in clear, hashed by the server.
        public var rawPassword: String?
        /// The first field of the wrong type, when ``JSONValueDecoder`` read this user (its path starts at the user);
        /// the fields before it are read, the rest absent. Never encoded.
        public var invalidField: JSONFieldMismatch?

        /// A user with the given fields; the others are absent.
        public init(
            localId: String? = nil, email: String? = nil, displayName: String? = nil, photoUrl: String? = nil, phoneNumber: String? = nil,
            emailVerified: Bool? = nil, disabled: Bool? = nil, customAttributes: String? = nil, createdAt: Int64? = nil,
            lastLoginAt: Int64? = nil, providerUserInfo: [ProviderUserInfoInput]? = nil, passwordHash: String? = nil, salt: String? = nil,
            rawPassword: String? = nil
        ) {
            self.localId = localId
            self.email = email
            self.displayName = displayName
            self.photoUrl = photoUrl
            self.phoneNumber = phoneNumber
            self.emailVerified = emailVerified
            self.disabled = disabled
            self.customAttributes = customAttributes
            self.createdAt = createdAt
            self.lastLoginAt = lastLoginAt
            self.providerUserInfo = providerUserInfo
            self.passwordHash = passwordHash
            self.salt = salt
            self.rawPassword = rawPassword
        }

        enum CodingKeys: String, CodingKey {
            case localId, email, displayName, photoUrl, phoneNumber, emailVerified, disabled, customAttributes, createdAt, lastLoginAt
            case providerUserInfo, passwordHash, salt, rawPassword
        }

        /// Reads the fields in order; a field of the wrong type stops there and is kept in ``invalidField`` (a user
        /// that is not an object at all still fails the whole request).
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            do {
                localId = try c.decodeIfPresent(String.self, forKey: .localId)
                email = try c.decodeIfPresent(String.self, forKey: .email)
                displayName = try c.decodeIfPresent(String.self, forKey: .displayName)
                photoUrl = try c.decodeIfPresent(String.self, forKey: .photoUrl)
                phoneNumber = try c.decodeIfPresent(String.self, forKey: .phoneNumber)
                emailVerified = try c.decodeIfPresent(Bool.self, forKey: .emailVerified)
                disabled = try c.decodeIfPresent(Bool.self, forKey: .disabled)
                customAttributes = try c.decodeIfPresent(String.self, forKey: .customAttributes)
                createdAt = try c.decodeIfPresent(Int64.self, forKey: .createdAt)
                lastLoginAt = try c.decodeIfPresent(Int64.self, forKey: .lastLoginAt)
                providerUserInfo = try c.decodeIfPresent([ProviderUserInfoInput].self, forKey: .providerUserInfo)
                passwordHash = try c.decodeIfPresent(String.self, forKey: .passwordHash)
                salt = try c.decodeIfPresent(String.self, forKey: .salt)
                rawPassword = try c.decodeIfPresent(String.self, forKey: .rawPassword)
            } catch let wrong as JSONFieldMismatch {
                invalidField = wrong.dropping(decoder.codingPath.count)
            }
        }
    }

    /// v3 `downloadAccount`'s `maxResults` as sent: a count (a number, rounded down, or a decimal string), or
    /// something that is not one, which the service refuses as `INVALID_PAGE_SELECTION` rather than as a mistyped
    /// field.
    public enum PageSize: Codable, Sendable, Equatable {
        /// A page of this many accounts (range-checked by the service).
        case count(Int64)
        /// A value that is not a count.
        case unreadable

        /// Reads any JSON value; never fails.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let text = try? c.decode(String.self) {
                self = Int64(text).map(PageSize.count) ?? .unreadable
            } else if let exact = try? c.decode(Int64.self) {
                self = .count(exact)
            } else if let number = try? c.decode(Double.self), let whole = Int64(exactly: number.rounded(.down)) {
                self = .count(whole)
            } else {
                self = .unreadable
            }
        }

        /// A count as a number; ``unreadable`` as `null`.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .count(let n): try c.encode(n)
            case .unreadable: try c.encodeNil()
            }
        }
    }
}
