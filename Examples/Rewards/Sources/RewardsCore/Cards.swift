import Foundation
import HearthCore

/// One card of a page (`/pages/{context}`); its `type` decides its fields.
///
/// Decoding never fails: a card of a type this version does not know (added to the server later), or of a known type
/// whose fields do not fit, becomes ``unsupported(type:)``, which the screens skip. One odd card must not blank a page.
///
/// ```swift
/// let card = try JSONDecoder().decode(Card.self, from: Data(#"{"type": "text", "text": "Shake!", "style": "title"}"#.utf8))
/// // .text("Shake!", style: .title)
/// ```
public enum Card: Sendable, Hashable, Codable {
    /// How a text card is set.
    public enum TextStyle: String, Codable, Sendable, Hashable, CaseIterable {
        /// Large, bold.
        case title
        /// Running text (the default).
        case body
        /// Small print.
        case caption
    }

    /// `{"type": "text", "text", "style"?}`; a style this version does not know reads as nil (body).
    case text(String, style: TextStyle?)
    /// `{"type": "image", "url", "aspectRatio"?}` (width / height).
    case image(url: String, aspectRatio: Double?)
    /// `{"type": "row", "icon", "title", "subtitle"}`.
    case row(icon: String, title: String, subtitle: String)
    /// `{"type": "animation", "name", "loop"?}`.
    case animation(name: String, loop: Bool?)
    /// `{"type": "footer", "text", "link"?}`.
    case footer(text: String, link: String?)
    /// A card this version cannot show: an unknown `type` ("" when it has none), or fields that do not fit it.
    case unsupported(type: String)

    enum Keys: String, CodingKey {
        case type, text, style, url, aspectRatio, icon, title, subtitle, name, loop, link
    }

    /// The card's `type` as stored.
    public var type: String {
        switch self {
        case .text: "text"
        case .image: "image"
        case .row: "row"
        case .animation: "animation"
        case .footer: "footer"
        case .unsupported(let type): type
        }
    }

    /// Whether this version can show the card.
    public var isSupported: Bool {
        if case .unsupported = self { return false }
        return true
    }

    /// Reads a card; never throws (see ``Card``).
    public init(from decoder: any Decoder) {
        guard let c = try? decoder.container(keyedBy: Keys.self), let type = try? c.decode(String.self, forKey: .type) else {
            self = .unsupported(type: "")
            return
        }
        do {
            switch type {
            case "text":
                let style = (try? c.decodeIfPresent(String.self, forKey: .style)).flatMap(TextStyle.init(rawValue:))
                self = .text(try c.decode(String.self, forKey: .text), style: style)
            case "image":
                self = .image(url: try c.decode(String.self, forKey: .url), aspectRatio: try c.decodeIfPresent(Double.self, forKey: .aspectRatio))
            case "row":
                self = .row(
                    icon: try c.decode(String.self, forKey: .icon), title: try c.decode(String.self, forKey: .title),
                    subtitle: try c.decode(String.self, forKey: .subtitle))
            case "animation":
                self = .animation(name: try c.decode(String.self, forKey: .name), loop: try c.decodeIfPresent(Bool.self, forKey: .loop))
            case "footer":
                self = .footer(text: try c.decode(String.self, forKey: .text), link: try c.decodeIfPresent(String.self, forKey: .link))
            default:
                self = .unsupported(type: type)
            }
        } catch {
            self = .unsupported(type: type)
        }
    }

    /// Writes the card in the shape above (an unsupported card as its bare `type`).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(type, forKey: .type)
        switch self {
        case .text(let text, let style):
            try c.encode(text, forKey: .text)
            try c.encodeIfPresent(style, forKey: .style)
        case .image(let url, let aspectRatio):
            try c.encode(url, forKey: .url)
            try c.encodeIfPresent(aspectRatio, forKey: .aspectRatio)
        case .row(let icon, let title, let subtitle):
            try c.encode(icon, forKey: .icon)
            try c.encode(title, forKey: .title)
            try c.encode(subtitle, forKey: .subtitle)
        case .animation(let name, let loop):
            try c.encode(name, forKey: .name)
            try c.encodeIfPresent(loop, forKey: .loop)
        case .footer(let text, let link):
            try c.encode(text, forKey: .text)
            try c.encodeIfPresent(link, forKey: .link)
        case .unsupported:
            break
        }
    }
}

/// One page of a context's home: its cards in order (a JSON array).
///
/// The database keeps arrays as objects with integer keys and gives them back as arrays only while they are dense,
/// so a page (and a list of pages) also decodes from `{"0": …, "2": …}` (in key order), and `null` entries are
/// skipped.
public struct Page: Sendable, Hashable, Codable {
    /// The cards, in order, supported or not.
    public var cards: [Card]

    /// A page of `cards`.
    public init(cards: [Card]) { self.cards = cards }

    /// The cards this version can show, in order.
    public var supportedCards: [Card] { cards.filter(\.isSupported) }

    /// Reads an array of cards (or an object with integer keys).
    public init(from decoder: any Decoder) throws {
        cards = try OrderedList<Card>(from: decoder).items
    }

    /// Writes the cards as an array.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(cards)
    }
}

/// An ordered list as the database returns it: an array (nulls skipped), or an object whose keys are taken in the
/// database's key order (integer keys numerically).
struct OrderedList<Element: Decodable>: Decodable {
    var items: [Element]

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { self.stringValue = String(intValue) }
    }

    init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var items: [Element] = []
            while !array.isAtEnd {
                if try array.decodeNil() { continue }
                items.append(try array.decode(Element.self))
            }
            self.items = items
            return
        }
        let object = try decoder.container(keyedBy: AnyKey.self)
        let keys = object.allKeys.sorted { Key($0.stringValue) < Key($1.stringValue) }
        var items: [Element] = []
        for key in keys where !(try object.decodeNil(forKey: key)) {
            items.append(try object.decode(Element.self, forKey: key))
        }
        self.items = items
    }
}
