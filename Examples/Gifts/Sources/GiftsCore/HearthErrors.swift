import Foundation
import Hearth
import HearthCore

/// Hearth's errors as the screens' errors.
enum ErrorMapping {
    static func app(_ error: any Error) -> AppError {
        if let e = error as? AppError { return e }
        if let e = error as? DatabaseError {
            switch e.code {
            case .permissionDenied, .listenRevoked: return .permissionDenied
            case .offline, .disconnected: return .offline
            case .notFound: return .notFound
            default: return .failed(e.description)
            }
        }
        if let e = error as? AuthError {
            switch e.code {
            case .network: return .offline
            case .notSignedIn: return .notSignedIn
            case .wrongPassword, .userNotFound, .invalidCredential: return .wrongCredentials
            case .emailAlreadyInUse, .credentialAlreadyInUse: return .emailInUse
            case .invalidEmail, .missingEmail, .missingPassword, .weakPassword: return .invalidInput(e.message)
            default: return .failed(e.message)
            }
        }
        return .failed("\(error)")
    }

    /// Whether `error` is the rules refusing a write.
    static func isPermissionDenied(_ error: any Error) -> Bool { (error as? DatabaseError)?.code == .permissionDenied }
}

/// What a refused write on `/reservations/{owner}/{wish}` means (Examples/Gifts/README.md: the rules refuse a second reservation with
/// permission denied, the same as a reservation of one's own, a received or a missing wish).
enum ReservationErrors {
    /// `reserve`'s `set` failed with `error`; `reservedNow` is `/wishes/{owner}/{wish}/reserved` read again afterwards
    /// (nil when that read failed or found nothing). Only a refusal of a wish that is reserved is
    /// ``AppError/alreadyReserved``.
    static func reserve(_ error: any Error, reservedNow: Bool?) -> AppError {
        guard ErrorMapping.isPermissionDenied(error) else { return ErrorMapping.app(error) }
        return reservedNow == true ? .alreadyReserved : .permissionDenied
    }

    /// `cancel`'s delete failed with `error`: the rules refuse it when the user holds no reservation there.
    static func cancel(_ error: any Error) -> AppError {
        ErrorMapping.isPermissionDenied(error) ? .notFound : ErrorMapping.app(error)
    }
}
