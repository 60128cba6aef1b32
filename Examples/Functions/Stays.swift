import Foundation
import HearthCore
import HearthFunctions
import HearthMessaging
import HearthGeo
import HearthStore
import HearthWire
import Logging

/// The couchsurfing app (Examples/Stays): couches on a map, reservations that hold their nights and open a
/// conversation, ratings with an exact summary, photos indexed when uploaded, and a weather watcher that switches a
/// couch's heating and cooling through openHAB every hour.
///
/// The contract (paths, callables, errors) is Examples/Stays/README.md.
enum Stays {
    /// The longest stay, in nights.
    static let maxNights = 30

    static func register(in functions: inout Functions) throws {
        // GeoFire's layout for the map: `/couchLocations/{id}` follows `/couches/{id}/location`.
        try functions.onValueWritten("/couches/{couchId}") { event, context in
            let id = event.params["couchId"]!
            try await context.database.atomically { data, writes in
                let couch = try data.value("couches/\(id)")
                guard let lat = couch["location"]?["lat"]?.doubleValue, let lng = couch["location"]?["lng"]?.doubleValue,
                    GeoPoint(latitude: lat, longitude: lng).isValid
                else {
                    if try data.value("couchLocations/\(id)") != .null { writes["couchLocations/\(id)"] = .null }
                    return
                }
                let hash = GeoHash.encode(GeoPoint(latitude: lat, longitude: lng))
                let stored = try data.value("couchLocations/\(id)")
                guard stored["g"]?.stringValue != hash || stored["l"] != .array([.double(lat), .double(lng)]) else { return }
                // As every GeoFire client writes it: the geohash is also the entry's priority.
                writes["couchLocations/\(id)"] = .object([
                    JSONMember(".priority", .string(hash)), JSONMember("g", .string(hash)), JSONMember("l", .array([.double(lat), .double(lng)])),
                ])
            }
        }

        try functions.callable("geocode") { (input: JSONValue, request, context) -> JSONValue in
            guard request.auth != nil else { throw CallableError(.unauthenticated, "Sign in to look up addresses") }
            guard let address = input["address"]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines), !address.isEmpty,
                address.count <= 300
            else { throw CallableError(.invalidArgument, "address must be 1–300 characters") }
            guard let geocoder = context.services.geocoder else { throw CallableError(.unavailable, "No geocoder is configured") }
            let place: GeocodedPlace?
            do {
                place = try await geocoder.geocode(address)
            } catch {
                context.logger.warning("geocoding failed: \(error)")
                throw CallableError(.unavailable, "The geocoder is not answering; try again")
            }
            guard let place else { throw CallableError(.notFound, "No place matches \"\(address)\"") }
            var result = [JSONMember("lat", .double(place.latitude)), JSONMember("lng", .double(place.longitude))]
            if let city = place.city { result.append(JSONMember("city", .string(city))) }
            return .object(result)
        }

        // A chat message reaches the other members' devices (the text is the notification's body, cut to 200 characters).
        // The first message, written by `reserve` with the reservation, is announced by the reservation's own push.
        try functions.onValueCreated("/messages/{conversationId}/{messageId}") { event, context in
            guard context.messaging != nil, let from = event.after["from"]?.stringValue, let text = event.after["text"]?.stringValue else { return }
            let conversation = event.params["conversationId"]!
            let messageID = event.params["messageId"]!
            // Queued once per event (a retried event notifies nobody twice).
            _ = try await context.database.atomically(once: event.id) { data, writes in
                let reservation = try data.value("reservations/\(conversation)")
                if reservation["createdAt"] != nil, reservation["createdAt"] == event.after["at"] { return }
                guard case .object(let members) = try data.value("conversations/\(conversation)/members") else { return }
                for member in members where member.key != from && member.value == .bool(true) {
                    var note = PushNotification(
                        title: "New message", body: String(text.prefix(200)), data: ["conversationId": conversation], threadID: conversation,
                        category: "MESSAGE")
                    note.collapseID = "message-\(messageID)"
                    try writes.send(note, to: .user(member.key))
                }
            }
        }

        try registerPhotos(in: &functions)
        try registerReservations(in: &functions)
        try registerRatings(in: &functions)
        try registerSmartHome(in: &functions)
    }

    static func signedIn(_ request: CallableRequest) throws -> String {
        guard let uid = request.auth?.uid else { throw CallableError(.unauthenticated, "Sign in first") }
        return uid
    }

    /// `text` as one database key, else `invalid-argument` naming `field`.
    static func key(_ text: String?, _ field: String) throws -> String {
        guard let text, !text.isEmpty, text.utf8.count <= 128, (try? Key.validated(text)) != nil else {
            throw CallableError(.invalidArgument, "\(field) must be an id of 1–128 bytes without . $ # [ ] / or control characters")
        }
        return text
    }

    static func refused(_ code: CallableError.Code, _ message: String, reason: String, _ more: [JSONMember] = []) -> CallableError {
        CallableError(code, message, details: .object([JSONMember("reason", .string(reason))] + more))
    }

    // MARK: Photos

    /// `couches/{couchId}/{photoId}.jpg` in storage → `/couches/{couchId}/photos/{photoId}` `{path, url}`.
    static func registerPhotos(in functions: inout Functions) throws {
        try functions.onObjectFinalized(name: "staysPhotoUploaded") { event, context in
            guard let (couch, photo) = photoLocation(event.name) else { return }
            guard let url = context.storage?.downloadURL(for: event.object) else {
                context.logger.warning("a couch photo without a download token was not indexed", metadata: ["object": "\(event.name)"])
                return
            }
            let uploader = event.object.metadata["uploader"]
            // Indexed only when its uploader (checked by the storage rules) hosts the couch, and while the couch exists.
            let indexed = try await context.database.atomically { data, writes in
                guard let host = try data.value("couches/\(couch)/hostId").stringValue, host == uploader else { return false }
                writes["couches/\(couch)/photos/\(photo)"] = .object([JSONMember("path", .string(event.name)), JSONMember("url", .string(url))])
                return true
            }
            if !indexed {
                _ = try await context.storage?.delete(event.name, bucket: event.bucket)
                context.logger.notice("a photo not uploaded by the couch's host was deleted", metadata: ["object": "\(event.name)"])
            }
        }
        try functions.onObjectDeleted(name: "staysPhotoDeleted") { event, context in
            guard let (couch, photo) = photoLocation(event.name) else { return }
            try await context.database.atomically { data, writes in
                if try data.value("couches/\(couch)/photos/\(photo)/path").stringValue == event.name {
                    writes["couches/\(couch)/photos/\(photo)"] = .null
                }
            }
        }
    }

    /// `(couchId, photoId)` for `couches/{couchId}/{photoId}.jpg`.
    static func photoLocation(_ name: String) -> (String, String)? {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "couches", parts[2].hasSuffix(".jpg") else { return nil }
        let couch = String(parts[1])
        let photo = String(parts[2].dropLast(4))
        guard (try? Key.validated(couch)) != nil, (try? Key.validated(photo)) != nil else { return nil }
        return (couch, photo)
    }

    // MARK: Ratings

    /// `/ratingSummaries/{couchId}` recomputed from every rating of the couch inside one atomic step: whichever run
    /// comes last sees every rating, so the summary is exact however many guests rate at once.
    static func registerRatings(in functions: inout Functions) throws {
        try functions.onValueWritten("/ratings/{couchId}/{uid}") { event, context in
            let couch = event.params["couchId"]!
            let reservation = event.after["reservationId"]?.stringValue
            try await context.database.atomically { data, writes in
                // The reservation rated: the rules refuse a second rating for it.
                if let reservation, (try? Key.validated(reservation)) != nil, try data.value("reservations/\(reservation)/couchId") != .null,
                    try data.value("reservations/\(reservation)/ratedAt") == .null
                {
                    writes["reservations/\(reservation)/ratedAt"] = .int(data.now)
                }
                var distribution = [Int64](repeating: 0, count: 5)
                if case .object(let ratings) = try data.value("ratings/\(couch)") {
                    for rating in ratings {
                        if let stars = rating.value["stars"]?.int64, (1...5).contains(stars) { distribution[Int(stars) - 1] += 1 }
                    }
                }
                let count = distribution.reduce(0, +)
                guard count > 0 else {
                    writes["ratingSummaries/\(couch)"] = .null
                    return
                }
                let total = distribution.enumerated().reduce(Int64(0)) { $0 + Int64($1.offset + 1) * $1.element }
                let average = (Double(total) / Double(count) * 100).rounded() / 100
                writes["ratingSummaries/\(couch)"] = .object([
                    JSONMember("count", .int(count)), JSONMember("average", .double(average)),
                    JSONMember("distribution", .object((1...5).map { JSONMember("\($0)", .int(distribution[$0 - 1])) })),
                ])
            }
        }
    }
}
