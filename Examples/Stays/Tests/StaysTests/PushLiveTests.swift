import Foundation
import Hearth
import HearthCore
import HearthFunctions
import HearthGeo
import HearthTesting
import NIOHTTP1
import StaysCore
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Stays' push notifications through the built `hearth-functions-example`, its APNs settings pointed at a loopback
/// APNs double (HTTP/2 over TLS from a test authority the server is told to trust): the host hears of a reservation
/// and of a guest's message, the guest of a cancellation; nobody hears of their own actions.
@MainActor
@Suite("Stays push against a live server", .serialized)
struct PushLiveTests {
    static let bundleID = "com.example.stays"

    func withServer(_ body: (HearthProcess, FakeOutsideServer, APNsDouble) async throws -> Void) async throws {
        let outside = FakeOutsideServer()
        _ = try await outside.start()
        let data = temporaryDataFolder()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let secrets = data + "/secrets"
        try FileManager.default.createDirectory(atPath: secrets, withIntermediateDirectories: true)
        let (apns, push) = try await APNsDouble.forServer(bundleID: Self.bundleID, folder: secrets)
        let binary = try HearthProcess.binary.deletingLastPathComponent().appendingPathComponent("hearth-functions-example")
        let server = try HearthProcess(
            executable: binary,
            arguments: [
                "serve", "--port", "0", "--data", data + "/db", "--dev", "--geocoder-url", outside.baseURL,
                "--geocoder-user-agent", "Stays tests (tests@example.com)",
            ] + push)
        do {
            try await server.waitForPort()
            let rules = try String(contentsOf: LiveAppTests.example.appendingPathComponent("rules.json"), encoding: .utf8)
            try #require(try await server.request(.PUT, "/.settings/rules.json", body: rules).0 == 200)
            try await body(server, outside, apns)
        } catch {
            server.signal(SIGKILL)
            _ = try? await server.exitCode()
            await outside.stop()
            await apns.stop()
            throw error
        }
        server.signal(SIGTERM)
        #expect(try await server.exitCode() == 0)
        await outside.stop()
        await apns.stop()
    }

    /// The notifications the double accepted for `token`, once there are `count` (20 s at most).
    func received(_ apns: APNsDouble, for token: String, count: Int) async throws -> [ReceivedPush] {
        let deadline = ContinuousClock.now + .seconds(20)
        while apns.received.filter({ $0.token == token }).count < count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        return apns.received.filter { $0.token == token }
    }

    @Test func reservationsMessagesAndCancellationsReachTheOtherSide() async throws {
        try await withServer { server, outside, apns in
            outside.setPlace(GeocodedPlace(latitude: 52.5219, longitude: 13.4132, city: "Berlin", displayName: "Alexanderplatz"), for: "Alexanderplatz 1")
            let options = HearthOptions(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, projectID: "demo", apiKey: "stays-key")
            let hostApp = HearthApp(name: "push-host", options: options)
            let guestApp = HearthApp(name: "push-guest", options: options)
            let (host, guest) = (UseCases(.hearth(hostApp)), UseCases(.hearth(guestApp)))
            let hostToken = Data(repeating: 0xA1, count: 32)
            let guestToken = Data(repeating: 0xB2, count: 32)
            let hostHex = String(repeating: "a1", count: 32)
            let guestHex = String(repeating: "b2", count: 32)
            _ = try await host.signUp(email: "hana@example.com", password: "secret-hana")
            try await hostApp.messaging.register(apnsToken: hostToken)
            _ = try await guest.signUp(email: "gus@example.com", password: "secret-gus")
            try await guestApp.messaging.register(apnsToken: guestToken)

            let listing = NewCouchViewModel(host)
            listing.title = "Sunny couch"
            listing.description = "Near the park"
            listing.address = "Alexanderplatz 1"
            listing.capacity = 2
            await listing.geocodeAddress()
            await listing.save()
            let couchID = try #require(listing.couchID, "\(listing.state)")
            let couch = try #require(try await guest.repositories.couches.couch(couchID))
            let today = Day(Date())
            let booking = try await guest.reserve(couch, stay: DayRange(from: today.adding(days: 3), to: today.adding(days: 5)), guests: 2)
            let id = booking.outcome.reservationId

            // The host hears of the reservation once (the automatic first message is not announced again).
            var toHost = try await received(apns, for: hostHex, count: 1)
            #expect(toHost.first?.payload["aps"]?["alert"]?["title"] == .string("New reservation"))
            #expect(toHost.first?.payload["reservationId"] == .string(id))
            #expect(toHost.first?.headers["apns-collapse-id"] == "reservation-\(id)")
            // The guest writes; the host hears of it, the guest does not.
            try await guest.send("We arrive around 6 pm", in: booking.outcome.conversationId)
            toHost = try await received(apns, for: hostHex, count: 2)
            #expect(toHost.count == 2)
            #expect(toHost.last?.payload["aps"]?["alert"]?["body"] == .string("We arrive around 6 pm"))
            #expect(toHost.last?.payload["aps"]?["thread-id"] == .string(booking.outcome.conversationId))
            // The host cancels; the guest hears of it.
            let reservation = try #require(try await host.repositories.reservations.reservation(id))
            try await host.cancel(reservation)
            let toGuest = try await received(apns, for: guestHex, count: 1)
            #expect(toGuest.map { $0.payload["aps"]?["alert"]?["title"] } == [.string("Reservation cancelled")])
            try await Task.sleep(for: .milliseconds(500))
            #expect(apns.received.filter { $0.token == hostHex }.count == 2)
            await hostApp.close()
            await guestApp.close()
        }
    }
}
