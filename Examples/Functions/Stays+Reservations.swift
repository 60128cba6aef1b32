import Foundation
import HearthCore
import HearthFunctions
import HearthMessaging
import HearthWire

extension Stays {
    /// A UTC calendar day, `YYYY-MM-DD`.
    struct Day: Comparable, Hashable, Sendable, CustomStringConvertible {
        /// Days since 1970-01-01.
        var number: Int64

        static let calendar: Calendar = {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            return calendar
        }()

        init(number: Int64) { self.number = number }

        /// Nil unless `text` is a real date `YYYY-MM-DD` between 2000 and 2999.
        init?(_ text: String) {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard text.utf8.count == 10, parts.count == 3, parts.map(\.count) == [4, 2, 2], let y = Int(parts[0]), let m = Int(parts[1]),
                let d = Int(parts[2]), (2000...2999).contains(y)
            else { return nil }
            let components = DateComponents(year: y, month: m, day: d)
            guard let date = Self.calendar.date(from: components),
                Self.calendar.dateComponents([.year, .month, .day], from: date) == components
            else { return nil }
            number = Int64((date.timeIntervalSince1970 / 86_400).rounded(.down))
        }

        static func today(_ millis: Int64) -> Day { Day(number: millis / 86_400_000) }

        var description: String {
            let c = Self.calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(number) * 86_400))
            return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
        }

        var millis: Int64 { number * 86_400_000 }

        static func < (a: Day, b: Day) -> Bool { a.number < b.number }
    }

    struct ReserveInput: Decodable, Sendable {
        var couchId: String
        var from: String
        var to: String
        var guests: Int
    }

    struct ReserveResult: Encodable, Sendable {
        var reservationId: String
        var conversationId: String
    }

    static let ids = PushIDGenerator()

    static func registerReservations(in functions: inout Functions) throws {
        // The nights, the reservation, the conversation with its first message and both users' lists, in one
        // atomic step: two guests racing for a night cannot both hold it.
        try functions.callable("reserve") { (input: ReserveInput, request, context) -> ReserveResult in
            let guest = try signedIn(request)
            let couchId = try key(input.couchId, "couchId")
            guard let from = Day(input.from), let to = Day(input.to) else {
                throw CallableError(.invalidArgument, "from and to must be dates YYYY-MM-DD")
            }
            guard from < to else { throw CallableError(.invalidArgument, "to must be after from (it is the day of departure)") }
            guard (1...100).contains(input.guests) else { throw CallableError(.invalidArgument, "guests must be 1–100") }
            let nights = (from.number..<to.number).map { Day(number: $0) }
            guard nights.count <= maxNights else {
                throw refused(.failedPrecondition, "A stay is at most \(maxNights) nights", reason: "tooLong")
            }
            let id = ids.next(millis: Int64(Date().timeIntervalSince1970 * 1000))
            let messageId = ids.next(millis: Int64(Date().timeIntervalSince1970 * 1000))
            let text = "Hi! I'd like to stay from \(from) to \(to) (\(input.guests) \(input.guests == 1 ? "guest" : "guests"))."
            return try await context.database.atomically { data, writes in
                guard from >= Day.today(data.now) else { throw refused(.failedPrecondition, "The stay starts in the past", reason: "past") }
                let couch = try data.value("couches/\(couchId)")
                guard let host = couch["hostId"]?.stringValue else { throw CallableError(.notFound, "There is no couch \(couchId)") }
                guard host != guest else { throw refused(.failedPrecondition, "This is your own couch", reason: "ownCouch") }
                guard Int64(input.guests) <= (couch["capacity"]?.int64 ?? 0) else {
                    throw refused(
                        .failedPrecondition, "The couch sleeps \(couch["capacity"]?.int64 ?? 0)", reason: "capacity",
                        [JSONMember("capacity", couch["capacity"] ?? .int(0))])
                }
                var taken: [JSONValue] = []
                for night in nights where try data.value("reservedNights/\(couchId)/\(night)") != .null { taken.append(.string("\(night)")) }
                guard taken.isEmpty else {
                    throw refused(.failedPrecondition, "Some nights are taken", reason: "overlap", [JSONMember("nights", .array(taken))])
                }
                for night in nights { writes["reservedNights/\(couchId)/\(night)"] = .string(id) }
                writes["reservations/\(id)"] = .object([
                    JSONMember("couchId", .string(couchId)), JSONMember("guestId", .string(guest)), JSONMember("hostId", .string(host)),
                    JSONMember("from", .string("\(from)")), JSONMember("to", .string("\(to)")), JSONMember("guests", .int(Int64(input.guests))),
                    JSONMember("status", .string("confirmed")), JSONMember("createdAt", .int(data.now)), JSONMember("endsAt", .int(to.millis)),
                ])
                let message = JSONValue.object([JSONMember("from", .string(guest)), JSONMember("text", .string(text)), JSONMember("at", .int(data.now))])
                writes["conversations/\(id)"] = .object([
                    JSONMember("members", .object([JSONMember(guest, .bool(true)), JSONMember(host, .bool(true))])),
                    JSONMember("couchId", .string(couchId)), JSONMember("reservationId", .string(id)), JSONMember("lastMessage", message),
                ])
                writes["messages/\(id)/\(messageId)"] = message
                for user in [guest, host] {
                    writes["userReservations/\(user)/\(id)"] = .bool(true)
                    writes["userConversations/\(user)/\(id)"] = .bool(true)
                }
                // The host hears of it only if the reservation commits (queued in the same transaction).
                if context.messaging != nil {
                    var note = PushNotification(
                        title: "New reservation", body: "\(from) to \(to), \(input.guests) \(input.guests == 1 ? "guest" : "guests")",
                        data: ["reservationId": id, "conversationId": id], threadID: id, category: "RESERVATION")
                    note.collapseID = "reservation-\(id)"
                    try writes.send(note, to: .user(host))
                }
                return ReserveResult(reservationId: id, conversationId: id)
            }
        }

        try functions.callable("cancelReservation") { (input: JSONValue, request, context) -> JSONValue in
            let caller = try signedIn(request)
            let id = try key(input["reservationId"]?.stringValue, "reservationId")
            return try await context.database.atomically { data, writes in
                let reservation = try data.value("reservations/\(id)")
                guard let couch = reservation["couchId"]?.stringValue,
                    [reservation["guestId"]?.stringValue, reservation["hostId"]?.stringValue].contains(caller)
                else { throw CallableError(.notFound, "There is no reservation \(id) of yours") }
                guard reservation["status"]?.stringValue != "cancelled" else {
                    throw refused(.failedPrecondition, "Already cancelled", reason: "alreadyCancelled")
                }
                writes["reservations/\(id)/status"] = .string("cancelled")
                // The other side of the stay hears of it.
                if context.messaging != nil,
                    let other = [reservation["guestId"]?.stringValue, reservation["hostId"]?.stringValue].compactMap({ $0 }).first(where: { $0 != caller })
                {
                    var note = PushNotification(
                        title: "Reservation cancelled", body: "\(reservation["from"]?.stringValue ?? "") to \(reservation["to"]?.stringValue ?? "")",
                        data: ["reservationId": id], threadID: id, category: "RESERVATION")
                    note.collapseID = "reservation-\(id)"
                    try writes.send(note, to: .user(other))
                }
                if let from = reservation["from"]?.stringValue.flatMap(Day.init), let to = reservation["to"]?.stringValue.flatMap(Day.init) {
                    for night in (from.number..<to.number).map({ Day(number: $0) })
                    where try data.value("reservedNights/\(couch)/\(night)").stringValue == id {
                        writes["reservedNights/\(couch)/\(night)"] = .null
                    }
                }
                return .object([JSONMember("cancelled", .bool(true))])
            }
        }
    }
}
