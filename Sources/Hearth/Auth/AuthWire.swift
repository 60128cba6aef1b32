import Foundation
import HearthWire

/// Google's error envelope. Requests and answers are `HearthWire`'s ``IdentityToolkit`` types, shared with the server.
enum AuthWire {
    /// The Google error envelope.
    struct ErrorEnvelope: Decodable, Sendable {
        struct Detail: Decodable, Sendable {
            var code: Int?
            var message: String?
        }

        var error: Detail
    }
}

extension IdentityToolkit.UserInfo {
    /// The account as the SDK's ``User``.
    var user: User {
        let providers = (providerUserInfo ?? []).map(\.providerId)
        func date(_ millis: String?) -> Date? { millis.flatMap(Double.init).map { Date(timeIntervalSince1970: $0 / 1000) } }
        return User(
            uid: localId, email: email, emailVerified: emailVerified ?? false, phoneNumber: phoneNumber, displayName: displayName,
            photoURL: photoUrl.flatMap { URL(string: $0) },
            isAnonymous: providers.isEmpty && email == nil && phoneNumber == nil && customAuth != true, providerIDs: providers,
            metadata: UserMetadata(creationDate: date(createdAt), lastSignInDate: date(lastLoginAt)))
    }
}
