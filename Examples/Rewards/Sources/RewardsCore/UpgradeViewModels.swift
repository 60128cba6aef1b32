import Foundation
import Observation

/// Upgrade to signed: phone number, then the texted code and a gender. The trial account keeps its uid and coins.
@MainActor @Observable
public final class UpgradeToSignedViewModel {
    /// Where the user is in the flow.
    public enum Step: Sendable, Equatable {
        /// Typing the phone number.
        case phone
        /// Typing the code texted for this verification (and choosing a gender).
        case code(PhoneVerification)
        /// Finished; the account's tier now.
        case done(Tier)
    }

    /// The number as typed.
    public var phoneNumber = ""
    /// The code as typed.
    public var code = ""
    /// The gender chosen (required).
    public var gender: Profile.Gender?
    /// Where the user is.
    public private(set) var step: Step = .phone
    /// The current step's progress.
    public private(set) var state: ActionState = .idle
    private let useCases: UseCases

    /// The flow over `useCases`.
    public init(_ useCases: UseCases) { self.useCases = useCases }

    /// Whether "Send code" is enabled.
    public var canSendCode: Bool { step == .phone && UseCases.normalizedPhoneNumber(phoneNumber) != nil && state != .working }

    /// Whether "Verify" is enabled.
    public var canVerify: Bool {
        guard case .code = step else { return false }
        return !code.trimmingCharacters(in: .whitespaces).isEmpty && gender != nil && state != .working
    }

    /// Texts the code and moves to ``Step/code(_:)``.
    public func sendCode() async {
        guard state != .working else { return }
        state = .working
        do {
            step = .code(try await useCases.sendPhoneCode(to: phoneNumber))
            code = ""
            state = .idle
        } catch {
            state = .failed(error)
        }
    }

    /// Verifies the code, links the number, saves the gender and refreshes the tier; ends in ``Step/done(_:)``.
    public func verify() async {
        guard case .code(let verification) = step, state != .working else { return }
        guard let gender else {
            state = .failed(.invalidInput("Choose an answer for gender (\"Rather not say\" is one)."))
            return
        }
        state = .working
        do {
            step = .done(try await useCases.completeSignedUpgrade(verification, code: code, gender: gender))
            state = .done
        } catch {
            state = .failed(error)
        }
    }

    /// Back to the number (a typo, or the code never came).
    public func changeNumber() {
        guard state != .working else { return }
        step = .phone
        code = ""
        state = .idle
    }
}

/// Upgrade to pro: the profile form (names and birth date), or linking Google or Apple.
@MainActor @Observable
public final class UpgradeToProViewModel {
    /// What the user typed.
    public var form = ProfileForm()
    /// The account's tier after the upgrade.
    public private(set) var tier: Tier?
    /// The upgrade's progress.
    public private(set) var state: ActionState = .idle
    private let useCases: UseCases

    /// The screen over `useCases`.
    public init(_ useCases: UseCases) { self.useCases = useCases }

    /// What is wrong with the form now, by field.
    public var problems: [ProfileForm.Field: String] { form.problems(now: useCases.now()) }

    /// Whether "Save" is enabled.
    public var canSave: Bool { problems.isEmpty && state != .working }

    /// Fills the form from the saved profile, if any.
    public func load() async {
        guard let uid = await useCases.repositories.session.currentUserID(),
            let profile = try? await useCases.repositories.profiles.profile(of: uid)
        else { return }
        form = ProfileForm(firstName: profile.firstName ?? "", lastName: profile.lastName ?? "", birthDate: profile.birthDate ?? "")
    }

    /// Saves the form and refreshes the tier.
    public func save() async {
        await run { useCases throws(AppError) in try await useCases.upgradeToPro(self.form) }
    }

    /// Links what Google Sign-In or Sign in with Apple gave and refreshes the tier.
    public func link(_ token: IdentityToken) async {
        await run { useCases throws(AppError) in try await useCases.upgradeToPro(linking: token) }
    }

    private func run(_ upgrade: (UseCases) async throws(AppError) -> Tier) async {
        guard state != .working else { return }
        state = .working
        do {
            tier = try await upgrade(useCases)
            state = .done
        } catch {
            state = .failed(error)
        }
    }
}

/// Invite: the user's link to share, and opening a friend's.
@MainActor @Observable
public final class InviteViewModel {
    /// The link to share; nil until loaded.
    public private(set) var shortLink: URL?
    /// Loading the link.
    public private(set) var state: ActionState = .idle
    /// Redeeming an opened invite.
    public private(set) var openState: ActionState = .idle
    /// What the opened invite paid.
    public private(set) var outcome: InviteOutcome?
    /// An invite the account cannot redeem yet (its tier is too low): ``retryPending()`` after upgrading.
    public private(set) var pendingInviter: String?
    private let useCases: UseCases
    private let links: DeepLinks

    /// The screen over `useCases`, reading deep links as `links` does.
    public init(_ useCases: UseCases, links: DeepLinks = DeepLinks()) {
        self.useCases = useCases
        self.links = links
    }

    /// The text a share sheet sends.
    public var shareText: String? { shortLink.map { "Earn coins with me on Rewards: \($0.absoluteString)" } }

    /// Gets the user's invite link.
    public func load() async {
        state = .working
        do {
            shortLink = try await useCases.inviteLink()
            state = .done
        } catch {
            state = .failed(error)
        }
    }

    /// Opens an invite link: its deep link, or the short link that was shared, which the server resolves (any
    /// other URL is refused as a broken invite).
    public func open(_ url: URL) async {
        let route: Route?
        do {
            route = try await useCases.route(opening: url, links: links)
        } catch {
            openState = .failed(error)
            return
        }
        guard case .invite(let inviter)? = route else {
            openState = .failed(.inviteRefused(.invalidInviter))
            return
        }
        await open(inviter: inviter)
    }

    /// Redeems `inviter`'s invite.
    public func open(inviter: String) async {
        guard openState != .working else { return }
        openState = .working
        do {
            outcome = try await useCases.openInvite(inviter: inviter)
            pendingInviter = nil
            openState = .done
        } catch {
            if case .tierTooLow = error { pendingInviter = inviter }
            openState = .failed(error)
        }
    }

    /// Tries the pending invite again (after the upgrade it was waiting for).
    public func retryPending() async {
        guard let inviter = pendingInviter else { return }
        await open(inviter: inviter)
    }
}
