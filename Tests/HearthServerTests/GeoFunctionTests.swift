import AsyncHTTPClient
import Foundation
import Hearth
import HearthCore
import HearthFunctions
import HearthStore
import HearthTesting
import NIOCore
import NIOHTTP1
import Testing

/// `AdminDatabase.geoQuery` inside callables on a live server, over locations the SDK wrote with `setLocation`.
@Suite("Geo queries in functions (live)")
struct GeoFunctionTests {
    struct Circle: Codable, Sendable {
        var center: GeoPoint
        var radius: Double
    }

    static func functions() throws -> Functions {
        var functions = Functions()
        try functions.callable("nearby") { (input: Circle, _, context) -> [GeoMatch] in
            try await context.database.geoQuery(at: "/places", center: input.center, radiusMeters: input.radius)
        }
        try functions.callable("inBox") { (box: GeoBox, _, context) -> [GeoMatch] in
            try await context.database.geoQuery(at: "/places", in: box)
        }
        return functions
    }

    func withServer(_ body: (HearthApp) async throws -> Void) async throws {
        let server = LiveServer(functions: try Self.functions())
        let port = try await server.start()
        let app = HearthApp(
            name: "geo-functions-\(UUID().uuidString)",
            options: HearthOptions(serverURL: URL(string: "http://127.0.0.1:\(port)")!, projectID: "demo", apiKey: "test-key"))
        do {
            try await Self.putRules(port, #"{"rules":{".read":true,".write":true,"places":{".indexOn":["g"]}}}"#)
            try await body(app)
        } catch {
            await app.close()
            await server.stop()
            throw error
        }
        await app.close()
        await server.stop()
    }

    static func putRules(_ port: Int, _ rules: String) async throws {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/.settings/rules.json")
        request.method = .PUT
        request.headers.add(name: "Authorization", value: "Bearer owner")
        request.body = .bytes(ByteBuffer(string: rules))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        #expect(response.status == .ok)
    }

    @Test func circleQueryFindsTheSDKsLocationsNearestFirst() async throws {
        try await withServer { app in
            let places = app.database.reference("places")
            let center = GeoPoint(latitude: -33.8688, longitude: 151.2093)  // Sydney
            try await places.setLocation(GeoPoint(latitude: -33.8700, longitude: 151.2100), forKey: "near")  // ≈ 148 m
            try await places.setLocation(GeoPoint(latitude: -33.8568, longitude: 151.2153), forKey: "opera")  // ≈ 1.45 km
            try await places.setLocation(GeoPoint(latitude: -33.8688, longitude: 151.2093), forKey: "here")
            try await places.setLocation(GeoPoint(latitude: -33.8915, longitude: 151.2767), forKey: "bondi")  // ≈ 6.7 km
            try await places.setLocation(GeoPoint(latitude: -37.8136, longitude: 144.9631), forKey: "melbourne")
            try await places.child("junk").setValue(json: .object([JSONMember("g", .string("r3gx2f9tt5"))]))  // no `l`: skipped

            let within2km = try await app.functions.call("nearby", Circle(center: center, radius: 2_000), returning: [GeoMatch].self)
            #expect(within2km.map(\.key) == ["here", "near", "opera"])
            #expect(within2km[0].distance == 0)
            #expect(abs(within2km[1].distance - center.distance(to: within2km[1].location)) < 1e-6)
            #expect(abs(within2km[2].distance - 1_450) < 20)

            let within10km = try await app.functions.call("nearby", Circle(center: center, radius: 10_000), returning: [GeoMatch].self)
            #expect(within10km.map(\.key) == ["here", "near", "opera", "bondi"])
            let within1000km = try await app.functions.call("nearby", Circle(center: center, radius: 1_000_000), returning: [GeoMatch].self)
            #expect(within1000km.last?.key == "melbourne" && within1000km.count == 5)

            // A removal is seen by the next query.
            try await places.removeLocation(forKey: "near")
            let after = try await app.functions.call("nearby", Circle(center: center, radius: 2_000), returning: [GeoMatch].self)
            #expect(after.map(\.key) == ["here", "opera"])

            // An invalid center is refused (the callable answers INTERNAL for a FunctionsError).
            await #expect(throws: FunctionsCallError.self) {
                _ = try await app.functions.call("nearby", Circle(center: GeoPoint(latitude: 100, longitude: 0), radius: 10), returning: [GeoMatch].self)
            }
        }
    }

    @Test func boxQueryAcrossTheAntimeridian() async throws {
        try await withServer { app in
            let places = app.database.reference("places")
            try await places.setLocation(GeoPoint(latitude: 65.5, longitude: 179.5), forKey: "west")
            try await places.setLocation(GeoPoint(latitude: 66.0, longitude: -179.5), forKey: "east")
            try await places.setLocation(GeoPoint(latitude: 64.0, longitude: -176.0), forKey: "outside")
            let box = GeoBox(southWest: GeoPoint(latitude: 65, longitude: 179), northEast: GeoPoint(latitude: 67, longitude: -179))
            let found = try await app.functions.call("inBox", box, returning: [GeoMatch].self)
            #expect(found.map(\.key) == ["east", "west"])  // from the box's center (66, 180): ≈ 23 km and ≈ 57 km
            #expect(found.allSatisfy { box.contains($0.location) })
        }
    }
}
