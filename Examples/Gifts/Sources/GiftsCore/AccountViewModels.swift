import Foundation
import Observation

/// Sign in: email and password.
@MainActor @Observable
public final class SignInViewModel {
    /// The email typed.
    public var email = ""
    /// The password typed.
    public var password = ""
    /// The signed-in uid, once signed in.
    public private(set) var uid: String?
    /// The action's progress.
    public private(set) var state: ActionState = .idle
    private let useCases: UseCases

    /// The screen over `useCases`.
    public init(_ useCases: UseCases) { self.useCases = useCases }

    /// Skips the screen when this device is signed in already.
    public func start() async { uid = await useCases.repositories.session.currentUserID() }

    /// Whether "Sign in" is enabled.
    public var canSubmit: Bool { !email.trimmingCharacters(in: .whitespaces).isEmpty && !password.isEmpty && state != .working }

    /// Signs in.
    public func signIn() async {
        guard state != .working else { return }
        state = .working
        do {
            uid = try await useCases.signIn(email: email, password: password)
            state = .done
        } catch {
            state = .failed(error)
        }
    }

    /// Signs out and clears the password.
    public func signOut() async {
        await useCases.signOut()
        uid = nil
        password = ""
        state = .idle
    }
}

/// Sign up: email, password, first and last name (the name friends find the user by).
@MainActor @Observable
public final class SignUpViewModel {
    /// The email typed.
    public var email = ""
    /// The password typed.
    public var password = ""
    /// The first name typed.
    public var firstName = ""
    /// The last name typed.
    public var lastName = ""
    /// The new account's uid, once created.
    public private(set) var uid: String?
    /// The action's progress.
    public private(set) var state: ActionState = .idle
    private let useCases: UseCases

    /// The screen over `useCases`.
    public init(_ useCases: UseCases) { self.useCases = useCases }

    /// The name others will see.
    public var displayName: String { UserProfile(firstName: firstName, lastName: lastName).displayName }

    /// Creates the account and its profile.
    public func signUp() async {
        guard state != .working else { return }
        state = .working
        do {
            uid = try await useCases.signUp(email: email, password: password, firstName: firstName, lastName: lastName)
            state = .done
        } catch {
            state = .failed(error)
        }
    }
}
