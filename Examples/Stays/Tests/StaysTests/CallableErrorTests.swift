import Foundation
import Hearth
import HearthCore
import HearthWire
@testable import StaysCore
import Testing

/// How the Hearth repositories read the callables' errors (Examples/Stays/README.md) and the SDK's errors.
@Suite("Stays callable errors")
struct CallableErrorTests {
    static func error(_ code: CallableStatus, _ details: String? = nil, message: String = "msg") throws -> FunctionsCallError {
        FunctionsCallError(code: code, message: message, details: try details.map { try JSONValue.parse(Array($0.utf8)) })
    }

    @Test func reserveRefusalsKeepTheirReason() throws {
        let cases: [(FunctionsCallError, AppError)] = [
            (try Self.error(.failedPrecondition, #"{"reason": "overlap", "nights": ["2025-06-21", "2025-06-20"]}"#),
             .reservationRefused(.overlap(nights: [day("2025-06-20"), day("2025-06-21")]))),
            (try Self.error(.failedPrecondition, #"{"reason": "overlap"}"#), .reservationRefused(.overlap(nights: []))),
            (try Self.error(.failedPrecondition, #"{"reason": "overlap", "nights": ["not a day", 3]}"#), .reservationRefused(.overlap(nights: []))),
            (try Self.error(.failedPrecondition, #"{"reason": "capacity"}"#), .reservationRefused(.capacity)),
            (try Self.error(.failedPrecondition, #"{"reason": "past"}"#), .reservationRefused(.past)),
            (try Self.error(.failedPrecondition, #"{"reason": "tooLong"}"#), .reservationRefused(.tooLong)),
            (try Self.error(.failedPrecondition, #"{"reason": "ownCouch"}"#), .reservationRefused(.ownCouch)),
            (try Self.error(.failedPrecondition, #"{"reason": "somethingNew"}"#), .failed("FAILED_PRECONDITION: msg")),
            (try Self.error(.failedPrecondition), .failed("FAILED_PRECONDITION: msg")),
            (try Self.error(.invalidArgument, message: "to must be after from"), .invalidInput("to must be after from")),
            (try Self.error(.notFound), .notFound),
            (try Self.error(.unauthenticated), .notSignedIn),
            (try Self.error(.unavailable), .offline),
            (try Self.error(.deadlineExceeded), .offline),
            (try Self.error(.internal), .failed("INTERNAL: msg")),
        ]
        for (error, expected) in cases {
            #expect(CallableErrors.reserve(error) == expected, "\(error)")
        }
    }

    @Test func geocodeCancelAndSmartHomeErrorsBecomeTheirAppErrors() throws {
        #expect(CallableErrors.geocode(try Self.error(.notFound)) == .addressNotFound)
        #expect(CallableErrors.geocode(try Self.error(.unavailable)) == .unavailable(.geocoder))
        #expect(CallableErrors.geocode(try Self.error(.invalidArgument, message: "address is required")) == .invalidInput("address is required"))
        #expect(CallableErrors.geocode(try Self.error(.unauthenticated)) == .notSignedIn)

        #expect(CallableErrors.cancel(try Self.error(.failedPrecondition, #"{"reason": "alreadyCancelled"}"#)) == .alreadyCancelled)
        #expect(CallableErrors.cancel(try Self.error(.failedPrecondition, #"{"reason": "other"}"#)) == .failed("FAILED_PRECONDITION: msg"))
        #expect(CallableErrors.cancel(try Self.error(.permissionDenied)) == .permissionDenied)
        #expect(CallableErrors.cancel(try Self.error(.notFound)) == .notFound)

        #expect(CallableErrors.smartHome(try Self.error(.unavailable)) == .unavailable(.smartHome))
        #expect(CallableErrors.smartHome(try Self.error(.unavailable, #"{"service": "weather"}"#)) == .unavailable(.weather))
        #expect(CallableErrors.smartHome(try Self.error(.permissionDenied)) == .permissionDenied)
        #expect(CallableErrors.smartHome(try Self.error(.notFound)) == .notFound)
    }

    @Test func sdkErrorsBecomeAppErrors() {
        let cases: [(any Error, AppError)] = [
            (AuthError(code: .wrongPassword, message: "wrong"), .wrongCredentials),
            (AuthError(code: .userNotFound, message: "who"), .wrongCredentials),
            (AuthError(code: .invalidCredential, message: "bad"), .wrongCredentials),
            (AuthError(code: .emailAlreadyInUse, message: "taken"), .emailInUse),
            (AuthError(code: .weakPassword, message: "Too weak"), .invalidInput("Too weak")),
            (AuthError(code: .invalidEmail, message: "Bad email"), .invalidInput("Bad email")),
            (AuthError(code: .network, message: "down"), .offline),
            (AuthError(code: .notSignedIn, message: "nobody"), .notSignedIn),
            (AuthError(code: .tooManyRequests, message: "slow down"), .failed("slow down")),
            (DatabaseError.permissionDenied("/switches/c1"), .permissionDenied),
            (DatabaseError.offline("/couches"), .offline),
            (DatabaseError.notFound("/couches/x"), .notFound),
            (AppError.alreadyCancelled, .alreadyCancelled),
            (try! Self.error(.unauthenticated), .notSignedIn),
        ]
        for (error, expected) in cases {
            #expect(ErrorMapping.app(error) == expected, "\(error)")
        }
    }
}
