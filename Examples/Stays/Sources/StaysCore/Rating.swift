import Foundation

/// `/ratings/{couchId}/{uid}`: a guest's stars for a couch after a stay.
public struct Rating: Codable, Sendable, Hashable, Identifiable {
    /// The guest's uid (the key; not stored in the value).
    public var id: String = ""
    /// 1–5.
    public var stars: Int
    /// Words, up to 1,000 characters; nil when none.
    public var text: String?
    /// When it was written.
    public var at: Date
    /// The stay it rates.
    public var reservationId: String

    enum CodingKeys: String, CodingKey { case stars, text, at, reservationId }

    /// A rating, for previews and tests.
    public init(id: String, stars: Int, text: String? = nil, at: Date, reservationId: String) {
        self.id = id
        self.stars = stars
        self.text = text
        self.at = at
        self.reservationId = reservationId
    }

    /// The stars allowed.
    public static let starRange = 1...5
    /// The longest text, in characters.
    public static let maxTextLength = 1000
}

/// `/ratingSummaries/{couchId}`: how a couch is rated, kept by a trigger.
public struct RatingSummary: Codable, Sendable, Hashable {
    /// How many ratings.
    public var count: Int
    /// Their mean stars (0 when there are none).
    public var average: Double
    /// Stars (1–5) → how many ratings gave them; every star is present.
    public var distribution: [Int: Int]

    enum CodingKeys: String, CodingKey { case count, average, distribution }

    /// No ratings.
    public static let empty = RatingSummary(count: 0, average: 0, distribution: [:])

    /// A summary as stored; missing stars count 0.
    public init(count: Int, average: Double, distribution: [Int: Int]) {
        self.count = count
        self.average = average
        self.distribution = Dictionary(uniqueKeysWithValues: Rating.starRange.map { ($0, distribution[$0] ?? 0) })
    }

    /// The summary of `ratings`, worked out as the trigger does.
    public init(of ratings: [Rating]) {
        var distribution: [Int: Int] = [:]
        for rating in ratings { distribution[rating.stars, default: 0] += 1 }
        let total = ratings.reduce(0) { $0 + $1.stars }
        self.init(count: ratings.count, average: ratings.isEmpty ? 0 : Double(total) / Double(ratings.count), distribution: distribution)
    }

    /// Share of ratings (0–1) that gave `stars`, for the bars.
    public func share(of stars: Int) -> Double { count == 0 ? 0 : Double(distribution[stars] ?? 0) / Double(count) }

    /// Decodes `distribution` as `{"1": n, …, "5": n}`, or as the array the database answers for those integer keys
    /// (`[null, n1, …, n5]`, as Firebase renders an object whose keys are mostly small integers).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let stored: [String: Int]
        if let object = try? c.decodeIfPresent([String: Int].self, forKey: .distribution) {
            stored = object
        } else if let array = try c.decodeIfPresent([Int?].self, forKey: .distribution) {
            stored = Dictionary(uniqueKeysWithValues: array.enumerated().compactMap { index, n in n.map { (String(index), $0) } })
        } else {
            stored = [:]
        }
        self.init(
            count: try c.decode(Int.self, forKey: .count), average: try c.decode(Double.self, forKey: .average),
            distribution: Dictionary(uniqueKeysWithValues: stored.compactMap { key, n in Int(key).map { ($0, n) } }))
    }

    /// Encodes `distribution` as `{"1": n, …, "5": n}`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(count, forKey: .count)
        try c.encode(average, forKey: .average)
        try c.encode(Dictionary(uniqueKeysWithValues: distribution.map { (String($0.key), $0.value) }), forKey: .distribution)
    }
}
