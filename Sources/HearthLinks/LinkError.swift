/// A link request Hearth refuses; the HTTP status is chosen at the edge (`LinksController` in HearthServer).
public struct LinkError: Error, Sendable, CustomStringConvertible {
    /// A stable code; new codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        enum Base: String { case invalidArgument = "INVALID_ARGUMENT", notFound = "NOT_FOUND" }
        let base: Base
        /// The request is malformed or not allowed: bad JSON or an unknown field, a domain the project does not own, a deep
        /// link that is missing, not http(s) or itself a dynamic link, a destination outside the allowlist; also no free
        /// suffix after 32 tries. `INVALID_ARGUMENT` on the wire.
        public static let invalidArgument = Code(base: .invalidArgument)
        /// The link asked about does not exist. Thrown by the callers that look links up (the reopen and stats endpoints,
        /// `hearth links stats`), never by ``LinkService``, whose lookups return nil. `NOT_FOUND` on the wire.
        public static let notFound = Code(base: .notFound)
        /// The code as Firebase spells it in `error.status`: `INVALID_ARGUMENT` or `NOT_FOUND`.
        public var description: String { base.rawValue }
    }

    /// What kind of refusal; the edge picks the HTTP status and the `status` string from it.
    public let code: Code
    /// Safe to show to the caller.
    public let message: String

    /// A refusal; `message` is sent to the caller as written, so it must hold nothing the caller may not see.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message alone, without the code.
    public var description: String { message }
}

/// A `warning` entry of a create response: the link was made, but something in it looks wrong.
public struct LinkWarning: Sendable, Hashable {
    /// Firebase's `warningCode` values (the subset Hearth can detect).
    public enum Code: String, Sendable, CaseIterable {
        /// `amv` (the minimum Android version code) is not an integer.
        case notIntegerAndroidPackageMinVersion = "NOT_INTEGER_ANDROID_PACKAGE_MIN_VERSION"
        /// `amv` is set but `apn` (the Android package) is not, so it has no effect.
        case unnecessaryAndroidPackageMinVersion = "UNNECESSARY_ANDROID_PACKAGE_MIN_VERSION"
        /// `al` (the link the Android app opens) is not an absolute URI (`scheme://authority…`).
        case notURIAndroidLink = "NOT_URI_ANDROID_LINK"
        /// `al` is set but `apn` is not, so it has no effect.
        case unnecessaryAndroidLink = "UNNECESSARY_ANDROID_LINK"
        /// `afl` (where Android users without the app go) is not an absolute URI.
        case notURIAndroidFallbackLink = "NOT_URI_ANDROID_FALLBACK_LINK"
        /// `afl` is a URI but not http(s); visitors are never sent there.
        case badURISchemeAndroidFallbackLink = "BAD_URI_SCHEME_ANDROID_FALLBACK_LINK"
        /// `ius` (the app's custom URL scheme) is set but `ibi` (the iOS bundle id) is not.
        case unnecessaryIOSURLScheme = "UNNECESSARY_IOS_URL_SCHEME"
        /// `isi` (the App Store id) is empty or holds something other than ASCII digits.
        case notNumericIOSAppStoreID = "NOT_NUMERIC_IOS_APP_STORE_ID"
        /// `isi` is set but `ibi` is not, so it has no effect.
        case unnecessaryIOSAppStoreID = "UNNECESSARY_IOS_APP_STORE_ID"
        /// `ifl` (where iOS users without the app go) is not an absolute URI.
        case notURIIOSFallbackLink = "NOT_URI_IOS_FALLBACK_LINK"
        /// `ifl` is a URI but not http(s); visitors are never sent there.
        case badURISchemeIOSFallbackLink = "BAD_URI_SCHEME_IOS_FALLBACK_LINK"
        /// `ipfl` (the iPad fallback) is not an absolute URI.
        case notURIIPadFallbackLink = "NOT_URI_IPAD_FALLBACK_LINK"
        /// `ipfl` is a URI but not http(s); visitors are never sent there.
        case badURISchemeIPadFallbackLink = "BAD_URI_SCHEME_IPAD_FALLBACK_LINK"
        /// A long link's debug parameter `d` is not `1`; it was ignored (the link was still made).
        case badDebugParam = "BAD_DEBUG_PARAM"
        /// A long link has a query parameter Hearth does not know; it was dropped from the link.
        case unrecognizedParam = "UNRECOGNIZED_PARAM"
        /// A parameter's value is longer than 2048 bytes of UTF-8 (the link was still made).
        case tooLongParam = "TOO_LONG_PARAM"
        /// `si` (the preview image) is not an absolute URI.
        case notURISocialImageLink = "NOT_URI_SOCIAL_IMAGE_LINK"
        /// `si` is a URI but not http(s).
        case badURISchemeSocialImageLink = "BAD_URI_SCHEME_SOCIAL_IMAGE_LINK"
        /// The long link, as rendered by ``DynamicLink/longLink``, is longer than 7168 bytes.
        case linkLengthTooLong = "LINK_LENGTH_TOO_LONG"
        /// A long link had a `#fragment`; it was removed.
        case linkWithFragments = "LINK_WITH_FRAGMENTS"
    }

    /// Which warning; sent as `warningCode`, and what a client should branch on.
    public var code: Code
    /// Hearth's explanation for people, sent as `warningMessage` (not Firebase's wording).
    public var message: String

    /// A warning with its code and explanation.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
