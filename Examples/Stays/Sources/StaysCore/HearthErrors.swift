import Foundation
import Hearth
import HearthCore
// `FunctionsCallError.Code` is HearthWire's `CallableStatus` (Hearth imports it publicly); its cases need the import.
import HearthWire

/// Hearth's errors as the screens' errors.
enum ErrorMapping {
    static func app(_ error: any Error) -> AppError {
        if let e = error as? AppError { return e }
        if let e = error as? DatabaseError {
            switch e.code {
            case .permissionDenied: return .permissionDenied
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
        if let e = error as? StorageError {
            switch e.code {
            case .unauthorized: return .permissionDenied
            case .unauthenticated: return .notSignedIn
            case .network: return .offline
            case .objectNotFound: return .notFound
            default: return .failed(e.message)
            }
        }
        if let e = error as? FunctionsCallError { return CallableErrors.general(e) }
        return .failed("\(error)")
    }
}

/// The callables' errors (Examples/Stays/README.md): the status, and for `failed-precondition` the `details.reason`.
enum CallableErrors {
    static func reason(_ e: FunctionsCallError) -> String? { e.details?["reason"]?.stringValue }

    /// What every callable may answer.
    static func general(_ e: FunctionsCallError) -> AppError {
        switch e.code {
        case .unauthenticated: .notSignedIn
        case .unavailable, .deadlineExceeded: .offline
        case .permissionDenied: .permissionDenied
        case .notFound: .notFound
        case .invalidArgument: .invalidInput(e.message)
        default: .failed(e.description)
        }
    }

    /// `geocode`: `not-found` when nothing matches, `unavailable` when the geocoder is down.
    static func geocode(_ e: FunctionsCallError) -> AppError {
        switch e.code {
        case .notFound: .addressNotFound
        case .unavailable: .unavailable(.geocoder)
        default: general(e)
        }
    }

    /// `reserve`: `invalid-argument`, `not-found`, `failed-precondition` with `details.reason` `overlap` (and
    /// `details.nights`), `capacity`, `past`, `tooLong`, `ownCouch`.
    static func reserve(_ e: FunctionsCallError) -> AppError {
        guard e.code == .failedPrecondition else { return general(e) }
        switch reason(e) {
        case "overlap":
            var nights: [Day] = []
            if case .array(let items)? = e.details?["nights"] { nights = items.compactMap { $0.stringValue.flatMap(Day.init) }.sorted() }
            return .reservationRefused(.overlap(nights: nights))
        case "capacity": return .reservationRefused(.capacity)
        case "past": return .reservationRefused(.past)
        case "tooLong": return .reservationRefused(.tooLong)
        case "ownCouch": return .reservationRefused(.ownCouch)
        default: return .failed(e.description)
        }
    }

    /// `cancelReservation`: `not-found`, `permission-denied`, `failed-precondition` `alreadyCancelled`.
    static func cancel(_ e: FunctionsCallError) -> AppError {
        guard e.code == .failedPrecondition else { return general(e) }
        return reason(e) == "alreadyCancelled" ? .alreadyCancelled : .failed(e.description)
    }

    /// `setSwitch` and `runWeatherWatcher`: `permission-denied` (not the host), `unavailable` when openHAB (or, with
    /// `details.service` `weather`, the weather service) is down.
    static func smartHome(_ e: FunctionsCallError) -> AppError {
        guard e.code == .unavailable else { return general(e) }
        return e.details?["service"]?.stringValue == "weather" ? .unavailable(.weather) : .unavailable(.smartHome)
    }
}
