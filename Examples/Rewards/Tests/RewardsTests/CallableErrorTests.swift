import Foundation
import Hearth
import HearthCore
import HearthWire
@testable import RewardsCore
import Testing

/// How the Hearth repositories read the callables' errors (Examples/Rewards/README.md) and the SDK's errors.
@Suite("Rewards callable errors")
struct CallableErrorTests {
    static func error(_ code: CallableStatus, _ details: String? = nil, message: String = "msg") throws -> FunctionsCallError {
        FunctionsCallError(code: code, message: message, details: try details.map { try JSONValue.parse($0) })
    }

    @Test func shakeErrorsBecomeRefusals() throws {
        let cases: [(FunctionsCallError, AppError)] = [
            (try Self.error(.failedPrecondition, #"{"reason": "cooldown", "retryAfterSeconds": 42}"#), .shakeRefused(.cooldown(retryAfterSeconds: 42))),
            (try Self.error(.failedPrecondition, #"{"reason": "cooldown", "retryAfterSeconds": 1.2}"#), .shakeRefused(.cooldown(retryAfterSeconds: 2))),
            (try Self.error(.failedPrecondition, #"{"reason": "cooldown"}"#), .shakeRefused(.cooldown(retryAfterSeconds: 1))),
            (try Self.error(.failedPrecondition, #"{"reason": "dailyLimit"}"#), .shakeRefused(.dailyLimit)),
            (try Self.error(.failedPrecondition, #"{"reason": "notRunning"}"#), .shakeRefused(.notRunning)),
            (try Self.error(.failedPrecondition, #"{"reason": "budgetSpent"}"#), .shakeRefused(.budgetSpent)),
            (try Self.error(.failedPrecondition, #"{"reason": "receiptUsed"}"#), .shakeRefused(.receiptUsed)),
            (try Self.error(.failedPrecondition, #"{"reason": "somethingNew"}"#), .failed("FAILED_PRECONDITION: msg")),
            (try Self.error(.permissionDenied, #"{"reason": "tierTooLow", "minTier": "pro"}"#), .shakeRefused(.tierTooLow(minTier: .pro))),
            (try Self.error(.permissionDenied), .permissionDenied),
            (try Self.error(.invalidArgument, message: "Invalid proof: the watermark is not this campaign's"),
             .shakeRefused(.invalidProof("Invalid proof: the watermark is not this campaign's"))),
            (try Self.error(.notFound), .shakeRefused(.notFound)),
            (try Self.error(.unauthenticated), .notSignedIn),
            (try Self.error(.unavailable), .offline),
            (try Self.error(.internal), .failed("INTERNAL: msg")),
        ]
        for (error, expected) in cases {
            #expect(CallableErrors.shake(error) == expected, "\(error)")
        }
    }

    @Test func redeemAndInviteErrorsBecomeTheirAppErrors() throws {
        #expect(CallableErrors.redeem(try Self.error(.failedPrecondition, #"{"reason": "outOfStock"}"#)) == .outOfStock)
        #expect(CallableErrors.redeem(try Self.error(.failedPrecondition, #"{"reason": "insufficientCoins"}"#)) == .insufficientCoins)
        #expect(CallableErrors.redeem(try Self.error(.notFound)) == .notFound)
        #expect(CallableErrors.redeem(try Self.error(.invalidArgument, message: "itemId must be an id")) == .invalidInput("itemId must be an id"))

        #expect(CallableErrors.invite(try Self.error(.failedPrecondition, #"{"reason": "alreadyRedeemed"}"#)) == .inviteRefused(.alreadyRedeemed))
        #expect(CallableErrors.invite(try Self.error(.failedPrecondition, #"{"reason": "notNew"}"#)) == .inviteRefused(.notNew))
        #expect(CallableErrors.invite(try Self.error(.invalidArgument)) == .inviteRefused(.invalidInviter))
        #expect(CallableErrors.invite(try Self.error(.notFound)) == .inviteRefused(.unknownInviter))
        #expect(CallableErrors.invite(try Self.error(.permissionDenied, #"{"reason": "tierTooLow", "minTier": "signed"}"#)) == .tierTooLow(required: .signed))
        #expect(CallableErrors.invite(try Self.error(.deadlineExceeded)) == .offline)
        #expect(ErrorMapping.app(try Self.error(.unauthenticated)) == .notSignedIn)
    }

    @Test func sdkErrorsBecomeAppErrors() {
        let cases: [(any Error, AppError)] = [
            (AuthError(code: .invalidVerificationCode, message: "wrong"), .wrongCode),
            (AuthError(code: .sessionExpired, message: "late"), .wrongCode),
            (AuthError(code: .expiredActionCode, message: "late"), .wrongCode),
            (AuthError(code: .credentialAlreadyInUse, message: "taken"), .credentialInUse),
            (AuthError(code: .emailAlreadyInUse, message: "taken"), .credentialInUse),
            (AuthError(code: .invalidPhoneNumber, message: "Bad number"), .invalidInput("Bad number")),
            (AuthError(code: .network, message: "down"), .offline),
            (AuthError(code: .notSignedIn, message: "nobody"), .notSignedIn),
            (AuthError(code: .tooManyRequests, message: "slow down"), .failed("slow down")),
            (DatabaseError.permissionDenied("/wallets/u2"), .permissionDenied),
            (DatabaseError.offline("/wallets/u1"), .offline),
            (AppError.outOfStock, .outOfStock),
        ]
        for (error, expected) in cases {
            #expect(ErrorMapping.app(error) == expected, "\(error)")
        }
    }
}
