import HearthCore
import Synchronization

/// Sign-ins answered by the auth endpoints, by method and outcome: one relaxed atomic add each, process-wide (like
/// the store's ``CommittedWrites``), counted where ``AuthController`` answers.
enum SignInCounts {
    /// How a client signed in (the `method` label).
    enum Method: Int, CaseIterable, Sendable {
        /// `accounts:signInWithPassword`.
        case password
        /// `accounts:signUp` with an email and password (a new account, signed in).
        case signUp
        /// `accounts:signUp` without an email: an anonymous account.
        case anonymous
        /// `accounts:signInWithCustomToken`.
        case customToken
        /// `accounts:signInWithIdp` (Google, Apple, … credentials).
        case idp
        /// `accounts:signInWithPhoneNumber`.
        case phone
        /// `accounts:signInWithEmailLink`.
        case emailLink
        /// A Secure Token refresh (`/securetoken.googleapis.com/v1/token`).
        case refresh

        /// The label value.
        var label: String {
            switch self {
            case .password: "password"
            case .signUp: "sign_up"
            case .anonymous: "anonymous"
            case .customToken: "custom_token"
            case .idp: "idp"
            case .phone: "phone"
            case .emailLink: "email_link"
            case .refresh: "refresh"
            }
        }

        /// The method of a client's account operation (nil: not a sign-in). Admin calls (`privileged`) create
        /// accounts for someone else and are not sign-ins.
        init?(operation: String, body: JSONValue, privileged: Bool) {
            switch operation {
            case "signInWithPassword": self = .password
            case "signUp":
                guard !privileged else { return nil }
                let email = body["email"]?.stringValue ?? ""
                self = email.isEmpty ? .anonymous : .signUp
            case "signInWithCustomToken": self = .customToken
            case "signInWithIdp": self = .idp
            case "signInWithPhoneNumber": self = .phone
            case "signInWithEmailLink": self = .emailLink
            default: return nil
            }
        }
    }

    /// Counts at `method * 2 + (failed ? 1 : 0)`.
    private static let counts: InlineArray<16, Atomic<Int>> = InlineArray { _ in Atomic(0) }

    /// Counts one sign-in.
    static func record(_ method: Method, success: Bool) {
        counts[method.rawValue * 2 + (success ? 0 : 1)].add(1, ordering: .relaxed)
    }

    /// Sign-ins so far with `method` that succeeded (or failed).
    static func total(_ method: Method, success: Bool) -> Int {
        counts[method.rawValue * 2 + (success ? 0 : 1)].load(ordering: .relaxed)
    }

    /// Runs `body`, counting a success when it returns and a failure when it throws; `method` nil counts nothing.
    static func counting<T>(_ method: Method?, _ body: () async throws -> T) async throws -> T {
        guard let method else { return try await body() }
        do {
            let answer = try await body()
            record(method, success: true)
            return answer
        } catch {
            record(method, success: false)
            throw error
        }
    }
}
