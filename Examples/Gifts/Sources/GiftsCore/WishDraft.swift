import Foundation

/// What the owner types about a wish (everything but its id, creation time and flags), with the rules' limits.
///
/// ```swift
/// let draft = try WishDraft(name: " Kite ", link: "https://example.com/kite", price: 25).validated()
/// ```
public struct WishDraft: Sendable, Hashable {
    /// What the gift is, 1–200 characters.
    public var name: String
    /// More words, up to 2,000 characters; nil or blank for none.
    public var description: String?
    /// An http(s) URL up to 2,000 characters; nil or blank for none.
    public var link: String?
    /// About what it costs, zero or more; nil for unknown.
    public var price: Double?

    /// The longest name, in UTF-16 units (as the rules count).
    public static let maxNameLength = 200
    /// The longest description.
    public static let maxDescriptionLength = 2000
    /// The longest link.
    public static let maxLinkLength = 2000

    /// A draft from its parts.
    public init(name: String, description: String? = nil, link: String? = nil, price: Double? = nil) {
        self.name = name
        self.description = description
        self.link = link
        self.price = price
    }

    /// A draft holding what `wish` says, to edit it.
    public init(_ wish: Wish) { self.init(name: wish.name, description: wish.description, link: wish.link, price: wish.price) }

    /// The draft as it is saved: text trimmed, blank optional text as nil.
    public var normalized: WishDraft {
        func trimmed(_ text: String?) -> String? {
            let text = text?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            return text.isEmpty ? nil : text
        }
        return WishDraft(name: name.trimmingCharacters(in: .whitespacesAndNewlines), description: trimmed(description), link: trimmed(link), price: price)
    }

    /// Why the draft (once normalized) cannot be saved; nil when it can.
    public var problem: String? {
        let draft = normalized
        if draft.name.isEmpty { return "Give the wish a name." }
        if draft.name.utf16.count > Self.maxNameLength { return "A name is at most \(Self.maxNameLength) characters." }
        if let description = draft.description, description.utf16.count > Self.maxDescriptionLength {
            return "A description is at most \(Self.maxDescriptionLength) characters."
        }
        if let link = draft.link {
            if !Self.isWebLink(link) { return "A link starts with http:// or https://." }
            if link.utf16.count > Self.maxLinkLength { return "A link is at most \(Self.maxLinkLength) characters." }
        }
        if let price = draft.price, !(price.isFinite && price >= 0) { return "A price cannot be negative." }
        return nil
    }

    /// The normalized draft, or ``AppError/invalidInput(_:)`` with the ``problem``.
    public func validated() throws(AppError) -> WishDraft {
        if let problem { throw .invalidInput(problem) }
        return normalized
    }

    /// Whether `link` is what the rules accept: `^https?://.+$` (one line).
    public static func isWebLink(_ link: String) -> Bool {
        guard !link.contains(where: \.isNewline) else { return false }
        for scheme in ["http://", "https://"] where link.hasPrefix(scheme) { return link.count > scheme.count }
        return false
    }
}
