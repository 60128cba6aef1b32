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
            case .invalidVerificationCode, .invalidVerificationID, .sessionExpired, .invalidActionCode, .expiredActionCode: return .wrongCode
            case .credentialAlreadyInUse, .emailAlreadyInUse, .accountExistsWithDifferentCredential: return .credentialInUse
            case .invalidPhoneNumber, .missingPhoneNumber, .invalidEmail, .missingEmail, .invalidContinueURL: return .invalidInput(e.message)
            default: return .failed(e.message)
            }
        }
        if let e = error as? FunctionsCallError { return CallableErrors.general(e) }
        return .failed("\(error)")
    }
}

/// The callables' errors (Examples/Rewards/README.md): the status, and for `failed-precondition` the `details.reason`.
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

    /// `shake`: `invalid-argument`, `not-found`, `permission-denied` (`details.minTier`), `failed-precondition` with
    /// `details.reason` `cooldown` (`details.retryAfterSeconds`), `dailyLimit`, `notRunning`, `budgetSpent`, `receiptUsed`.
    static func shake(_ e: FunctionsCallError) -> AppError {
        switch e.code {
        case .invalidArgument: return .shakeRefused(.invalidProof(e.message))
        case .notFound: return .shakeRefused(.notFound)
        case .permissionDenied:
            guard let tier = e.details?["minTier"]?.stringValue.flatMap(Tier.init(rawValue:)) else { return .permissionDenied }
            return .shakeRefused(.tierTooLow(minTier: tier))
        case .failedPrecondition:
            switch reason(e) {
            case "cooldown":
                let seconds = e.details?["retryAfterSeconds"]?.doubleValue ?? 1
                return .shakeRefused(.cooldown(retryAfterSeconds: max(1, Int(seconds.rounded(.up)))))
            case "dailyLimit": return .shakeRefused(.dailyLimit)
            case "notRunning": return .shakeRefused(.notRunning)
            case "budgetSpent": return .shakeRefused(.budgetSpent)
            case "receiptUsed": return .shakeRefused(.receiptUsed)
            default: return .failed(e.description)
            }
        default: return general(e)
        }
    }

    /// `redeem`: `not-found`, `failed-precondition` with `details.reason` `outOfStock` or `insufficientCoins`.
    static func redeem(_ e: FunctionsCallError) -> AppError {
        guard e.code == .failedPrecondition else { return general(e) }
        switch reason(e) {
        case "outOfStock": return .outOfStock
        case "insufficientCoins": return .insufficientCoins
        default: return .failed(e.description)
        }
    }

    /// `redeemInvite`: `invalid-argument` (not a uid, or oneself), `not-found`, `failed-precondition` with
    /// `details.reason` `alreadyRedeemed` or `notNew`; and `permission-denied` with `details.minTier` from a server
    /// that pays invites only from a tier on.
    static func invite(_ e: FunctionsCallError) -> AppError {
        switch e.code {
        case .invalidArgument: return .inviteRefused(.invalidInviter)
        case .notFound: return .inviteRefused(.unknownInviter)
        case .permissionDenied:
            // Servers that pay invites only to verified accounts say which tier they need.
            guard let tier = e.details?["minTier"]?.stringValue.flatMap(Tier.init(rawValue:)) else { return .permissionDenied }
            return .tierTooLow(required: tier)
        case .failedPrecondition:
            switch reason(e) {
            case "alreadyRedeemed": return .inviteRefused(.alreadyRedeemed)
            case "notNew": return .inviteRefused(.notNew)
            default: return .failed(e.description)
            }
        default: return general(e)
        }
    }
}
