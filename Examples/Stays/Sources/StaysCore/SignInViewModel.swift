import Foundation
import Observation

/// Sign in: email and password, or a new account.
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

    /// Signs in.
    public func signIn() async { await run { () async throws(AppError) -> String in try await self.useCases.signIn(email: self.email, password: self.password) } }

    /// Creates an account.
    public func signUp() async { await run { () async throws(AppError) -> String in try await self.useCases.signUp(email: self.email, password: self.password) } }

    private func run(_ body: () async throws(AppError) -> String) async {
        guard state != .working else { return }
        state = .working
        do {
            uid = try await body()
            state = .done
        } catch {
            state = .failed(error)
        }
    }
}
