import Foundation
import Hearth
import HearthCore
@testable import GiftsCore
import Testing

/// How the Hearth repositories read the SDK's errors, and a refused reservation in particular (Examples/Gifts/README.md: a second
/// reservation is refused with permission denied, like one of an own, received or missing wish).
@Suite("Gifts error mapping")
struct ErrorMappingTests {
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
            (DatabaseError.permissionDenied("/reservations/ann/w1"), .permissionDenied),
            (DatabaseError.offline("/wishes"), .offline),
            (DatabaseError.disconnected("/wishes"), .offline),
            (DatabaseError.notFound("/wishes/x"), .notFound),
            (AppError.alreadyReserved, .alreadyReserved),
        ]
        for (error, expected) in cases {
            #expect(ErrorMapping.app(error) == expected, "\(error)")
        }
        if case .failed = ErrorMapping.app(CocoaError(.fileNoSuchFile)) {
        } else {
            Issue.record("an unknown error is .failed")
        }
    }

    @Test func aRefusedReservationIsAlreadyReservedOnlyWhenTheFlagSaysSo() {
        let denied = DatabaseError.permissionDenied("/reservations/ann/w1")
        #expect(ReservationErrors.reserve(denied, reservedNow: true) == .alreadyReserved)
        #expect(ReservationErrors.reserve(denied, reservedNow: false) == .permissionDenied)
        #expect(ReservationErrors.reserve(denied, reservedNow: nil) == .permissionDenied)
        // Other failures keep their meaning, whatever the flag.
        #expect(ReservationErrors.reserve(DatabaseError.offline("/reservations/ann/w1"), reservedNow: true) == .offline)
        #expect(ReservationErrors.reserve(AuthError(code: .notSignedIn, message: "nobody"), reservedNow: nil) == .notSignedIn)
    }

    @Test func aRefusedCancelMeansTheUserHoldsNoReservation() {
        #expect(ReservationErrors.cancel(DatabaseError.permissionDenied("/reservations/ann/w1")) == .notFound)
        #expect(ReservationErrors.cancel(DatabaseError.offline("/reservations/ann/w1")) == .offline)
    }

    @Test func everyErrorHasAMessage() {
        let errors: [AppError] = [
            .notSignedIn, .offline, .permissionDenied, .notFound, .invalidInput("Give the wish a name."), .wrongCredentials, .emailInUse,
            .alreadyReserved, .ownWish, .alreadyReceived, .failed("boom"),
        ]
        for error in errors { #expect(!error.description.isEmpty) }
        #expect(AppError.invalidInput("Give the wish a name.").description == "Give the wish a name.")
        #expect(Set(errors.map(\.description)).count == errors.count)
    }
}
