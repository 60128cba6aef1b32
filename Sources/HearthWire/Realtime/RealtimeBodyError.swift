/// A request or push body that lacks a field its action needs, or has it in the wrong form.
///
/// The ``message`` is the text the server answers with (status `failed`, or `invalid_token` for a
/// missing credential); clients and tests compare it, so it does not change.
public struct RealtimeBodyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, as the server says it on the wire.
    public var message: String

    /// An error with this wire text.
    public init(_ message: String) { self.message = message }

    /// `p` is absent or not a string.
    public static let missingPath = RealtimeBodyError("Request lacks a path")
    /// An `auth`/`gauth` request without a string `cred`.
    public static let missingCredential = RealtimeBodyError("Missing credential")
    /// A push without a string `p`.
    public static let missingPushPath = RealtimeBodyError("Push lacks a path")

    /// The wire text.
    public var description: String { message }
}
