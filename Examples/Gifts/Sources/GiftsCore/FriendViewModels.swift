import Foundation
import Observation

/// People search: find friends by the start of their name (case and accents ignored). The screen searches on
/// submit and on each change of the text; an answer to an older text is dropped.
@MainActor @Observable
public final class PeopleSearchViewModel {
    /// The text typed.
    public var query = ""
    /// The people found for the last text searched, in name order.
    public private(set) var results: [Person] = []
    /// The search's progress.
    public private(set) var state: ActionState = .idle
    private let useCases: UseCases
    private var generation = 0

    /// The screen over `useCases`.
    public init(_ useCases: UseCases) { self.useCases = useCases }

    /// Sets the text and searches it (for each change of the field).
    public func update(query: String) async {
        self.query = query
        await search()
    }

    /// Searches ``query``; a blank text clears the results.
    public func search() async {
        generation += 1
        let mine = generation
        let text = query
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            results = []
            state = .idle
            return
        }
        state = .working
        do {
            let found = try await useCases.searchPeople(text)
            guard mine == generation else { return }
            results = found
            state = .done
        } catch {
            guard mine == generation else { return }
            state = .failed(error)
        }
    }
}

/// A friend's wishlist, live: each wish available, reserved by the user (from their own `/userReservations`), by
/// someone else (the app never learns who), or received; reserve and cancel.
@MainActor @Observable
public final class FriendWishlistViewModel {
    /// The friend's uid.
    public let friendID: String
    /// The friend, once loaded (for the title).
    public private(set) var friend: Person?
    /// The friend's wishes, newest first.
    public private(set) var wishes: [Wish] = []
    /// The ids of the friend's wishes the user reserved.
    public private(set) var reservedByMe: Set<String> = []
    /// The live list's progress: ``ActionState/done`` once the wishes and the user's reservations arrived.
    public private(set) var state: ActionState = .idle
    /// The last reserve or cancel's progress.
    public private(set) var actionState: ActionState = .idle
    private let useCases: UseCases
    private var watchers: [Task<Void, Never>] = []
    private var arrived = (wishes: false, reservations: false)

    /// The wishlist of `friendID`.
    public init(friendID: String, _ useCases: UseCases) {
        self.friendID = friendID
        self.useCases = useCases
    }

    /// The wishes with their status, newest first.
    public var items: [FriendWish] { wishes.map { FriendWish(wish: $0, status: FriendWish.status(of: $0, mine: reservedByMe)) } }

    /// Loads the friend and follows their wishes and the user's reservations until ``stop()``.
    public func start() async {
        guard watchers.isEmpty else { return }
        state = .working
        let reservations: AsyncThrowingStream<[ReservationEntry], any Error>
        do {
            reservations = try await useCases.myReservations()
        } catch {
            state = .failed(error)
            return
        }
        let friendID = self.friendID
        let failure: @MainActor (AppError) -> Void = { [weak self] in self?.state = .failed($0) }
        watchers = [
            follow(
                useCases.wishes(of: friendID),
                value: { [weak self] in
                    self?.wishes = $0
                    self?.arrived.wishes = true
                    self?.settle()
                }, failure: failure),
            follow(
                reservations,
                value: { [weak self] entries in
                    self?.reservedByMe = Set(entries.filter { $0.ownerId == friendID }.map(\.wishId))
                    self?.arrived.reservations = true
                    self?.settle()
                }, failure: failure),
        ]
        do {
            friend = try await useCases.person(friendID)
        } catch {
            state = .failed(error)
        }
    }

    private func settle() {
        if arrived.wishes, arrived.reservations, state == .working { state = .done }
    }

    /// Stops following.
    public func stop() {
        for watcher in watchers { watcher.cancel() }
        watchers = []
        arrived = (false, false)
    }

    /// Reserves `wish`; ``AppError/alreadyReserved`` when someone was faster.
    public func reserve(_ wish: Wish) async {
        await act { () async throws(AppError) in try await self.useCases.reserve(wish, of: self.friendID) }
    }

    /// Cancels the user's reservation of `wish`.
    public func cancel(_ wish: Wish) async {
        await act { () async throws(AppError) in try await self.useCases.cancelReservation(ownerID: self.friendID, wishID: wish.id) }
    }

    private func act(_ body: () async throws(AppError) -> Void) async {
        guard actionState != .working else { return }
        actionState = .working
        do {
            try await body()
            actionState = .done
        } catch {
            actionState = .failed(error)
        }
    }
}
