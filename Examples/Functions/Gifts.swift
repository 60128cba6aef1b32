import Foundation
import HearthCore
import HearthFunctions
import HearthMessaging
import HearthWire
import Logging

/// The gift wishlist app (Examples/Gifts): people found by the start of their name, secret exclusive reservations
/// (the owner learns *that* a wish is reserved, never *who*), the reservers' lists, an exact top-gifts ranking, and
/// the app's original REST API served from the same, rules-checked data (Gifts+REST.swift).
///
/// The contract is Examples/Gifts/README.md.
enum Gifts {
    static func register(in functions: inout Functions) throws {
        // The search key is the server's: clients cannot make themselves findable under another name.
        try functions.onValueWritten("/users/{uid}") { event, context in
            let uid = event.params["uid"]!
            try await context.database.atomically { data, writes in
                guard let name = try data.value("users/\(uid)/displayName").stringValue else { return }
                let key = SearchKey.normalize(name)
                if try data.value("users/\(uid)/searchKey").stringValue != key { writes["users/\(uid)/searchKey"] = .string(key) }
            }
            // A new display name reaches the lists of those who reserved this user's wishes.
            guard event.before["displayName"] != event.after["displayName"], let name = event.after["displayName"]?.stringValue,
                case .object(let reserved) = try await context.database.get("/reservations/\(uid)")
            else { return }
            for entry in reserved {
                guard let reserver = entry.value["reserverId"]?.stringValue else { continue }
                try await context.database.atomically { data, writes in
                    let path = "userReservations/\(reserver)/\(uid)_\(entry.key)"
                    if try data.value(path) != .null { writes[path + "/ownerName"] = .string(name) }
                }
            }
        }

        // A reservation made or cancelled: the wish's `reserved` flag and the reserver's list follow the reservation as
        // it is now (read inside the step, so a retried or late event leaves them right).
        try functions.onValueWritten("/reservations/{owner}/{wish}") { event, context in
            let (owner, wish) = (event.params["owner"]!, event.params["wish"]!)
            let reservers = Set([event.before["reserverId"]?.stringValue, event.after["reserverId"]?.stringValue].compactMap { $0 })
            try await context.database.atomically { data, writes in
                let reservation = try data.value("reservations/\(owner)/\(wish)")
                let current = reservation["reserverId"]?.stringValue
                let wishValue = try data.value("wishes/\(owner)/\(wish)")
                if wishValue != .null, wishValue["reserved"] != .bool(current != nil) {
                    writes["wishes/\(owner)/\(wish)/reserved"] = .bool(current != nil)
                }
                for reserver in reservers.union(current.map { [$0] } ?? []) {
                    let path = "userReservations/\(reserver)/\(owner)_\(wish)"
                    if reserver == current, wishValue != .null {
                        let ownerName = try data.value("users/\(owner)/displayName")
                        writes[path] = .object([
                            JSONMember("ownerId", .string(owner)), JSONMember("wishId", .string(wish)),
                            JSONMember("wishName", wishValue["name"] ?? .string("")),
                            JSONMember("ownerName", ownerName == .null ? .string(owner) : ownerName),
                            JSONMember("at", reservation["at"] ?? .int(data.now)),
                        ])
                    } else if try data.value(path) != .null {
                        writes[path] = .null
                    }
                }
            }
        }

        // The owner hears that a wish was reserved, never by whom: the notification names the wish only. Queued once
        // per event, and only while the reservation still stands.
        try functions.onValueCreated("/reservations/{owner}/{wish}", name: "giftsReservedNotice") { event, context in
            guard context.messaging != nil else { return }
            let (owner, wish) = (event.params["owner"]!, event.params["wish"]!)
            _ = try await context.database.atomically(once: event.id) { data, writes in
                guard try data.value("reservations/\(owner)/\(wish)") != .null else { return }
                let name = try data.value("wishes/\(owner)/\(wish)/name").stringValue ?? "a wish"
                var note = PushNotification(
                    title: "A wish was reserved", body: "Someone will give you \"\(String(name.prefix(100)))\".", data: ["wishId": wish],
                    threadID: "reservations")
                note.collapseID = "reserved-\(wish)"
                try writes.send(note, to: .user(owner))
            }
        }

        // A wish received or deleted drops its reservation (whose trigger then clears the list entry); a renamed one
        // renames the entry.
        try functions.onValueWritten("/wishes/{owner}/{wish}") { event, context in
            let (owner, wish) = (event.params["owner"]!, event.params["wish"]!)
            try await context.database.atomically { data, writes in
                let reservation = try data.value("reservations/\(owner)/\(wish)")
                guard let reserver = reservation["reserverId"]?.stringValue else { return }
                let wishValue = try data.value("wishes/\(owner)/\(wish)")
                if wishValue == .null || wishValue["received"] == .bool(true) {
                    writes["reservations/\(owner)/\(wish)"] = .null
                } else if let name = wishValue["name"], try data.value("userReservations/\(reserver)/\(owner)_\(wish)/wishName") != name {
                    if try data.value("userReservations/\(reserver)/\(owner)_\(wish)") != .null {
                        writes["userReservations/\(reserver)/\(owner)_\(wish)/wishName"] = name
                    }
                }
            }
        }

        // How many wishes name each gift: the name normalized, so "Lego  Castle" and "légo castle" are one gift.
        try functions.countBy("/wishes/{owner}/{wish}", into: "/topGifts", name: "giftsTopGifts") { wish in
            guard let name = wish["name"]?.stringValue else { return nil }
            let key = giftKey(name)
            return key.isEmpty ? nil : CountKey(key, label: .string(name))
        }

        try registerREST(in: &functions)
    }

    /// A gift's key in `/topGifts`: its normalized name without the characters a key cannot hold (as the app core
    /// computes it).
    static func giftKey(_ name: String) -> String {
        String(SearchKey.normalize(name).filter { !".#$[]/%".contains($0) }.prefix(200))
    }
}
