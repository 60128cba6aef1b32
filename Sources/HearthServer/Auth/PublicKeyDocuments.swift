import HearthAuth
import Hummingbird
import Synchronization

/// The documents that publish the ID-token public keys (JWKS and Google's x509 map), built once, at
/// the first request: on a first start the signing key may still be being created when the server
/// starts listening (see `KeyRing`).
final class PublicKeyDocuments: Sendable {
    let keys: KeyRing
    private let built = Mutex<(jwks: Response, certificates: Response)?>(nil)

    init(keys: KeyRing) {
        self.keys = keys
    }

    func responses() async throws -> (jwks: Response, certificates: Response) {
        if let built = built.withLock({ $0 }) { return built }
        try await keys.waitUntilReady()
        let documents = (jwks: AuthController.json(try keys.jwks), certificates: AuthController.json(try keys.x509Certificates()))
        built.withLock { $0 = documents }
        return documents
    }
}
