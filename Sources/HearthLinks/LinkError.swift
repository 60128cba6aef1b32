/// A link request Hearth refuses; the HTTP status is chosen at the edge (``LinksController``).
public struct LinkError: Error, Sendable, CustomStringConvertible {
    /// A stable code; new codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        enum Base: String { case invalidArgument = "INVALID_ARGUMENT", notFound = "NOT_FOUND" }
        let base: Base
        public static let invalidArgument = Code(base: .invalidArgument)
        public static let notFound = Code(base: .notFound)
        public var description: String { base.rawValue }
    }

    public let code: Code
    /// Safe to show to the caller.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// A `warning` entry of a create response: the link was made, but something in it looks wrong.
public struct LinkWarning: Sendable, Hashable {
    /// Firebase's `warningCode` values (the subset Hearth can detect).
    public enum Code: String, Sendable, CaseIterable {
        case notIntegerAndroidPackageMinVersion = "NOT_INTEGER_ANDROID_PACKAGE_MIN_VERSION"
        case unnecessaryAndroidPackageMinVersion = "UNNECESSARY_ANDROID_PACKAGE_MIN_VERSION"
        case notURIAndroidLink = "NOT_URI_ANDROID_LINK"
        case unnecessaryAndroidLink = "UNNECESSARY_ANDROID_LINK"
        case notURIAndroidFallbackLink = "NOT_URI_ANDROID_FALLBACK_LINK"
        case badURISchemeAndroidFallbackLink = "BAD_URI_SCHEME_ANDROID_FALLBACK_LINK"
        case unnecessaryIOSURLScheme = "UNNECESSARY_IOS_URL_SCHEME"
        case notNumericIOSAppStoreID = "NOT_NUMERIC_IOS_APP_STORE_ID"
        case unnecessaryIOSAppStoreID = "UNNECESSARY_IOS_APP_STORE_ID"
        case notURIIOSFallbackLink = "NOT_URI_IOS_FALLBACK_LINK"
        case badURISchemeIOSFallbackLink = "BAD_URI_SCHEME_IOS_FALLBACK_LINK"
        case notURIIPadFallbackLink = "NOT_URI_IPAD_FALLBACK_LINK"
        case badURISchemeIPadFallbackLink = "BAD_URI_SCHEME_IPAD_FALLBACK_LINK"
        case badDebugParam = "BAD_DEBUG_PARAM"
        case unrecognizedParam = "UNRECOGNIZED_PARAM"
        case tooLongParam = "TOO_LONG_PARAM"
        case notURISocialImageLink = "NOT_URI_SOCIAL_IMAGE_LINK"
        case badURISchemeSocialImageLink = "BAD_URI_SCHEME_SOCIAL_IMAGE_LINK"
        case linkLengthTooLong = "LINK_LENGTH_TOO_LONG"
        case linkWithFragments = "LINK_WITH_FRAGMENTS"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
