import Foundation
/// Public: The doubles conform to HearthFunctions' service protocols.
public import HearthFunctions
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

// MARK: In-memory doubles

/// A command a smart-home double received.
public struct SmartHomeCommand: Sendable, Hashable, CustomStringConvertible {
    /// The item it was sent to.
    public var item: String
    /// What was sent (`"ON"`, `"OFF"`, …).
    public var command: String

    /// A command sent to `item`.
    public init(item: String, command: String) {
        self.item = item
        self.command = command
    }

    /// `Heating_L1 ← ON`.
    public var description: String { "\(item) ← \(command)" }
}

/// A ``Geocoder`` that knows a fixed set of addresses (matched ignoring case and surrounding spaces):
/// `FixedGeocoder(["Alexanderplatz, Berlin": GeocodedPlace(latitude: 52.52, longitude: 13.41, city: "Berlin")])`.
public final class FixedGeocoder: Geocoder {
    private struct State {
        var places: [String: GeocodedPlace]
        var down = false
        var queries: [String] = []
    }
    private let state: Mutex<State>

    /// A geocoder that finds the places given and nothing else.
    public init(_ places: [String: GeocodedPlace] = [:]) {
        state = Mutex(State(places: Dictionary(places.map { (Self.key($0.key), $0.value) }, uniquingKeysWith: { $1 })))
    }

    /// While true, every call throws ``OutsideServiceError`` (status 503), as a geocoder that is down.
    public var down: Bool {
        get { state.withLock { $0.down } }
        set { state.withLock { $0.down = newValue } }
    }

    /// The addresses asked for, in order (also while down).
    public var queries: [String] { state.withLock { $0.queries } }

    /// Makes `address` find `place` (nil: find nothing).
    public func set(_ place: GeocodedPlace?, for address: String) {
        state.withLock { $0.places[Self.key(address)] = place }
    }

    /// The place set for `address`, or nil.
    public func geocode(_ address: String) async throws -> GeocodedPlace? {
        try state.withLock { state in
            state.queries.append(address)
            if state.down { throw OutsideServiceError(service: "geocoder", message: "the geocoder is down (test double)", status: 503) }
            return state.places[Self.key(address)]
        }
    }

    private static func key(_ address: String) -> String { address.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() }
}

/// A ``SmartHomeClient`` whose items live in memory: a command sets the item's state to the command (as for an
/// openHAB switch) and is recorded. Unknown items fail with status 404, as with ``OpenHABClient``.
public final class MemorySmartHome: SmartHomeClient {
    private struct State {
        var items: [String: String]
        var down = false
        var commands: [SmartHomeCommand] = []
    }
    private let state: Mutex<State>

    /// A smart home with `items` (name → state), such as `["Heating_L1": "OFF"]`.
    public init(_ items: [String: String] = [:]) {
        state = Mutex(State(items: items))
    }

    /// While true, every call throws ``OutsideServiceError`` (status 503), as a smart home that is down.
    public var down: Bool {
        get { state.withLock { $0.down } }
        set { state.withLock { $0.down = newValue } }
    }

    /// Every command received, in order (not the ones refused).
    public var commands: [SmartHomeCommand] { state.withLock { $0.commands } }

    /// All items and their states.
    public var items: [String: String] { state.withLock { $0.items } }

    /// Sets (or adds) an item's state, as a switch flipped by hand.
    public func setState(_ value: String, of item: String) {
        state.withLock { $0.items[item] = value }
    }

    /// The item's state.
    public func state(of item: String) async throws -> String {
        try state.withLock { state in
            try Self.check(state, item)
            return state.items[item]!
        }
    }

    /// Records the command and makes it the item's state.
    public func send(_ command: String, to item: String) async throws {
        try state.withLock { state in
            try Self.check(state, item)
            state.items[item] = command
            state.commands.append(SmartHomeCommand(item: item, command: command))
        }
    }

    private static func check(_ state: State, _ item: String) throws {
        guard OpenHABClient.isValidItemName(item) else {
            throw OutsideServiceError(service: "smart home", message: "invalid item name \"\(item)\" (letters, digits and _ only)")
        }
        if state.down { throw OutsideServiceError(service: "smart home", message: "the smart home is down (test double)", status: 503) }
        guard state.items[item] != nil else { throw OutsideServiceError(service: "smart home", message: "no item named \(item)", status: 404) }
    }
}

/// A ``WeatherProvider`` with fixed temperatures (°C) by city, matched ignoring case: `FixedWeather(["Berlin": 4.5])`.
/// Unknown cities fail with status 404, as with ``OpenWeatherClient``.
public final class FixedWeather: WeatherProvider {
    private struct State {
        var temperatures: [String: Double]
        var down = false
        var queries: [String] = []
    }
    private let state: Mutex<State>

    /// Weather with these temperatures.
    public init(_ temperatures: [String: Double] = [:]) {
        state = Mutex(State(temperatures: Dictionary(temperatures.map { (Self.key($0.key), $0.value) }, uniquingKeysWith: { $1 })))
    }

    /// While true, every call throws ``OutsideServiceError`` (status 503), as a weather service that is down.
    public var down: Bool {
        get { state.withLock { $0.down } }
        set { state.withLock { $0.down = newValue } }
    }

    /// The cities asked for, in order (also while down).
    public var queries: [String] { state.withLock { $0.queries } }

    /// Sets a city's temperature (°C); nil makes it unknown.
    public func set(_ celsius: Double?, for city: String) {
        state.withLock { $0.temperatures[Self.key(city)] = celsius }
    }

    /// The temperature set for `city`.
    public func currentTemperature(city: String) async throws -> Double {
        try state.withLock { state in
            state.queries.append(city)
            if state.down { throw OutsideServiceError(service: "weather", message: "the weather service is down (test double)", status: 503) }
            guard let celsius = state.temperatures[Self.key(city)] else {
                throw OutsideServiceError(service: "weather", message: "no city named \"\(city)\" is known", status: 404)
            }
            return celsius
        }
    }

    private static func key(_ city: String) -> String { city.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() }
}

// MARK: Loopback HTTP server

/// One loopback HTTP server that speaks the three outside APIs the server's clients call, with state a test
/// controls: Nominatim's `GET /search`, openHAB's `GET /rest/items/{item}/state` and `POST /rest/items/{item}`,
/// and OpenWeather's `GET /data/2.5/weather`. Point a client (or `hearth serve --geocoder-url`, `--openhab-url`,
/// `--openweather-url`) at ``baseURL``.
///
/// ```swift
/// let fake = FakeOutsideServer()
/// let port = try await fake.start()
/// defer { Task { await fake.stop() } }      // or stop it at the end of the test
/// fake.setTemperature(3.5, for: "Berlin")
/// fake.setItem("Heating_L1", state: "OFF")
/// ```
///
/// It answers on SwiftNIO's event loops without Swift tasks, so a test that blocks threads of the concurrency
/// pool (waiting on a child process, say) cannot starve it, and ``stop()`` closes every connection at once,
/// answers still pending (``delay``) included.
public final class FakeOutsideServer: Sendable {
    /// A request the server received.
    public struct Request: Sendable, Hashable {
        /// `GET`, `POST`, …
        public var method: String
        /// The path without the query (`/rest/items/Lamp/state`).
        public var path: String
        /// The query's parameters, decoded.
        public var query: [String: String]
        /// The headers, names lowercased (the last value of a repeated one).
        public var headers: [String: String]
        /// The body as text.
        public var body: String
    }

    private struct Place {
        var place: GeocodedPlace
        var cityField: String
    }

    private struct State {
        var places: [String: Place] = [:]
        var items: [String: String] = [:]
        var temperatures: [String: Double] = [:]
        var geocoderDown = false
        var smartHomeDown = false
        var weatherDown = false
        var failNext = 0
        var failStatus = 503
        var delay: Duration?
        var requests: [Request] = []
        var commands: [SmartHomeCommand] = []
    }

    private let state = Mutex(State())
    private let channels = Mutex<(server: (any Channel)?, children: [ObjectIdentifier: any Channel], port: Int)>((nil, [:], 0))
    /// The token openHAB requests must carry as `Authorization: Bearer …`; nil accepts any request.
    public let openHABToken: String?
    /// The key OpenWeather requests must carry as `appid`.
    public let openWeatherKey: String

    /// A stopped server. Requests to openHAB must carry `openHABToken` (nil: none needed), OpenWeather's
    /// `openWeatherKey`.
    public init(openHABToken: String? = "openhab-test-token", openWeatherKey: String = "openweather-test-key") {
        self.openHABToken = openHABToken
        self.openWeatherKey = openWeatherKey
    }

    /// Starts listening on 127.0.0.1 (`port` 0: a free one) and returns the port.
    @discardableResult
    public func start(port: Int = 0) async throws -> Int {
        precondition(channels.withLock { $0.server } == nil, "already running")
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(FakeOutsideHandler(server: self))
                    let id = ObjectIdentifier(channel)
                    let open = channels.withLock { running -> Bool in
                        guard running.server != nil else { return false }
                        running.children[id] = channel
                        return true
                    }
                    // Accepted while stopping: close it at once.
                    if !open { channel.close(promise: nil) }
                    channel.closeFuture.whenComplete { [self] _ in _ = channels.withLock { $0.children.removeValue(forKey: id) } }
                }
            }
            .bind(host: "127.0.0.1", port: port).get()
        let bound = server.localAddress?.port ?? 0
        channels.withLock { $0 = (server, [:], bound) }
        return bound
    }

    /// Stops listening and closes every connection (pending answers are dropped); safe to call twice.
    public func stop() async {
        let (server, children) = channels.withLock { running -> ((any Channel)?, [any Channel]) in
            defer { running = (nil, [:], running.port) }
            return (running.server, Array(running.children.values))
        }
        try? await server?.close().get()
        for child in children { try? await child.close().get() }
    }

    /// The port it listens on (0 before ``start(port:)``).
    public var port: Int { channels.withLock { $0.port } }

    /// `http://127.0.0.1:<port>`: the base URL of all three APIs.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    // MARK: State

    /// Makes the search `query` (matched ignoring case and surrounding spaces) find `place`, its city written
    /// under `cityField` of Nominatim's `address` (`city`, `town`, `village` or `municipality`); nil finds nothing.
    public func setPlace(_ place: GeocodedPlace?, for query: String, cityField: String = "city") {
        state.withLock { $0.places[Self.key(query)] = place.map { Place(place: $0, cityField: cityField) } }
    }

    /// Sets (or adds) an openHAB item's state.
    public func setItem(_ item: String, state value: String) {
        state.withLock { $0.items[item] = value }
    }

    /// An openHAB item's state (nil: no such item).
    public func itemState(_ item: String) -> String? { state.withLock { $0.items[item] } }

    /// Sets a city's temperature (°C; matched ignoring case); nil makes it unknown (404).
    public func setTemperature(_ celsius: Double?, for city: String) {
        state.withLock { $0.temperatures[Self.key(city)] = celsius }
    }

    /// While true, the geocoder answers 503.
    public var geocoderDown: Bool {
        get { state.withLock { $0.geocoderDown } }
        set { state.withLock { $0.geocoderDown = newValue } }
    }

    /// While true, openHAB answers 503.
    public var smartHomeDown: Bool {
        get { state.withLock { $0.smartHomeDown } }
        set { state.withLock { $0.smartHomeDown = newValue } }
    }

    /// While true, OpenWeather answers 503.
    public var weatherDown: Bool {
        get { state.withLock { $0.weatherDown } }
        set { state.withLock { $0.weatherDown = newValue } }
    }

    /// How long every answer waits (nil: none), to make a client time out; ``stop()`` drops waiting answers.
    public var delay: Duration? {
        get { state.withLock { $0.delay } }
        set { state.withLock { $0.delay = newValue } }
    }

    /// Makes the next `count` requests, whatever their API, fail with `status` (then it answers normally again); the
    /// failure's text names the request with its query, as many servers and proxies do.
    public func failNext(_ count: Int, status: Int = 503) {
        state.withLock {
            $0.failNext = count
            $0.failStatus = status
        }
    }

    /// Every request received, in order.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// The requests whose path starts with `prefix` (`/search`, `/rest/items`, `/data/2.5/weather`).
    public func requests(to prefix: String) -> [Request] { requests.filter { $0.path.hasPrefix(prefix) } }

    /// The openHAB commands accepted, in order.
    public var commands: [SmartHomeCommand] { state.withLock { $0.commands } }

    /// Forgets the requests and commands received.
    public func clearRequests() {
        state.withLock {
            $0.requests = []
            $0.commands = []
        }
    }

    private static func key(_ text: String) -> String { text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() }

    // MARK: Answers

    struct Answer {
        var status: HTTPResponseStatus
        var contentType: String
        var body: [UInt8]

        static func json(_ status: HTTPResponseStatus, _ value: some Encodable) -> Answer {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return Answer(status: status, contentType: "application/json", body: Array((try? encoder.encode(value)) ?? Data("{}".utf8)))
        }

        static func text(_ status: HTTPResponseStatus, _ text: String) -> Answer {
            Answer(status: status, contentType: "text/plain; charset=UTF-8", body: Array(text.utf8))
        }
    }

    /// What to answer to a request, and after how long.
    func answer(_ head: HTTPRequestHead, body: [UInt8]) -> (Answer, Duration?) {
        let parts = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let rawPath = String(parts[0])
        let path = rawPath.removingPercentEncoding ?? rawPath
        var query: [String: String] = [:]
        if parts.count > 1 {
            for pair in parts[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                    let spaced = $0.replacingOccurrences(of: "+", with: " ")
                    return spaced.removingPercentEncoding ?? spaced
                }
                query[kv[0]] = kv.count > 1 ? kv[1] : ""
            }
        }
        var headers: [String: String] = [:]
        for (name, value) in head.headers { headers[name.lowercased()] = value }
        let request = Request(method: head.method.rawValue, path: path, query: query, headers: headers, body: String(decoding: body, as: UTF8.self))
        return state.withLock { state in
            state.requests.append(request)
            if state.failNext > 0 {
                state.failNext -= 1
                let status = HTTPResponseStatus(statusCode: state.failStatus)
                // As many servers and proxies do, the failure names the request, query included.
                return (.text(status, "\(status.reasonPhrase) (\(head.method.rawValue) \(head.uri))"), state.delay)
            }
            return (route(request, uri: head.uri, &state), state.delay)
        }
    }

    private func route(_ request: Request, uri: String, _ state: inout State) -> Answer {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        switch (request.method, segments.first) {
        case ("GET", "search") where segments.count == 1: return geocode(request, &state)
        case (_, "rest") where segments.count >= 3 && segments[1] == "items": return openHAB(request, segments, &state)
        case ("GET", "data") where segments == ["data", "2.5", "weather"]: return weather(request, &state)
        default: return .text(.notFound, "No route for \(request.method) \(uri)")
        }
    }

    private struct NominatimResult: Encodable {
        var place_id: Int
        var lat: String
        var lon: String
        var display_name: String?
        var address: [String: String]
    }

    private func geocode(_ request: Request, _ state: inout State) -> Answer {
        if state.geocoderDown { return .text(.serviceUnavailable, "Service Unavailable") }
        // Nominatim refuses clients that do not say who they are.
        guard let agent = request.headers["user-agent"], !agent.isEmpty else { return .text(.forbidden, "Access blocked: no User-Agent") }
        guard request.query["format"] == "jsonv2" else { return .json(.badRequest, ["error": ["code": "400", "message": "format must be jsonv2"]]) }
        guard let q = request.query["q"], !q.isEmpty else { return .json(.badRequest, ["error": ["code": "400", "message": "Nothing to search for."]]) }
        guard let found = state.places[Self.key(q)] else { return .json(.ok, [NominatimResult]()) }
        var address: [String: String] = ["country": "Testland", "country_code": "tl"]
        if let city = found.place.city { address[found.cityField] = city }
        let result = NominatimResult(
            place_id: 1, lat: String(found.place.latitude), lon: String(found.place.longitude), display_name: found.place.displayName, address: address)
        return .json(.ok, [result])
    }

    private func openHAB(_ request: Request, _ segments: [String], _ state: inout State) -> Answer {
        if let openHABToken, request.headers["authorization"] != "Bearer \(openHABToken)" {
            return .json(.unauthorized, ["error": ["message": "Authentication required"]])
        }
        if state.smartHomeDown { return .text(.serviceUnavailable, "Service Unavailable") }
        let item = segments[2]
        guard let current = state.items[item] else { return .json(.notFound, ["error": ["message": "Item \(item) does not exist!"]]) }
        switch (request.method, segments.count) {
        case ("GET", 4) where segments[3] == "state":
            return .text(.ok, current)
        case ("POST", 3):
            guard request.headers["content-type"]?.hasPrefix("text/plain") == true else {
                return .json(.unsupportedMediaType, ["error": ["message": "Commands are text/plain"]])
            }
            let command = request.body.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !command.isEmpty else { return .json(.badRequest, ["error": ["message": "Command is empty"]]) }
            state.items[item] = command
            state.commands.append(SmartHomeCommand(item: item, command: command))
            return Answer(status: .ok, contentType: "text/plain", body: [])
        default:
            return .text(.methodNotAllowed, "Method Not Allowed")
        }
    }

    private struct WeatherAnswer: Encodable {
        struct Main: Encodable { var temp: Double }
        var main: Main
        var name: String
        var cod: Int
    }

    private func weather(_ request: Request, _ state: inout State) -> Answer {
        guard request.query["appid"] == openWeatherKey else {
            return .json(.unauthorized, ["cod": "401", "message": "Invalid API key. Please see https://openweathermap.org/faq#error401 for more info."])
        }
        if state.weatherDown { return .text(.serviceUnavailable, "Service Unavailable") }
        guard let city = request.query["q"], let celsius = state.temperatures[Self.key(city)] else {
            return .json(.notFound, ["cod": "404", "message": "city not found"])
        }
        // OpenWeather answers in kelvin unless asked for metric (or imperial) units.
        let temperature: Double =
            switch request.query["units"] {
            case "metric": celsius
            case "imperial": celsius * 9 / 5 + 32
            default: celsius + 273.15
            }
        return .json(.ok, WeatherAnswer(main: .init(temp: temperature), name: city, cod: 200))
    }
}

/// Reads one request at a time and writes the fake's answer, on the channel's event loop.
private final class FakeOutsideHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let server: FakeOutsideServer
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var pending: Scheduled<Void>?

    init(server: FakeOutsideServer) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
        case .body(var buffer):
            if body.count < 1 << 20 { body += buffer.readBytes(length: buffer.readableBytes) ?? [] }
        case .end:
            guard let head else { return }
            self.head = nil
            let (answer, delay) = server.answer(head, body: body)
            if let delay {
                let (seconds, attoseconds) = delay.components
                let wait = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
                pending = context.eventLoop.assumeIsolated().scheduleTask(in: wait) {
                    self.pending = nil
                    self.write(answer, keepAlive: head.isKeepAlive, context: context)
                }
            } else {
                write(answer, keepAlive: head.isKeepAlive, context: context)
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        pending?.cancel()
        pending = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        pending?.cancel()
        pending = nil
    }

    private func write(_ answer: FakeOutsideServer.Answer, keepAlive: Bool, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: answer.contentType)
        headers.add(name: "Content-Length", value: "\(answer.body.count)")
        headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: answer.status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: answer.body)))), promise: nil)
        if keepAlive {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        } else {
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }
}
