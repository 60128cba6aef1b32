import Foundation
import HearthGeo
import StaysCore
import Testing

/// The entities read the database's layout, and the pure rules (summary, watcher decision) compute what the server does.
@Suite("Stays entities")
struct EntityTests {
    func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return try decoder.decode(T.self, from: Data(json.utf8))
    }

    func encode(_ value: some Encodable) throws -> [String: Any] {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return try #require(try JSONSerialization.jsonObject(with: encoder.encode(value)) as? [String: Any])
    }

    @Test func aCouchReadsLocationAsLatLngAndPhotosByKey() throws {
        let couch = try decode(
            Couch.self,
            #"""
            {"hostId": "h", "title": "T", "address": "A 1", "city": "Berlin", "location": {"lat": 52.5, "lng": 13.4}, "capacity": 2,
             "photos": {"p2": {"path": "couches/c/p2.jpg", "url": "u2"}, "p1": {"path": "couches/c/p1.jpg", "url": "u1"}}, "createdAt": 1000}
            """#)
        #expect(couch.location == GeoPoint(latitude: 52.5, longitude: 13.4))
        #expect(couch.photos == [CouchPhoto(id: "p1", path: "couches/c/p1.jpg", url: "u1"), CouchPhoto(id: "p2", path: "couches/c/p2.jpg", url: "u2")])
        #expect(couch.description.isEmpty && couch.createdAt == Date(timeIntervalSince1970: 1))
        let written = try encode(couch)
        #expect(written["location"] as? [String: Double] == ["lat": 52.5, "lng": 13.4])
        #expect((written["photos"] as? [String: Any])?.keys.sorted() == ["p1", "p2"])
        #expect(written["id"] == nil)
    }

    @Test func aReservationReadsDaysAndEndsAtMidnightOfCheckOut() throws {
        let reservation = try decode(
            Reservation.self,
            #"""
            {"couchId": "c", "guestId": "g", "hostId": "h", "from": "2025-06-01", "to": "2025-06-04", "guests": 2, "status": "cancelled",
             "createdAt": 1000, "endsAt": 1748995200000}
            """#)
        #expect(reservation.stay == stay("2025-06-01", "2025-06-04") && reservation.status == .cancelled && reservation.ratedAt == nil)
        #expect(!reservation.hasEnded(at: Date(timeIntervalSince1970: 1_748_995_199)))
        #expect(reservation.hasEnded(at: Date(timeIntervalSince1970: 1_748_995_200)))
        let made = Reservation(id: "r", couchId: "c", guestId: "g", hostId: "h", from: day("2025-06-01"), to: day("2025-06-04"), guests: 1, createdAt: .now)
        #expect(made.endsAt == day("2025-06-04").start)
    }

    @Test func aConversationReadsMembersAsASet() throws {
        let conversation = try decode(
            Conversation.self,
            #"{"members": {"a": true, "b": true, "x": false}, "couchId": "c", "reservationId": "r", "lastMessage": {"from": "a", "text": "hi", "at": 5}}"#)
        #expect(conversation.members == ["a", "b"])
        #expect(conversation.other(than: "a") == "b")
        #expect(conversation.lastMessage?.text == "hi")
        #expect(try encode(conversation)["members"] as? [String: Bool] == ["a": true, "b": true])
    }

    @Test func aSummaryIsExactAndReadsItsDistributionByStarText() throws {
        let ratings = [3, 5, 5, 4, 1, 5].enumerated().map { Rating(id: "u\($0.offset)", stars: $0.element, at: .now, reservationId: "r\($0.offset)") }
        let summary = RatingSummary(of: ratings)
        #expect(summary.count == 6)
        #expect(summary.average == 23.0 / 6.0)
        #expect(summary.distribution == [1: 1, 2: 0, 3: 1, 4: 1, 5: 3])
        #expect(summary.share(of: 5) == 0.5 && summary.share(of: 2) == 0)
        #expect(RatingSummary(of: []) == .empty && RatingSummary.empty.distribution.values.allSatisfy { $0 == 0 })
        let stored = try decode(RatingSummary.self, #"{"count": 2, "average": 4.5, "distribution": {"4": 1, "5": 1}}"#)
        #expect(stored == RatingSummary(count: 2, average: 4.5, distribution: [4: 1, 5: 1]))
        #expect(stored.distribution[1] == 0)
        #expect(try encode(stored)["distribution"] as? [String: Int] == ["1": 0, "2": 0, "3": 0, "4": 1, "5": 1])
    }

    @Test(arguments: [
        (10.0, WatcherDecision.heating, ["heat": "ON"]),
        (18.0, WatcherDecision.off, [:]),  // not below minC
        (26.0, WatcherDecision.off, [:]),  // not above maxC
        (30.5, WatcherDecision.cooling, ["cool": "ON"]),
    ])
    func theWatcherSwitchesBelowMinAndAboveMax(_ temperature: Double, _ decision: WatcherDecision, _ changes: [String: String]) {
        let watcher = Watcher(enabled: true, minC: 18, maxC: 26)
        let switches = [
            SmartSwitch(id: "heat", type: .heating, item: "H", state: "OFF", watcher: watcher),
            SmartSwitch(id: "cool", type: .cooling, item: "C", state: "OFF", watcher: watcher),
            SmartSwitch(id: "idle", type: .heating, item: "I", state: "OFF", watcher: Watcher(enabled: false, minC: 40)),
        ]
        let run = WatcherRun.decide(switches, temperatureC: temperature)
        #expect(run.decision == decision && run.changes == changes && run.temperatureC == temperature)
    }

    @Test func theWatcherTurnsOffWhatIsOnAndDecidesNoneWithoutWatchers() {
        let on = SmartSwitch(id: "heat", type: .heating, item: "H", state: "ON", watcher: Watcher(enabled: true, minC: 18))
        #expect(WatcherRun.decide([on], temperatureC: 20).changes == ["heat": "OFF"])
        #expect(WatcherRun.decide([on], temperatureC: 10).changes.isEmpty)
        let unwatched = SmartSwitch(id: "x", type: .cooling, item: "X", state: "ON")
        #expect(WatcherRun.decide([unwatched], temperatureC: 40) == WatcherRun(decision: .none, temperatureC: 40, changes: [:]))
    }

    @Test func watcherSettingsAndItemNamesAreChecked() {
        #expect(Watcher(enabled: true, minC: 18, maxC: 26).problem == nil)
        #expect(Watcher(enabled: true, minC: 27, maxC: 26).problem != nil)
        #expect(Watcher(enabled: true, minC: -51).problem != nil && Watcher(enabled: false, maxC: 61).problem != nil)
        #expect(SmartSwitch.isValidItem("Loft_Heater_2") && !SmartSwitch.isValidItem("") && !SmartSwitch.isValidItem("a b"))
        #expect(!SmartSwitch.isValidItem(String(repeating: "a", count: 101)) && !SmartSwitch.isValidItem("Hé"))
    }
}
