import Foundation

/// What went wrong, in a form a screen can show (every repository and use case throws this).
public enum AppError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nobody is signed in (not even as a trial user).
    case notSignedIn
    /// The server could not be reached.
    case offline
    /// The server's rules refused the read or write.
    case permissionDenied
    /// What was asked for does not exist (a catalogue item, say).
    case notFound
    /// What the user typed cannot be used; the message says why.
    case invalidInput(String)
    /// The shake was not paid, and why.
    case shakeRefused(ShakeRefusal)
    /// The item is sold out.
    case outOfStock
    /// The wallet holds fewer coins than the price.
    case insufficientCoins
    /// The invite could not be redeemed, and why.
    case inviteRefused(InviteRefusal)
    /// The SMS code (or email link) is wrong, used or expired.
    case wrongCode
    /// The phone number, email or Google/Apple account already belongs to another account.
    case credentialInUse
    /// The step needs at least this tier (a full profile makes only a `signed` account `pro`).
    case tierTooLow(required: Tier)
    /// Anything else, with a technical message.
    case failed(String)

    /// What to tell the user.
    public var description: String {
        switch self {
        case .notSignedIn: "Please start the app first."
        case .offline: "You are offline. Try again when you are back online."
        case .permissionDenied: "You are not allowed to do that."
        case .notFound: "This no longer exists."
        case .invalidInput(let message): message
        case .shakeRefused(let refusal): refusal.description
        case .outOfStock: "Sorry, this item is sold out."
        case .insufficientCoins: "You do not have enough coins for this yet."
        case .inviteRefused(let refusal): refusal.description
        case .wrongCode: "The code is wrong or has expired. Ask for a new one."
        case .credentialInUse: "This is already used by another account."
        case .tierTooLow(let tier): tier == .pro ? "Link Google or Apple, or complete your profile, first." : "Verify your phone number first."
        case .failed(let message): "Something went wrong: \(message)"
        }
    }
}

/// Why an invite paid nothing (the `redeemInvite` callable's errors).
public enum InviteRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The link is the user's own.
    case ownInvite
    /// The link does not name a user.
    case invalidInviter
    /// The inviter no longer exists, or never shared a link.
    case unknownInviter
    /// This account has redeemed an invite already (once per invitee).
    case alreadyRedeemed
    /// The account is older than the invite link: invites are for new users.
    case notNew

    /// What to tell the user.
    public var description: String {
        switch self {
        case .ownInvite: "This is your own invite: share it with a friend."
        case .invalidInviter: "This invite link is broken."
        case .unknownInviter: "This invite is no longer valid."
        case .alreadyRedeemed: "You have already used an invite."
        case .notNew: "Invites are for new users only."
        }
    }
}
