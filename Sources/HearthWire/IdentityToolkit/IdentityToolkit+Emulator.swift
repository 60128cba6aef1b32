extension IdentityToolkit {
    /// The Auth emulator's `GET /emulator/v1/projects/<id>/oobCodes`: the emailed codes still waiting.
    public struct EmulatorOobCodes: Codable, Sendable, Hashable {
        /// One emailed code.
        public struct Code: Codable, Sendable, Hashable {
            /// The address it went to.
            public var email: String
            /// The code (empty unless codes are readable).
            public var oobCode: String
            /// The link that carries it.
            public var oobLink: String
            /// What it is for (an ``OobRequestType`` raw value).
            public var requestType: String
            /// The address an email change moves to.
            public var newEmail: String?

            /// A listed code.
            public init(email: String, oobCode: String, oobLink: String, requestType: String, newEmail: String?) {
                self.email = email
                self.oobCode = oobCode
                self.oobLink = oobLink
                self.requestType = requestType
                self.newEmail = newEmail
            }
        }

        /// The codes.
        public var oobCodes: [Code]

        /// The listing.
        public init(oobCodes: [Code]) { self.oobCodes = oobCodes }
    }

    /// The Auth emulator's `GET /emulator/v1/projects/<id>/verificationCodes`: the SMS codes still waiting.
    public struct EmulatorVerificationCodes: Codable, Sendable, Hashable {
        /// One SMS code.
        public struct Code: Codable, Sendable, Hashable {
            /// The code (empty unless codes are readable).
            public var code: String
            /// The number it went to.
            public var phoneNumber: String
            /// The verification id it goes with.
            public var sessionInfo: String

            /// A listed code.
            public init(code: String, phoneNumber: String, sessionInfo: String) {
                self.code = code
                self.phoneNumber = phoneNumber
                self.sessionInfo = sessionInfo
            }
        }

        /// The codes.
        public var verificationCodes: [Code]

        /// The listing.
        public init(verificationCodes: [Code]) { self.verificationCodes = verificationCodes }
    }
}
