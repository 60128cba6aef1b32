import Foundation
import Observation

/// Where a view model stands with one of its actions. (Not `Progress`: that name is Foundation's.)
public enum ActionState: Sendable, Equatable {
    /// Nothing asked yet.
    case idle
    /// Waiting for the answer.
    case working
    /// It failed; show the error.
    case failed(AppError)
    /// It succeeded.
    case done
}

/// Onboarding: the app's first screen, which starts the anonymous trial (coins can be earned at once).
@MainActor @Observable
public final class OnboardingViewModel {
    /// What to show.
    public enum Stage: Sendable, Equatable {
        /// Looking for an account on this device.
        case checking
        /// No account yet: the welcome with its "Start" button.
        case welcome
        /// An account is there: go to the home screen.
        case ready(uid: String)
    }

    /// What to show.
    public private(set) var stage: Stage = .checking
    /// The trial start's progress.
    public private(set) var state: ActionState = .idle
    private let useCases: UseCases

    /// The screen over `useCases`.
    public init(_ useCases: UseCases) { self.useCases = useCases }

    /// Skips the welcome when this device has an account already.
    public func start() async {
        stage = await useCases.repositories.session.currentUserID().map { .ready(uid: $0) } ?? .welcome
    }

    /// "Start": signs in anonymously.
    public func startTrial() async {
        guard state != .working else { return }
        state = .working
        do {
            stage = .ready(uid: try await useCases.startTrial())
            state = .done
        } catch {
            state = .failed(error)
        }
    }
}

/// Home: the pages of cards and the campaigns of the current context, with a context switcher.
@MainActor @Observable
public final class HomeViewModel {
    /// The context shown.
    public private(set) var context: Context
    /// Its pages, only with cards this version can show.
    public private(set) var pages: [Page] = []
    /// Its campaigns, soonest ending first.
    public private(set) var campaigns: [Campaign] = []
    /// The load's progress.
    public private(set) var state: ActionState = .idle
    private let useCases: UseCases

    /// The home of `context` over `useCases`.
    public init(_ useCases: UseCases, context: Context = .tv) {
        self.useCases = useCases
        self.context = context
    }

    /// Loads the current context's pages and campaigns.
    public func load() async {
        let context = self.context
        state = .working
        do {
            let pages = try await useCases.homePages(for: context)
            let campaigns = try await useCases.campaigns(in: context)
            // A switch while this loaded: its own load shows the newer context.
            guard context == self.context else { return }
            self.pages = pages
            self.campaigns = campaigns
            state = .done
        } catch {
            guard context == self.context else { return }
            state = .failed(error)
        }
    }

    /// Switches to `context` (clearing the old one's cards at once) and loads it.
    public func select(_ context: Context) async {
        guard context != self.context || state != .done else { return }
        self.context = context
        pages = []
        campaigns = []
        await load()
    }
}

/// Shake: one campaign's shake button (or accelerometer), with the server's verdict.
@MainActor @Observable
public final class ShakeViewModel {
    /// The screen's state.
    public enum State: Sendable, Equatable {
        /// Ready for a shake.
        case idle
        /// The server is checking the shake.
        case checking
        /// Paid: `amount` coins, `balance` now.
        case awarded(amount: Int, balance: Int)
        /// Not paid, and why.
        case refused(ShakeRefusal)
        /// The shake did not reach a verdict (offline, signed out, …).
        case failed(AppError)
    }

    /// The campaign shaken for.
    public let campaign: Campaign
    /// The screen's state.
    public private(set) var state: State = .idle
    private let useCases: UseCases

    /// The shake screen of `campaign`.
    public init(campaign: Campaign, _ useCases: UseCases) {
        self.campaign = campaign
        self.useCases = useCases
    }

    /// Whether a shake now would be sent (one at a time: an accelerometer reports a shake many times).
    public var canShake: Bool { state != .checking }

    /// Sends a shake with `proof`; ignored while the previous one is being checked.
    public func shake(_ proof: ShakeProof) async {
        guard canShake else { return }
        state = .checking
        do {
            let outcome = try await useCases.shake(campaign, proof: proof)
            state = .awarded(amount: outcome.awarded, balance: outcome.balance)
        } catch {
            if case .shakeRefused(let refusal) = error {
                state = .refused(refusal)
            } else {
                state = .failed(error)
            }
        }
    }

    /// Back to ``State/idle`` (after the verdict was shown).
    public func reset() {
        if state != .checking { state = .idle }
    }
}

/// Wallet: the balance, live, and the newest movements.
@MainActor @Observable
public final class WalletViewModel {
    /// Coins now; nil before the first load.
    public private(set) var balance: Int?
    /// The newest ledger entries, newest first.
    public private(set) var ledger: [LedgerEntry] = []
    /// The load's progress.
    public private(set) var state: ActionState = .idle
    private let useCases: UseCases
    private var watcher: Task<Void, Never>?

    /// The wallet screen over `useCases`.
    public init(_ useCases: UseCases) { self.useCases = useCases }

    /// Loads the statement, then follows the wallet: each change of the balance reloads the ledger, until ``stop()``.
    public func start() async {
        guard watcher == nil else { return }
        await refresh()
        guard let uid = await useCases.repositories.session.currentUserID() else { return }
        let stream = useCases.repositories.wallets.walletUpdates(of: uid)
        watcher = Task { [weak self] in
            do {
                for try await wallet in stream {
                    guard let self else { return }
                    if wallet.coins != self.balance { await self.refresh() }
                }
            } catch {
                self?.state = .failed(ErrorMapping.app(error))
            }
        }
    }

    /// Stops following the wallet.
    public func stop() {
        watcher?.cancel()
        watcher = nil
    }

    /// Loads the balance and the ledger again.
    public func refresh() async {
        state = .working
        do {
            let statement = try await useCases.statement()
            balance = statement.wallet.coins
            ledger = statement.ledger
            state = .done
        } catch {
            state = .failed(error)
        }
    }
}

/// Catalogue: the items, the balance, and buying one.
@MainActor @Observable
public final class CatalogueViewModel {
    /// Every item, cheapest first.
    public private(set) var items: [CatalogItem] = []
    /// Coins now; nil before the first load.
    public private(set) var balance: Int?
    /// The load's progress.
    public private(set) var state: ActionState = .idle
    /// The item being bought, if any (one at a time).
    public private(set) var redeeming: String?
    /// The last purchase's progress.
    public private(set) var redeemState: ActionState = .idle
    /// The last purchase that went through.
    public private(set) var lastRedemption: RedeemOutcome?
    private let useCases: UseCases

    /// The catalogue screen over `useCases`.
    public init(_ useCases: UseCases) { self.useCases = useCases }

    /// Loads the items and the balance.
    public func load() async {
        state = .working
        do {
            items = try await useCases.repositories.catalog.items()
            balance = try await useCases.statement().wallet.coins
            state = .done
        } catch {
            state = .failed(error)
        }
    }

    /// Whether `item`'s buy button is enabled: in stock, affordable, and no other purchase running.
    public func canRedeem(_ item: CatalogItem) -> Bool { redeeming == nil && item.stock > 0 && (balance ?? 0) >= item.price }

    /// Buys `item`; then the stock and the balance are read again (a refusal may mean they changed).
    public func redeem(_ item: CatalogItem) async {
        guard redeeming == nil else { return }
        redeeming = item.id
        redeemState = .working
        do {
            lastRedemption = try await useCases.redeem(item)
            redeemState = .done
        } catch {
            redeemState = .failed(error)
        }
        redeeming = nil
        if let items = try? await useCases.repositories.catalog.items() { self.items = items }
        if let statement = try? await useCases.statement() { balance = statement.wallet.coins }
    }
}
