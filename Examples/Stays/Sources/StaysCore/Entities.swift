import Foundation
import HearthGeo

/// `{lat, lng}`, how the database and the `geocode` callable write a position.
struct LatLng: Codable, Sendable, Hashable {
    var lat: Double
    var lng: Double

    init(_ point: GeoPoint) {
        lat = point.latitude
        lng = point.longitude
    }

    var point: GeoPoint { GeoPoint(latitude: lat, longitude: lng) }
}

/// An address the `geocode` callable found: where it is on the map, and its city (couches are searched by city).
public struct Place: Codable, Sendable, Hashable {
    /// The address as typed.
    public var address: String
    /// The city it is in, as the geocoder names it.
    public var city: String
    /// Where it is.
    public var location: GeoPoint

    /// A place, for previews and tests; apps get them from a ``GeocodingService``.
    public init(address: String, city: String, location: GeoPoint) {
        self.address = address
        self.city = city
        self.location = location
    }
}

/// One photo of a couch: `/couches/{couchId}/photos/{photoId}`, filled by the storage trigger once the upload is in.
public struct CouchPhoto: Codable, Sendable, Hashable, Identifiable {
    /// The photo's key (the storage object is `couches/{couchId}/{id}.jpg`).
    public var id: String = ""
    /// The storage path.
    public var path: String
    /// The download URL.
    public var url: String

    enum CodingKeys: String, CodingKey { case path, url }

    /// A photo, for previews and tests.
    public init(id: String, path: String, url: String) {
        self.id = id
        self.path = path
        self.url = url
    }
}

/// What a host types about a couch (everything but its id, host, photos and creation time).
public struct CouchDraft: Sendable, Hashable {
    /// A short title, 1–100 characters.
    public var title: String
    /// More words, up to 5,000 characters (may be empty).
    public var description: String
    /// The geocoded address: its text, city and position.
    public var place: Place
    /// How many guests can sleep there, 1–50.
    public var capacity: Int

    /// A draft of a couch.
    public init(title: String, description: String, place: Place, capacity: Int) {
        self.title = title
        self.description = description
        self.place = place
        self.capacity = capacity
    }
}

/// `/couches/{couchId}`: a couch a host offers.
public struct Couch: Codable, Sendable, Hashable, Identifiable {
    /// The couch's key (not stored in the value).
    public var id: String = ""
    /// Its host's uid.
    public var hostId: String
    /// A short title.
    public var title: String
    /// More words (empty when none).
    public var description: String
    /// The street address.
    public var address: String
    /// The city (what city searches match).
    public var city: String
    /// Where it is on the map.
    public var location: GeoPoint
    /// How many guests it sleeps.
    public var capacity: Int
    /// Its photos, in key order (upload order for push ids).
    public var photos: [CouchPhoto]
    /// When the host listed it.
    public var createdAt: Date

    enum CodingKeys: String, CodingKey { case hostId, title, description, address, city, location, capacity, photos, createdAt }

    /// A couch, for previews and tests; apps read them from a ``CouchRepository``.
    public init(
        id: String, hostId: String, title: String, description: String = "", address: String, city: String, location: GeoPoint, capacity: Int,
        photos: [CouchPhoto] = [], createdAt: Date
    ) {
        self.id = id
        self.hostId = hostId
        self.title = title
        self.description = description
        self.address = address
        self.city = city
        self.location = location
        self.capacity = capacity
        self.photos = photos
        self.createdAt = createdAt
    }

    /// Decodes the database's layout: `location` as `{lat, lng}`, `photos` as `{photoId: {path, url}}`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        hostId = try c.decode(String.self, forKey: .hostId)
        title = try c.decode(String.self, forKey: .title)
        description = try c.decodeIfPresent(String.self, forKey: .description) ?? ""
        address = try c.decode(String.self, forKey: .address)
        city = try c.decode(String.self, forKey: .city)
        location = try c.decode(LatLng.self, forKey: .location).point
        capacity = try c.decode(Int.self, forKey: .capacity)
        let photos = try c.decodeIfPresent([String: CouchPhoto].self, forKey: .photos) ?? [:]
        self.photos = photos.map { key, photo in
            var photo = photo
            photo.id = key
            return photo
        }.sorted { $0.id < $1.id }
        createdAt = try c.decode(Date.self, forKey: .createdAt)
    }

    /// Encodes the database's layout (see ``init(from:)``).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(hostId, forKey: .hostId)
        try c.encode(title, forKey: .title)
        try c.encode(description, forKey: .description)
        try c.encode(address, forKey: .address)
        try c.encode(city, forKey: .city)
        try c.encode(LatLng(location), forKey: .location)
        try c.encode(capacity, forKey: .capacity)
        if !photos.isEmpty { try c.encode(Dictionary(uniqueKeysWithValues: photos.map { ($0.id, $0) }), forKey: .photos) }
        try c.encode(createdAt, forKey: .createdAt)
    }

    /// The draft this couch was saved from (to edit it).
    public var draft: CouchDraft {
        CouchDraft(title: title, description: description, place: Place(address: address, city: city, location: location), capacity: capacity)
    }
}

/// A couch found around a point, and how far from it.
public struct NearbyCouch: Sendable, Hashable, Identifiable {
    /// The couch.
    public var couch: Couch
    /// Meters from the search's center.
    public var distance: Double

    /// The couch's id.
    public var id: String { couch.id }

    /// A result, for previews and tests.
    public init(couch: Couch, distance: Double) {
        self.couch = couch
        self.distance = distance
    }
}

/// `/reservations/{reservationId}`: a guest's stay on a couch, made by the `reserve` callable.
public struct Reservation: Codable, Sendable, Hashable, Identifiable {
    /// Whether the stay still holds.
    public enum Status: String, Codable, Sendable, Hashable, CaseIterable {
        /// Booked: its nights are held.
        case confirmed
        /// Cancelled by the guest or the host: its nights are free again.
        case cancelled
    }

    /// The reservation's key (not stored in the value).
    public var id: String = ""
    /// The couch.
    public var couchId: String
    /// Who stays.
    public var guestId: String
    /// Whose couch it is.
    public var hostId: String
    /// The first night.
    public var from: Day
    /// The check-out day (not a night of the stay).
    public var to: Day
    /// How many people stay.
    public var guests: Int
    /// Confirmed or cancelled.
    public var status: Status
    /// When it was made.
    public var createdAt: Date
    /// Midnight UTC of `to`: the stay is over from then on, and the guest may rate it.
    public var endsAt: Date
    /// When the guest's rating of it was counted (set by the summary trigger); nil before.
    public var ratedAt: Date?

    enum CodingKeys: String, CodingKey { case couchId, guestId, hostId, from, to, guests, status, createdAt, endsAt, ratedAt }

    /// A reservation, for previews and tests; apps read them from a ``ReservationService``.
    public init(
        id: String, couchId: String, guestId: String, hostId: String, from: Day, to: Day, guests: Int, status: Status = .confirmed,
        createdAt: Date, ratedAt: Date? = nil
    ) {
        self.id = id
        self.couchId = couchId
        self.guestId = guestId
        self.hostId = hostId
        self.from = from
        self.to = to
        self.guests = guests
        self.status = status
        self.createdAt = createdAt
        self.endsAt = to.start
        self.ratedAt = ratedAt
    }

    /// The nights it covers.
    public var stay: DayRange { DayRange(from: from, to: to) }

    /// Whether the stay is over at `now` (from midnight UTC of the check-out day).
    public func hasEnded(at now: Date) -> Bool { endsAt <= now }
}

/// What `reserve` answered: the new reservation and the conversation it opened.
public struct ReservationOutcome: Codable, Sendable, Hashable {
    /// The key of `/reservations/{reservationId}`.
    public var reservationId: String
    /// The key of `/conversations/{conversationId}` between guest and host.
    public var conversationId: String

    /// An outcome, for previews and tests.
    public init(reservationId: String, conversationId: String) {
        self.reservationId = reservationId
        self.conversationId = conversationId
    }
}
