import AsyncHTTPClient
import Foundation
import HTTPTypes
import HearthCore
import HearthFunctions
import HearthStore
import Logging

/// The couchsurfing app: a reservation opens a chat between guest and host, ratings keep a
/// listing's average, listing photos are indexed when uploaded, and an hourly job switches each
/// listing's heating from the weather outside.
enum Stays {
    struct Reservation: Decodable, Sendable {
        var listingId: String
        var guestId: String
        var hostId: String
    }

    struct Rating: Decodable, Sendable {
        var stars: Int
    }

    static func register(in functions: inout Functions) throws {
        try functions.onValueCreated("/reservations/{id}") { event, context in
            let id = event.params["id"]!
            let reservation = try event.after(as: Reservation.self)
            try await context.database.update(
                "/",
                [
                    "chats/\(id)/listingId": .string(reservation.listingId),
                    "chats/\(id)/members/\(reservation.guestId)": .string("guest"),
                    "chats/\(id)/members/\(reservation.hostId)": .string("host"),
                    "chats/\(id)/createdAt": .timestamp,
                    "userChats/\(reservation.guestId)/\(id)": .bool(true),
                    "userChats/\(reservation.hostId)/\(id)": .bool(true),
                ], idempotencyKey: event.id)
        }

        // Recomputed from all ratings (not incremented), so a retry or a re-rating is always right.
        try functions.onValueWritten("/ratings/{listing}/{user}") { event, context in
            let listing = event.params["listing"]!
            let all = try await context.database.get("/ratings/\(listing)")
            let stars = all.members.compactMap { $0.value["stars"]?.int64 }
            let summary: JSONValue =
                stars.isEmpty
                ? .null
                : .object([
                    JSONMember("count", .int(Int64(stars.count))),
                    JSONMember("average", .double(Double(stars.reduce(0, +)) / Double(stars.count))),
                ])
            try await context.database.set("/listings/\(listing)/rating", summary)
        }

        // `listings/{id}/photos/{file}` in storage → `/listings/{id}/photos/{key}` in the database.
        try functions.onObjectFinalized { event, context in
            guard let (listing, key) = photoLocation(event.name) else { return }
            try await context.database.set(
                "/listings/\(listing)/photos/\(key)",
                .object([
                    JSONMember("path", .string(event.name)), JSONMember("size", .int(event.object.size)),
                    JSONMember("contentType", .string(event.object.contentType ?? "application/octet-stream")),
                ]), idempotencyKey: event.id)
        }
        try functions.onObjectDeleted { event, context in
            guard let (listing, key) = photoLocation(event.name) else { return }
            // Only if the entry still names this object (a replacement upload re-creates it).
            try await context.database.transaction("/listings/\(listing)/photos/\(key)") { current in
                current["path"]?.stringValue == event.name ? .null : nil
            }
        }

        // Every hour (UTC): ask a weather service for each heated listing and switch its heating.
        // WEATHER_URL is a template such as https://weather.example/now?lat={lat}&lng={lng} answering
        // {"temperature": 3.5}; without it the job logs and does nothing.
        try functions.schedule("heating", "0 * * * *") { event, context in
            guard let template = ProcessInfo.processInfo.environment["WEATHER_URL"] else {
                context.logger.notice("WEATHER_URL is not set: heating not updated")
                return
            }
            let listings = try await context.database.get("/listings")
            for listing in listings.members {
                guard let below = listing.value["smartHome"]?["heatingBelow"]?.doubleValue,
                    let lat = listing.value["location"]?["lat"]?.doubleValue, let lng = listing.value["location"]?["lng"]?.doubleValue
                else { continue }
                let url = template.replacingOccurrences(of: "{lat}", with: "\(lat)").replacingOccurrences(of: "{lng}", with: "\(lng)")
                do {
                    let response = try await context.fetch(HTTPClientRequest(url: url), timeout: .seconds(10), maxBytes: 64 * 1024)
                    guard response.status == 200, let temperature = try response.json()["temperature"]?.doubleValue
                    else { throw FunctionsError("weather service answered \(response.status)") }
                    try await context.database.update(
                        "/listings/\(listing.key)/smartHome",
                        ["heating": .bool(temperature < below), "temperature": .double(temperature), "checkedAt": .timestamp])
                } catch {
                    // One listing's failure does not stop the others; the next hour tries again.
                    context.logger.warning("weather lookup failed", metadata: ["listing": "\(listing.key)", "error": "\(error)"])
                }
            }
            context.logger.info("heating updated", metadata: ["scheduled": "\(event.scheduledTime)", "catchUp": "\(event.isCatchUp)"])
        }

        // The smart-home switch polls this (a plain HTTP function; no Firebase SDK on the device).
        try functions.http(.get, "/hooks/listings/{id}/heating") { request, context in
            let id = context.params["id"]!
            let heating = try await context.function.database.get("/listings/\(id)/smartHome/heating")
            guard heating != .null else { return HTTPFunctionResponse(status: .notFound) }
            return .json(.object([JSONMember("heating", heating)]))
        }
    }

    /// `(listing, key)` for `listings/{listing}/photos/{file}`; the key is the file name with
    /// characters a database key cannot hold replaced.
    static func photoLocation(_ name: String) -> (String, String)? {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "listings", parts[2] == "photos", !parts[1].isEmpty, !parts[3].isEmpty else { return nil }
        let forbidden: Set<Character> = [".", "#", "$", "[", "]"]
        let listing = String(parts[1])
        guard !listing.contains(where: forbidden.contains) else { return nil }
        return (listing, String(parts[3].map { forbidden.contains($0) ? "_" : $0 }))
    }
}
