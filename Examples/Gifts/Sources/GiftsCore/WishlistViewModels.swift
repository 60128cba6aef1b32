import Foundation
import Observation

/// My wishlist: the user's wishes, live, newest first; swipe to delete one or to confirm it was received.
@MainActor @Observable
public final class MyWishlistViewModel {
    /// The wishes.
    public private(set) var wishes: [Wish] = []
    /// The live list's progress: ``ActionState/done`` once it arrived, ``ActionState/failed(_:)`` when it broke.
    public private(set) var state: ActionState = .idle
    /// The last swipe action's progress.
    public private(set) var actionState: ActionState = .idle
    private let useCases: UseCases
    private var watcher: Task<Void, Never>?

    /// The screen over `useCases`.
    public init(_ useCases: UseCases) { self.useCases = useCases }

    /// Follows the user's wishes until ``stop()``.
    public func start() async {
        guard watcher == nil else { return }
        state = .working
        do {
            let stream = try await useCases.myWishes()
            watcher = follow(
                stream,
                value: { [weak self] in
                    self?.wishes = $0
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

    /// The wishes not received yet.
    public var open: [Wish] { wishes.filter { !$0.received } }

    /// The wishes received.
    public var received: [Wish] { wishes.filter(\.received) }

    /// Swipe: deletes `wish`.
    public func delete(_ wish: Wish) async { await act { () async throws(AppError) in try await self.useCases.deleteWish(wish.id) } }

    /// Swipe: confirms `wish` was received.
    public func markReceived(_ wish: Wish) async {
        await act { () async throws(AppError) in try await self.useCases.markReceived(wish.id) }
    }

    private func act(_ body: () async throws(AppError) -> Void) async {
        actionState = .working
        do {
            try await body()
            actionState = .done
        } catch {
            actionState = .failed(error)
        }
    }
}

/// The wish editor: a new wish, or one of the user's to edit; the draft is checked as it is typed.
@MainActor @Observable
public final class WishEditorViewModel {
    /// The wish edited; nil for a new one.
    public let editing: Wish?
    /// The name typed.
    public var name: String
    /// The description typed (blank: none).
    public var descriptionText: String
    /// The link typed (blank: none).
    public var link: String
    /// The price typed (blank: none; `12.50` or `12,50`).
    public var priceText: String
    /// The save's progress.
    public private(set) var state: ActionState = .idle
    /// The saved wish's id, once saved.
    public private(set) var savedWishID: String?
    private let useCases: UseCases

    /// The editor of `wish`, or of a new wish when nil.
    public init(editing wish: Wish? = nil, _ useCases: UseCases) {
        self.editing = wish
        self.useCases = useCases
        name = wish?.name ?? ""
        descriptionText = wish?.description ?? ""
        link = wish?.link ?? ""
        priceText = wish?.price.map(Self.format) ?? ""
    }

    /// A price as the field shows it: no decimals when whole.
    static func format(_ price: Double) -> String {
        price == price.rounded() && abs(price) < 1e15 ? String(Int64(price)) : String(price)
    }

    /// The price typed: nil when blank, or `.failure` text when it is not a number.
    private var price: Result<Double?, AppError> {
        let text = priceText.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: ",", with: ".")
        if text.isEmpty { return .success(nil) }
        guard let value = Double(text), value.isFinite else { return .failure(.invalidInput("Enter the price as a number.")) }
        return .success(value)
    }

    /// What would be saved, or why nothing can be.
    public var draft: Result<WishDraft, AppError> {
        switch price {
        case .failure(let error): return .failure(error)
        case .success(let price):
            let draft = WishDraft(name: name, description: descriptionText, link: link, price: price)
            if let problem = draft.problem { return .failure(.invalidInput(problem)) }
            return .success(draft.normalized)
        }
    }

    /// Why the wish cannot be saved; nil when it can.
    public var problem: String? {
        if case .failure(let error) = draft { return error.description }
        return nil
    }

    /// Whether "Save" is enabled.
    public var canSave: Bool { problem == nil && state != .working }

    /// Saves the wish: creates it, or replaces the edited one's fields.
    public func save() async {
        guard state != .working else { return }
        let draft: WishDraft
        switch self.draft {
        case .failure(let error):
            state = .failed(error)
            return
        case .success(let value): draft = value
        }
        state = .working
        do {
            if let editing {
                try await useCases.updateWish(editing.id, with: draft)
                savedWishID = editing.id
            } else {
                savedWishID = try await useCases.createWish(draft)
            }
            state = .done
        } catch {
            state = .failed(error)
        }
    }
}
