import Foundation

/// `/messages/{conversationId}/{messageId}` (and a conversation's `lastMessage`): one chat line.
public struct Message: Codable, Sendable, Hashable, Identifiable {
    /// The message's key (empty for a `lastMessage`).
    public var id: String = ""
    /// The writer's uid.
    public var from: String
    /// 1–2,000 characters.
    public var text: String
    /// When the server stored it.
    public var at: Date

    enum CodingKeys: String, CodingKey { case from, text, at }

    /// A message, for previews and tests.
    public init(id: String, from: String, text: String, at: Date) {
        self.id = id
        self.from = from
        self.text = text
        self.at = at
    }

    /// The longest message, in characters.
    public static let maxLength = 2000

    /// Oldest first: earlier `at`, then the smaller key.
    static func oldestFirst(_ a: Message, _ b: Message) -> Bool { (a.at, a.id) < (b.at, b.id) }
}

/// `/conversations/{conversationId}`: the chat between a guest and a host, opened by a reservation.
public struct Conversation: Codable, Sendable, Hashable, Identifiable {
    /// The conversation's key (not stored in the value).
    public var id: String = ""
    /// The uids of guest and host.
    public var members: Set<String>
    /// The couch reserved.
    public var couchId: String
    /// The reservation that opened it.
    public var reservationId: String
    /// The newest message.
    public var lastMessage: Message?

    enum CodingKeys: String, CodingKey { case members, couchId, reservationId, lastMessage }

    /// A conversation, for previews and tests.
    public init(id: String, members: Set<String>, couchId: String, reservationId: String, lastMessage: Message? = nil) {
        self.id = id
        self.members = members
        self.couchId = couchId
        self.reservationId = reservationId
        self.lastMessage = lastMessage
    }

    /// Decodes `members` as `{uid: true}`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        members = Set(try c.decode([String: Bool].self, forKey: .members).filter(\.value).keys)
        couchId = try c.decode(String.self, forKey: .couchId)
        reservationId = try c.decode(String.self, forKey: .reservationId)
        lastMessage = try c.decodeIfPresent(Message.self, forKey: .lastMessage)
    }

    /// Encodes `members` as `{uid: true}`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Dictionary(uniqueKeysWithValues: members.map { ($0, true) }), forKey: .members)
        try c.encode(couchId, forKey: .couchId)
        try c.encode(reservationId, forKey: .reservationId)
        try c.encodeIfPresent(lastMessage, forKey: .lastMessage)
    }

    /// The member who is not `uid` (the person to show).
    public func other(than uid: String) -> String? { members.subtracting([uid]).sorted().first }

    /// Newest activity first: later `lastMessage.at`, then the greater key.
    static func newestFirst(_ a: Conversation, _ b: Conversation) -> Bool {
        (a.lastMessage?.at ?? .distantPast, a.id) > (b.lastMessage?.at ?? .distantPast, b.id)
    }
}
