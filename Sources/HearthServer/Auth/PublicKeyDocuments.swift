import HearthAuth
import Hummingbird
import Synchronization

/// The documents that publish the public keys of ID tokens and session cookies (one key ring signs
/// both): JWKS and Google's x509 map, built at the first request (on a first start the signing key
/// may still be being created when the server starts listening, see `KeyRing`), and again when the
/// ring's keys changed (a key added to the shared folder by `rotate-key` or another node).
final class PublicKeyDocuments: Sendable {
    let keys: KeyRing
    private let built = Mutex<(kids: [String], jwks: Response, certificates: Response)?>(nil)

    /// How long verifiers may cache the documents. Google can say hours because it publishes a key
    /// before signing with it; Hearth's next key signs within a second of `rotate-key`, so
    /// a long cache would make verifiers refuse new tokens until it expired. Five minutes keeps
    /// that window short and still spares verifiers a fetch per token.
    static let cacheControl = "public, max-age=300"

    init(keys: KeyRing) {
        self.keys = keys
    }

    func responses() async throws -> (jwks: Response, certificates: Response) {
        let kids = keys.all.map(\.kid)
        if let built = built.withLock({ $0 }), built.kids == kids { return (built.jwks, built.certificates) }
        try await keys.waitUntilReady()
        func cached(_ response: Response) -> Response {
            var response = response
            response.headers[.cacheControl] = Self.cacheControl
            return response
        }
        let documents = (
            jwks: cached(AuthController.json(try keys.jwks)), certificates: cached(AuthController.json(try keys.x509Certificates()))
        )
        built.withLock { $0 = (keys.all.map(\.kid), documents.jwks, documents.certificates) }
        return documents
    }
}
