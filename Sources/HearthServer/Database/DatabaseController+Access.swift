import HTTPTypes
import HearthCore
import HearthDatabase
import HearthStore

extension DatabaseController {
    /// Resolves the request's credential into rules access.
    func access(_ identity: Identity, override: JSONValue?) throws -> Access {
        switch identity {
        case .admin:
            guard let override else { return .admin }
            return .user(override == .null ? nil : override)
        case .anonymous:
            return .user(nil)
        case .token(let token):
            do {
                return .user(try authenticator.user(token))
            } catch .expired {
                // As on the realtime socket, which refuses it with `expired_token`.
                throw RestError(.unauthorized, "Auth token is expired")
            } catch {
                throw RestError(.unauthorized, "Could not parse auth token.")
            }
        }
    }

    /// The read check to run inside the call's read snapshot (nil for admin).
    func readCheck(_ call: RestCall, query: Query?) -> (@Sendable (any StoreReader) throws -> Void)? {
        service.readCheck(call.path, in: call.namespace, access: call.access, query: query)
    }
}
