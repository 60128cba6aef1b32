import Foundation
import Hearth
import HearthCore
import Testing

/// GeoFire-layout locations and live geo queries through the SDK, against a live server.
@Suite("Geo queries (live)")
struct GeoQueryTests {
    static let berlin = GeoPoint(latitude: 52.52, longitude: 13.405)
    /// Open rules with the index geo queries read (`indexOn` is enforced by the test server).
    static let rules = #"{"rules":{".read":true,".write":true,"places":{".indexOn":["g"]},"islands":{".indexOn":["g"]}}}"#

    /// Two clients: one writes locations, the other watches a 1 km circle around Berlin.
    func withClients(_ body: @Sendable (_ writer: DatabaseReference, _ reader: DatabaseReference, _ rest: AdminREST) async throws -> Void)
        async throws
    {
        try await withAuthStorageServer { live in
            let rest = AdminREST(port: live.port)
            try await rest.put(".settings/rules", Self.rules)
            let writerApp = HearthApp(name: "geo-writer-\(UUID().uuidString)", options: live.options())
            let readerApp = HearthApp(name: "geo-reader-\(UUID().uuidString)", options: live.options())
            defer { Task { await writerApp.close(); await readerApp.close() } }
            try await body(writerApp.database.reference("places"), readerApp.database.reference("places"), rest)
        }
    }

    @Test func setLocationWritesGeoFiresLayout() async throws {
        try await withClients { writer, reader, rest in
            let point = GeoPoint(latitude: 57.64911, longitude: 10.40744)
            try await writer.setLocation(point, forKey: "jutland")
            #expect(try await rest.get("places/jutland") == json(#"{"g":"u4pruydqqv","l":[57.64911,10.40744]}"#))
            let snapshot = try await reader.child("jutland").getSnapshot()
            #expect(snapshot.priority == .string("u4pruydqqv"))  // GeoFire also sets the geohash as priority
            #expect(try await reader.location(forKey: "jutland") == point)
            try await writer.removeLocation(forKey: "jutland")
            #expect(try await rest.get("places/jutland") == .null)
            #expect(try await reader.location(forKey: "jutland") == nil)
            await #expect(throws: DatabaseError.self) {
                try await writer.setLocation(GeoPoint(latitude: 95, longitude: 0), forKey: "nowhere")
            }
        }
    }

    @Test func liveQueryEntersMovesAndExits() async throws {
        try await withClients { writer, reader, _ in
            let center = Self.berlin
            func at(_ meters: Double, _ bearing: Double) -> GeoPoint { Self.destination(center, bearing: bearing, meters: meters) }
            try await writer.setLocation(at(200, 0), forKey: "a")
            try await writer.setLocation(at(600, 90), forKey: "b")
            try await writer.setLocation(at(950, 180), forKey: "c")
            try await writer.setLocation(at(1_050, 270), forKey: "justOutside")
            try await writer.setLocation(at(1_500, 0), forKey: "far")
            try await writer.setLocation(GeoPoint(latitude: 48.8566, longitude: 2.3522), forKey: "paris")

            let query = reader.geoQuery(center: center, radiusMeters: 1_000)
            #expect(!query.ranges.isEmpty && query.ranges.count <= 9)
            let events = EventRecorder(query)
            let initial = await events.wait(for: 4)
            #expect(initial.last == .ready)
            let entered = initial.dropLast()
            #expect(Set(entered.compactMap(\.key)) == ["a", "b", "c"])
            for event in entered {
                guard case .entered(let key, _, let distance) = event else {
                    Issue.record("expected only entered events before ready, got \(event)")
                    continue
                }
                let expected: Double = ["a": 200, "b": 600, "c": 950][key] ?? -1
                #expect(abs(distance - expected) < 1, "\(key) at \(distance) m")
            }
            #expect(initial.filter { $0 == .ready }.count == 1)

            // Moves inside, out, in; a removal.
            try await writer.setLocation(at(300, 270), forKey: "b")
            // Within one geohash range this is `moved`; across two ranges the SDK may see the removal from the old
            // range before the addition to the new one, and report `exited` then `entered` (docs/geo.md, Limits).
            await expectEventually(timeout: .seconds(30), "b's move; events: \(events.all)") {
                events.all.contains {
                    switch $0 {
                    case .moved("b", _, let d), .entered("b", _, let d): abs(d - 300) < 1
                    default: false
                    }
                }
            }
            try await writer.setLocation(at(2_000, 0), forKey: "a")
            await expectEventually { events.all.contains(.exited(key: "a")) }
            try await writer.setLocation(at(100, 45), forKey: "far")
            await expectEventually { events.all.contains { if case .entered("far", _, _) = $0 { true } else { false } } }
            try await writer.removeLocation(forKey: "c")
            await expectEventually { events.all.contains(.exited(key: "c")) }
            // A write far away changes nothing.
            try await writer.setLocation(GeoPoint(latitude: 40.7128, longitude: -74.0060), forKey: "paris")
            try await Task.sleep(for: .milliseconds(300))

            let later = Array(events.all.dropFirst(initial.count))
            #expect(!later.contains { ["justOutside", "paris"].contains($0.key) }, "\(later)")
            #expect(!later.contains(.ready))
            #expect(events.error == nil)

            // The one-shot form agrees, nearest first.
            let matches = try await query.matches()
            #expect(matches.map(\.key) == ["far", "b"])
            #expect(matches.map(\.distance) == matches.map(\.distance).sorted())
            events.stop()
        }
    }

    @Test func matchesAreNearestFirst() async throws {
        try await withClients { writer, reader, _ in
            let distances: [String: Double] = ["k1": 900, "k2": 50, "k3": 400, "k4": 10, "k5": 4_000]
            for (key, meters) in distances {
                try await writer.setLocation(Self.destination(Self.berlin, bearing: meters, meters: meters), forKey: key)
            }
            let matches = try await reader.geoQuery(center: Self.berlin, radiusMeters: 1_000).matches()
            #expect(matches.map(\.key) == ["k4", "k2", "k3", "k1"])
            for match in matches { #expect(abs(match.distance - distances[match.key]!) < 0.5) }
            #expect(try await reader.geoQuery(center: GeoPoint(latitude: 0, longitude: 0), radiusMeters: 1_000).matches().isEmpty)
        }
    }

    /// A box across the antimeridian (Fiji), live and one shot.
    @Test func boxAcrossTheAntimeridian() async throws {
        try await withAuthStorageServer { live in
            try await AdminREST(port: live.port).put(".settings/rules", Self.rules)
            let app = HearthApp(name: "geo-box-\(UUID().uuidString)", options: live.options())
            defer { Task { await app.close() } }
            let islands = app.database.reference("islands")
            try await islands.setLocation(GeoPoint(latitude: -17.7134, longitude: 178.065), forKey: "vitiLevu")
            try await islands.setLocation(GeoPoint(latitude: -16.5, longitude: 179.9999), forKey: "vanuaLevu")
            try await islands.setLocation(GeoPoint(latitude: -18.05, longitude: -178.9), forKey: "lau")
            try await islands.setLocation(GeoPoint(latitude: -13.8, longitude: -171.75), forKey: "samoa")
            try await islands.setLocation(GeoPoint(latitude: -17.7, longitude: 0), forKey: "atlantic")
            let box = GeoBox(southWest: GeoPoint(latitude: -21, longitude: 176), northEast: GeoPoint(latitude: -12, longitude: -178))
            let query = islands.geoQuery(in: box)
            let matches = try await query.matches()
            #expect(Set(matches.map(\.key)) == ["vitiLevu", "vanuaLevu", "lau"])
            #expect(matches.map(\.distance) == matches.map(\.distance).sorted())

            let events = EventRecorder(query)
            let initial = await events.wait(for: 4)
            #expect(initial.last == .ready)
            #expect(Set(initial.compactMap(\.key)) == ["vitiLevu", "vanuaLevu", "lau"])
            // Across the line into the box, and out of it.
            try await islands.setLocation(GeoPoint(latitude: -14, longitude: -178.5), forKey: "samoa")
            await expectEventually { events.all.contains { $0.key == "samoa" } }
            try await islands.setLocation(GeoPoint(latitude: -17, longitude: 175.9), forKey: "vitiLevu")
            await expectEventually { events.all.contains(.exited(key: "vitiLevu")) }
            events.stop()
        }
    }

    /// The point `meters` from `start` at `bearing` degrees (great circle, same sphere as `distance(to:)`).
    static func destination(_ start: GeoPoint, bearing: Double, meters: Double) -> GeoPoint {
        let angle = meters / GeoPoint.earthRadiusMeters
        let lat1 = start.latitude * .pi / 180
        let theta = bearing * .pi / 180
        let lat2 = asin(sin(lat1) * cos(angle) + cos(lat1) * sin(angle) * cos(theta))
        let dLon = atan2(sin(theta) * sin(angle) * cos(lat1), cos(angle) - sin(lat1) * sin(lat2))
        return GeoPoint(latitude: lat2 * 180 / .pi, longitude: start.longitude + dLon * 180 / .pi)
    }
}
