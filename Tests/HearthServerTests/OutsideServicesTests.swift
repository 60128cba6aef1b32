import AsyncHTTPClient
import Foundation
import HearthCore
import HearthFunctions
import HearthStore
import HearthTesting
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

/// The outside services of server functions (geocoder, smart home, weather): each real HTTP client against the
/// loopback `FakeOutsideServer`, the in-memory doubles, and `context.services` in a live server.
@Suite("OutsideServices", .timeLimit(.minutes(1)))
struct OutsideServicesTests {
    /// Retries without long pauses, so the tests stay quick.
    static let fast = OutsideServiceOptions(timeout: .seconds(5), retries: 2, backoff: .milliseconds(5))

    static func withFake(
        openHABToken: String? = "openhab-test-token", _ body: (FakeOutsideServer, HTTPClient) async throws -> Void
    ) async throws {
        let fake = FakeOutsideServer(openHABToken: openHABToken)
        try await fake.start()
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            try await body(fake, client)
        } catch {
            await fake.stop()
            try? await client.shutdown()
            throw error
        }
        await fake.stop()
        try await client.shutdown()
    }

    /// The error `body` throws, which must be an ``OutsideServiceError``.
    static func failure(_ body: () async throws -> Void) async throws -> OutsideServiceError {
        do {
            try await body()
        } catch let error as OutsideServiceError {
            return error
        }
        Issue.record("expected an OutsideServiceError, nothing was thrown")
        throw CancellationError()
    }

    // MARK: Geocoder

    @Test func nominatimFindsAPlaceAndSaysWhoIsAsking() async throws {
        try await Self.withFake { fake, client in
            let place = GeocodedPlace(latitude: 50.9413, longitude: 6.9583, city: "Köln", displayName: "Café & Bar, Domkloster, Köln")
            fake.setPlace(place, for: "Café & Bar, Köln")
            let geocoder = try NominatimGeocoder(baseURL: fake.baseURL + "/", userAgent: "StaysTests/1 (ops@example.com)", httpClient: client, options: Self.fast)
            #expect(try await geocoder.geocode("Café & Bar, Köln") == place)
            let request = try #require(fake.requests(to: "/search").first)
            #expect(request.method == "GET")
            // `&`, `,`, spaces and non-ASCII letters travel encoded and arrive as they were.
            #expect(request.query == ["q": "Café & Bar, Köln", "format": "jsonv2", "addressdetails": "1", "limit": "1"])
            #expect(request.headers["user-agent"] == "StaysTests/1 (ops@example.com)")

            // Nothing found: nil, not an error.
            #expect(try await geocoder.geocode("Nowhere 1") == nil)
            // A blank address is not sent.
            #expect(try await geocoder.geocode("   ") == nil)
            #expect(fake.requests(to: "/search").count == 2)

            // Small places are a town, village or municipality in Nominatim's address.
            for field in ["town", "village", "municipality"] {
                fake.setPlace(GeocodedPlace(latitude: 1.5, longitude: -2.25, city: "Hamlet-\(field)"), for: "in a \(field)")
                let found = try #require(try await geocoder.geocode("in a \(field)"))
                #expect(found.city == "Hamlet-\(field)" && found.latitude == 1.5 && found.longitude == -2.25 && found.displayName == nil)
            }
        }
    }

    @Test func nominatimNeedsAUserAgentAndAnHTTPURL() throws {
        let client = HTTPClient.shared
        #expect(throws: OutsideServiceError.self) { try NominatimGeocoder(userAgent: "  ", httpClient: client) }
        #expect(throws: OutsideServiceError.self) { try NominatimGeocoder(baseURL: "ftp://example.com", userAgent: "a", httpClient: client) }
        #expect(throws: OutsideServiceError.self) { try NominatimGeocoder(baseURL: "https://example.com/?x=1", userAgent: "a", httpClient: client) }
        #expect(throws: OutsideServiceError.self) { try OpenHABClient(baseURL: "not a url", token: nil, httpClient: client) }
        #expect(throws: OutsideServiceError.self) { try OpenWeatherClient(apiKey: "", httpClient: client) }
    }

    @Test func aClientErrorIsNotRetried() async throws {
        try await Self.withFake { fake, client in
            let geocoder = try NominatimGeocoder(baseURL: fake.baseURL, userAgent: "t", httpClient: client, options: Self.fast)
            fake.failNext(5, status: 403)
            let error = try await Self.failure { _ = try await geocoder.geocode("Berlin") }
            #expect(error.status == 403 && error.service == "Nominatim")
            #expect(fake.requests.count == 1)
        }
    }

    @Test func serverErrorsAreRetriedThenReported() async throws {
        try await Self.withFake { fake, client in
            let geocoder = try NominatimGeocoder(baseURL: fake.baseURL, userAgent: "t", httpClient: client, options: Self.fast)
            fake.setPlace(GeocodedPlace(latitude: 52.52, longitude: 13.4, city: "Berlin"), for: "Berlin")
            // Two failures, then an answer: the call succeeds on its third attempt.
            fake.failNext(2)
            #expect(try await geocoder.geocode("Berlin")?.city == "Berlin")
            #expect(fake.requests.count == 3)

            // Down for good: one attempt and two retries, then the 503.
            fake.clearRequests()
            fake.geocoderDown = true
            let error = try await Self.failure { _ = try await geocoder.geocode("Berlin") }
            #expect(error.status == 503 && error.description.contains("HTTP 503"))
            #expect(fake.requests.count == 3)

            // Too many requests (429) is retried as well.
            fake.geocoderDown = false
            fake.clearRequests()
            fake.failNext(1, status: 429)
            #expect(try await geocoder.geocode("Berlin") != nil)
            #expect(fake.requests.count == 2)

            // No retries wanted: one attempt.
            let once = try NominatimGeocoder(
                baseURL: fake.baseURL, userAgent: "t", httpClient: client, options: OutsideServiceOptions(retries: 0, backoff: .milliseconds(5)))
            fake.clearRequests()
            fake.failNext(1, status: 502)
            #expect(try await Self.failure { _ = try await once.geocode("Berlin") }.status == 502)
            #expect(fake.requests.count == 1)
        }
    }

    @Test func aSlowServiceTimesOutAndStopDropsItsPendingAnswers() async throws {
        try await Self.withFake { fake, client in
            fake.setTemperature(20, for: "Rome")
            fake.delay = .seconds(30)
            let weather = try OpenWeatherClient(
                baseURL: fake.baseURL, apiKey: fake.openWeatherKey, httpClient: client, options: OutsideServiceOptions(timeout: .milliseconds(300)))
            let started = ContinuousClock.now
            let error = try await Self.failure { _ = try await weather.currentTemperature(city: "Rome") }
            #expect(error.message.contains("did not answer within 0.3 s"), "\(error)")
            #expect(error.status == nil)
            #expect(ContinuousClock.now - started < .seconds(3))
            // The timeout bounds the whole call: no retry after it.
            #expect(fake.requests.count == 1)

            // A request still waiting for its answer does not keep stop() waiting.
            let waiting = Task { try await HTTPClient.shared.execute(HTTPClientRequest(url: fake.baseURL + "/search?q=x&format=jsonv2"), timeout: .seconds(60)) }
            while fake.requests.count < 2 { try await Task.sleep(for: .milliseconds(10)) }
            let stopping = ContinuousClock.now
            await fake.stop()
            #expect(ContinuousClock.now - stopping < .seconds(2))
            await #expect(throws: (any Error).self) { _ = try await waiting.value }
        }
    }

    /// The HTTP client keeps trying to connect until the call's deadline, then the last connection error is reported.
    @Test func anUnreachableServiceIsReportedAtTheDeadlineWithoutItsKey() async throws {
        let fake = FakeOutsideServer()
        let port = try await fake.start()
        await fake.stop()
        let weather = try OpenWeatherClient(
            baseURL: "http://127.0.0.1:\(port)", apiKey: "sekrit-key-123", httpClient: HTTPClient.shared,
            options: OutsideServiceOptions(timeout: .seconds(1), backoff: .milliseconds(5)))
        let started = ContinuousClock.now
        let error = try await Self.failure { _ = try await weather.currentTemperature(city: "Oslo") }
        #expect(error.message.contains("could not reach 127.0.0.1"), "\(error)")
        #expect(error.status == nil && !error.description.contains("sekrit-key-123"))
        #expect(ContinuousClock.now - started < .seconds(3))
    }

    @Test func anAnswerOverTheSizeBoundIsAnError() async throws {
        try await Self.withFake { fake, client in
            fake.setPlace(GeocodedPlace(latitude: 1, longitude: 2, city: "A long enough city name", displayName: "and its display name"), for: "x")
            let geocoder = try NominatimGeocoder(
                baseURL: fake.baseURL, userAgent: "t", httpClient: client, options: OutsideServiceOptions(maxResponseBytes: 64))
            let error = try await Self.failure { _ = try await geocoder.geocode("x") }
            #expect(error.message.contains("more than 64 bytes"), "\(error)")
            #expect(fake.requests.count == 1)
        }
    }

    // MARK: Smart home

    @Test func openHABReadsAndSwitchesItemsWithTheToken() async throws {
        try await Self.withFake { fake, client in
            fake.setItem("Heating_L1", state: "OFF")
            let home = try OpenHABClient(baseURL: fake.baseURL, token: "openhab-test-token", httpClient: client, options: Self.fast)
            #expect(try await home.state(of: "Heating_L1") == "OFF")
            try await home.send("ON", to: "Heating_L1")
            #expect(fake.itemState("Heating_L1") == "ON")
            #expect(try await home.state(of: "Heating_L1") == "ON")
            #expect(fake.commands == [SmartHomeCommand(item: "Heating_L1", command: "ON")])
            let requests = fake.requests(to: "/rest/items")
            #expect(requests.map { "\($0.method) \($0.path)" } == [
                "GET /rest/items/Heating_L1/state", "POST /rest/items/Heating_L1", "GET /rest/items/Heating_L1/state",
            ])
            #expect(requests.allSatisfy { $0.headers["authorization"] == "Bearer openhab-test-token" })
            #expect(requests[1].headers["content-type"]?.hasPrefix("text/plain") == true && requests[1].body == "ON")

            // An item that does not exist: 404 at once, no retry.
            fake.clearRequests()
            let missing = try await Self.failure { _ = try await home.state(of: "Nope") }
            #expect(missing.isNotFound && missing.message.contains("Nope"))
            #expect(fake.requests.count == 1)

            // Names that are not openHAB item names never leave the process.
            fake.clearRequests()
            for name in ["", "a b", "Lamp/../x", "1st", "Käse", "Lamp%2F"] {
                await #expect(throws: OutsideServiceError.self) { try await home.state(of: name) }
                await #expect(throws: OutsideServiceError.self) { try await home.send("ON", to: name) }
            }
            await #expect(throws: OutsideServiceError.self) { try await home.send("ON\nOFF", to: "Heating_L1") }
            #expect(fake.requests.isEmpty)

            // Down: retried, then 503.
            fake.smartHomeDown = true
            let down = try await Self.failure { try await home.send("OFF", to: "Heating_L1") }
            #expect(down.status == 503 && fake.requests.count == 3)
        }
    }

    @Test func openHABRefusesAWrongTokenWithoutShowingIt() async throws {
        try await Self.withFake { fake, client in
            fake.setItem("Lamp", state: "ON")
            let home = try OpenHABClient(baseURL: fake.baseURL, token: "wrong-token-xyz", httpClient: client, options: Self.fast)
            let error = try await Self.failure { _ = try await home.state(of: "Lamp") }
            #expect(error.status == 401 && error.message.contains("API token"))
            #expect(!error.description.contains("wrong-token-xyz"))
            #expect(fake.requests.count == 1)
            // Without a token, no Authorization header at all.
            let anonymous = try OpenHABClient(baseURL: fake.baseURL, token: nil, httpClient: client, options: Self.fast)
            fake.clearRequests()
            _ = try? await anonymous.state(of: "Lamp")
            #expect(fake.requests.first?.headers["authorization"] == nil)
        }
        // A server without authentication answers anyone.
        try await Self.withFake(openHABToken: nil) { fake, client in
            fake.setItem("Lamp", state: "21.5")
            let home = try OpenHABClient(baseURL: fake.baseURL, token: nil, httpClient: client)
            #expect(try await home.state(of: "Lamp") == "21.5")
        }
    }

    // MARK: Weather

    @Test func openWeatherTellsTheTemperatureInCelsius() async throws {
        try await Self.withFake { fake, client in
            fake.setTemperature(-3.25, for: "São Paulo")
            let weather = try OpenWeatherClient(baseURL: fake.baseURL, apiKey: fake.openWeatherKey, httpClient: client, options: Self.fast)
            #expect(try await weather.currentTemperature(city: "São Paulo") == -3.25)
            let request = try #require(fake.requests.first)
            #expect(request.path == "/data/2.5/weather")
            #expect(request.query == ["q": "São Paulo", "units": "metric", "appid": fake.openWeatherKey])

            // An unknown city: 404 with a clear message, not retried.
            fake.clearRequests()
            let unknown = try await Self.failure { _ = try await weather.currentTemperature(city: "Atlantis") }
            #expect(unknown.isNotFound && unknown.description == #"OpenWeather: no city named "Atlantis" is known (HTTP 404)"#)
            #expect(fake.requests.count == 1)
        }
    }

    @Test func theAPIKeyNeverAppearsInAnError() async throws {
        try await Self.withFake { fake, client in
            fake.setTemperature(10, for: "Oslo")
            let key = "k3y/with+odd=chars"
            let weather = try OpenWeatherClient(baseURL: fake.baseURL, apiKey: key, httpClient: client, options: Self.fast)
            // The fake refuses the key (it expects another): OpenWeather's 401, not retried.
            let refused = try await Self.failure { _ = try await weather.currentTemperature(city: "Oslo") }
            #expect(refused.status == 401 && refused.message.contains("refused the API key"))
            #expect(fake.requests.count == 1 && fake.requests[0].query["appid"] == key)

            // A failure whose text quotes the request (query and key included) is quoted without the key.
            let good = try OpenWeatherClient(baseURL: fake.baseURL, apiKey: fake.openWeatherKey, httpClient: client, options: Self.fast)
            fake.failNext(1, status: 400)
            let quoted = try await Self.failure { _ = try await good.currentTemperature(city: "Oslo") }
            #expect(quoted.status == 400)
            #expect(quoted.message.contains("appid=<redacted>"), "\(quoted)")
            #expect(!quoted.description.contains(fake.openWeatherKey))
            for error in [refused, quoted] {
                #expect(!"\(error)".contains(key) && !"\(error)".contains("k3y%2Fwith%2Bodd%3Dchars"))
            }
        }
    }

    // MARK: Doubles

    @Test func theInMemoryDoublesBehaveLikeTheClients() async throws {
        let geocoder = FixedGeocoder(["Alexanderplatz, Berlin": GeocodedPlace(latitude: 52.52, longitude: 13.41, city: "Berlin")])
        #expect(try await geocoder.geocode(" alexanderplatz, berlin ")?.city == "Berlin")
        #expect(try await geocoder.geocode("Mars") == nil)
        geocoder.down = true
        #expect(try await Self.failure { _ = try await geocoder.geocode("Alexanderplatz, Berlin") }.status == 503)
        #expect(geocoder.queries.count == 3)

        let home = MemorySmartHome(["Heating_L1": "OFF"])
        #expect(try await home.state(of: "Heating_L1") == "OFF")
        try await home.send("ON", to: "Heating_L1")
        #expect(try await home.state(of: "Heating_L1") == "ON")
        #expect(home.commands == [SmartHomeCommand(item: "Heating_L1", command: "ON")])
        #expect(try await Self.failure { _ = try await home.state(of: "Nope") }.isNotFound)
        await #expect(throws: OutsideServiceError.self) { try await home.send("ON", to: "bad name") }
        home.down = true
        #expect(try await Self.failure { try await home.send("OFF", to: "Heating_L1") }.status == 503)
        #expect(home.commands.count == 1 && home.items == ["Heating_L1": "ON"])

        let weather = FixedWeather(["Berlin": 4.5])
        #expect(try await weather.currentTemperature(city: "berlin") == 4.5)
        #expect(try await Self.failure { _ = try await weather.currentTemperature(city: "Atlantis") }.isNotFound)
        weather.set(-1, for: "Atlantis")
        #expect(try await weather.currentTemperature(city: "Atlantis") == -1)
        weather.down = true
        #expect(try await Self.failure { _ = try await weather.currentTemperature(city: "Berlin") }.status == 503)
    }

    @Test func theFakeServerStartsAgainAfterStop() async throws {
        let fake = FakeOutsideServer()
        let first = try await fake.start()
        await fake.stop()
        await fake.stop()
        let second = try await fake.start(port: first)
        #expect(second == first)
        fake.setTemperature(1, for: "Bergen")
        let weather = try OpenWeatherClient(baseURL: fake.baseURL, apiKey: fake.openWeatherKey, httpClient: HTTPClient.shared)
        #expect(try await weather.currentTemperature(city: "Bergen") == 1)
        await fake.stop()
    }

    // MARK: In functions

    static func advice(_ body: String) throws -> Advice {
        struct Answer: Decodable { var result: Advice }
        return try JSONDecoder().decode(Answer.self, from: Data(body.utf8)).result
    }

    struct Advice: Codable, Sendable, Equatable {
        var city: String?
        var celsius: Double
        var heating: String
    }

    /// A callable that geocodes an address, asks the weather there and switches the heating: what the Stays
    /// app's functions do.
    static func heatingFunctions() throws -> Functions {
        var functions = Functions()
        try functions.callable("heat") { (address: String, _, context) -> Advice in
            let place = try await context.services.requireGeocoder().geocode(address)
            let city = place?.city ?? "Berlin"
            let celsius = try await context.services.requireWeather().currentTemperature(city: city)
            let command = celsius < 15 ? "ON" : "OFF"
            try await context.services.requireSmartHome().send(command, to: "Heating_L1")
            return Advice(city: place?.city, celsius: celsius, heating: command)
        }
        try functions.callable("configured") { (_: JSONValue, _, context) -> JSONValue in
            .object([
                JSONMember("geocoder", .bool(context.services.geocoder != nil)), JSONMember("smartHome", .bool(context.services.smartHome != nil)),
                JSONMember("weather", .bool(context.services.weather != nil)),
            ])
        }
        return functions
    }

    static func call(_ port: Int, _ name: String, _ data: String) async throws -> (status: UInt, body: String) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/functions/\(name)")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: #"{"data":\#(data)}"#))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(20))
        return (response.status.code, String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    static func withServer(_ services: OutsideServices, _ body: (Int) async throws -> Void) async throws {
        let server = LiveServer(stores: MemoryStoreFactory(), functions: try heatingFunctions(), outsideServices: services)
        let port = try await server.start()
        do {
            try await body(port)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func functionsReachTheDoublesAsContextServices() async throws {
        let home = MemorySmartHome(["Heating_L1": "OFF"])
        let services = OutsideServices(
            geocoder: FixedGeocoder(["Hauptstraße 1, Hamburg": GeocodedPlace(latitude: 53.55, longitude: 9.99, city: "Hamburg")]),
            smartHome: home, weather: FixedWeather(["Hamburg": 6, "Berlin": 21]))
        try await Self.withServer(services) { port in
            var r = try await Self.call(port, "heat", #""Hauptstraße 1, Hamburg""#)
            #expect(r.status == 200)
            #expect(try Self.advice(r.body) == Advice(city: "Hamburg", celsius: 6, heating: "ON"), "\(r.body)")
            r = try await Self.call(port, "heat", #""Unknown Road""#)
            #expect(try Self.advice(r.body) == Advice(city: nil, celsius: 21, heating: "OFF"), "\(r.body)")
            #expect(home.commands.map(\.command) == ["ON", "OFF"])
        }
        // Nothing configured: every service is nil, and a function that needs one fails.
        try await Self.withServer(OutsideServices()) { port in
            let r = try await Self.call(port, "configured", "null")
            let result = try JSONValue.parse(Array(r.body.utf8))["result"]
            #expect(result?["geocoder"] == .bool(false) && result?["smartHome"] == .bool(false) && result?["weather"] == .bool(false), "\(r.body)")
            #expect(try await Self.call(port, "heat", #""x""#).status == 500)
        }
    }

    @Test func aConfiguredServerMakesHTTPClientsForItsFunctions() async throws {
        try await Self.withFake { fake, _ in
            fake.setPlace(GeocodedPlace(latitude: 48.14, longitude: 11.58, city: "München"), for: "Marienplatz")
            fake.setTemperature(18.5, for: "München")
            fake.setItem("Heating_L1", state: "ON")
            let configuration = OutsideServicesConfiguration(
                nominatim: .init(baseURL: fake.baseURL, userAgent: "StaysBackend/1"),
                openHAB: .init(baseURL: fake.baseURL, token: fake.openHABToken),
                openWeather: .init(baseURL: fake.baseURL, apiKey: fake.openWeatherKey))
            #expect(!"\(configuration)".contains(fake.openWeatherKey) && !"\(configuration)".contains(fake.openHABToken!))
            try await Self.withServer(OutsideServices(configuration: configuration)) { port in
                let r = try await Self.call(port, "heat", #""Marienplatz""#)
                #expect(try Self.advice(r.body) == Advice(city: "München", celsius: 18.5, heating: "OFF"), "\(r.body)")
                #expect(fake.itemState("Heating_L1") == "OFF")
                #expect(fake.requests.map(\.path) == ["/search", "/data/2.5/weather", "/rest/items/Heating_L1"])
            }
        }
    }
}
