import Foundation
import Observation

/// My reservations: what the user reserved, live, newest first, with each wish's name and owner; cancel one.
@MainActor @Observable
public final class MyReservationsViewModel {
    /// The reservations.
    public private(set) var entries: [ReservationEntry] = []
    /// The live list's progress.
    public private(set) var state: ActionState = .idle
    /// The last cancel's progress.
    public private(set) var actionState: ActionState = .idle
    private let useCases: UseCases
    private var watcher: Task<Void, Never>?

    /// The screen over `useCases`.
    public init(_ useCases: UseCases) { self.useCases = useCases }

    /// Follows the user's reservations until ``stop()``.
    public func start() async {
        guard watcher == nil else { return }
        state = .working
        do {
            let stream = try await useCases.myReservations()
            watcher = follow(
                stream,
                value: { [weak self] in
                    self?.entries = $0
                    self?.state = .done
                },
                failure: { [weak self] in self?.state = .failed($0) })
        } catch {
            state = .failed(error)
        }
    }

    /// Stops following.
    public func stop() {
        watcher?.cancel()
        watcher = nil
    }

    /// Cancels the reservation `entry` stands for.
    public func cancel(_ entry: ReservationEntry) async {
        guard actionState != .working else { return }
        actionState = .working
        do {
            try await useCases.cancelReservation(ownerID: entry.ownerId, wishID: entry.wishId)
            actionState = .done
        } catch {
            actionState = .failed(error)
        }
    }
}

/// Top gifts: gift names ranked by how many wishes hold them, live.
@MainActor @Observable
public final class TopGiftsViewModel {
    /// How many gifts are ranked.
    public let limit: Int
    /// The gifts, most wished first.
    public private(set) var gifts: [TopGift] = []
    /// The live list's progress.
    public private(set) var state: ActionState = .idle
    private let useCases: UseCases
    private var watcher: Task<Void, Never>?

    /// The ranking of the `limit` most wished gifts.
    public init(limit: Int = UseCases.topGiftsLimit, _ useCases: UseCases) {
        self.limit = limit
        self.useCases = useCases
    }

    /// Follows the ranking until ``stop()``.
    public func start() {
        guard watcher == nil else { return }
        state = .working
        watcher = follow(
            useCases.topGifts(limit: limit),
            value: { [weak self] in
                self?.gifts = $0
                self?.state = .done
            },
            failure: { [weak self] in self?.state = .failed($0) })
    }

    /// Stops following.
    public func stop() {
        watcher?.cancel()
        watcher = nil
    }
}
