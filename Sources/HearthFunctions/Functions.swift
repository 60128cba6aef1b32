public import Foundation
public import HearthCore
import HearthDatabase
import HearthStore
import HearthWire
public import HTTPTypes

/// The server functions an app registers: database, auth and storage triggers, callable and plain
/// HTTP functions, and scheduled jobs. Run them with `HearthCommand.main(functions:)`, which takes
/// the same flags and data folder as `hearth serve`.
///
/// ```swift
/// var functions = Functions()
/// try functions.onValueCreated("/reservations/{id}") { event, context in
///     let reservation = try event.after(as: Reservation.self)
///     try await context.database.set("/chats/\(event.params["id"]!)", Chat(for: reservation), idempotencyKey: event.id)
/// }
/// try functions.callable("shake") { (input: ShakeInput, request, context) -> ShakeResult in … }
/// try functions.schedule("weather", "0 * * * *") { event, context in … }
/// ```
///
/// Triggers run after the change committed, with admin access, at least once: the event is written
/// to a durable outbox in the same transaction as the change, retried with backoff when the function
/// throws, and after ``RetryPolicy/maxAttempts`` failures kept as a dead letter for an admin. Pass
/// the event's ``DatabaseEvent/id`` as the idempotency key of the function's own writes to make its
/// effect happen exactly once.
public struct Functions: Sendable {
    /// Handles a database change.
    public typealias DatabaseHandler = @Sendable (DatabaseEvent, FunctionContext) async throws -> Void
    /// Handles an account created or deleted.
    public typealias UserHandler = @Sendable (UserEvent, FunctionContext) async throws -> Void
    /// Handles an object finalized or deleted.
    public typealias ObjectHandler = @Sendable (ObjectEvent, FunctionContext) async throws -> Void
    /// Runs a scheduled job.
    public typealias ScheduleHandler = @Sendable (ScheduledEvent, FunctionContext) async throws -> Void
    /// Answers a plain HTTP request.
    public typealias HTTPHandler = @Sendable (HTTPFunctionRequest, HTTPFunctionContext) async throws -> HTTPFunctionResponse

    struct DatabaseEntry: Sendable {
        var trigger: DatabaseTrigger
        var namespace: String?
        var retry: RetryPolicy
        var handler: DatabaseHandler
    }

    struct EventEntry<Handler: Sendable>: Sendable {
        var name: String
        var retry: RetryPolicy
        var handler: Handler
    }

    package struct CallableEntry: Sendable {
        package var name: String
        package var handler: @Sendable (JSONValue, CallableRequest, FunctionContext) async throws -> JSONValue
    }

    package struct RouteEntry: Sendable {
        package var method: HTTPRequest.Method
        package var pattern: PathPattern
        /// The route's path ends in `.json` (not part of `pattern`): it answers that path instead of the database's
        /// REST API.
        package var jsonSuffix = false
        package var handler: HTTPHandler
    }

    struct ScheduleEntry: Sendable {
        var name: String
        var schedule: Schedule
        var handler: ScheduleHandler
    }

    var database: [DatabaseEntry] = []
    var userCreated: [EventEntry<UserHandler>] = []
    var userDeleted: [EventEntry<UserHandler>] = []
    var objectFinalized: [EventEntry<ObjectHandler>] = []
    var objectDeleted: [EventEntry<ObjectHandler>] = []
    package var callables: [String: CallableEntry] = [:]
    package var routes: [RouteEntry] = []
    /// Whether a route ends in `.json`: without one, a `….json` request (every database REST call) is not looked at.
    package private(set) var hasJSONRoutes = false
    var schedules: [ScheduleEntry] = []
    /// The names of the scheduled jobs (their last ticks are the `schedule:<name>` settings of the namespace).
    package var scheduleNames: [String] { schedules.map(\.name) }
    private var names: Set<String> = []

    /// No functions yet; register them with the methods below.
    public init() {}

    /// Whether anything is registered.
    public var isEmpty: Bool {
        database.isEmpty && userCreated.isEmpty && userDeleted.isEmpty && objectFinalized.isEmpty && objectDeleted.isEmpty
            && callables.isEmpty && routes.isEmpty && schedules.isEmpty
    }

    /// Function names are how the outbox remembers what to run: unique, and stable across restarts.
    private mutating func claim(_ name: String) throws(FunctionsError) {
        guard !name.isEmpty, name.utf8.count <= 128, !name.contains(where: \.isNewline) else {
            throw FunctionsError("Function names are 1–128 characters without line breaks: \"\(name)\"")
        }
        guard names.insert(name).inserted else { throw FunctionsError("A function named \"\(name)\" is already registered") }
    }

    // MARK: Database triggers

    /// Runs `handler` when a location matching `pattern` comes into existence.
    /// - Parameters:
    ///   - pattern: `/reservations/{id}`: literal keys and `{name}` wildcards (captured in `params`).
    ///   - namespace: the database (default: the project's).
    ///   - name: the function's stable name (default: `onValueCreated:/reservations/{id}`).
    public mutating func onValueCreated(
        _ pattern: String, namespace: String? = nil, name: String? = nil, retry: RetryPolicy = .default,
        _ handler: @escaping DatabaseHandler
    ) throws(FunctionsError) {
        try addDatabase(.created, pattern, namespace: namespace, name: name, retry: retry, handler)
    }

    /// Runs `handler` when the value at a location matching `pattern` changes (and existed before and after).
    public mutating func onValueUpdated(
        _ pattern: String, namespace: String? = nil, name: String? = nil, retry: RetryPolicy = .default,
        _ handler: @escaping DatabaseHandler
    ) throws(FunctionsError) {
        try addDatabase(.updated, pattern, namespace: namespace, name: name, retry: retry, handler)
    }

    /// Runs `handler` when a location matching `pattern` is removed.
    public mutating func onValueDeleted(
        _ pattern: String, namespace: String? = nil, name: String? = nil, retry: RetryPolicy = .default,
        _ handler: @escaping DatabaseHandler
    ) throws(FunctionsError) {
        try addDatabase(.deleted, pattern, namespace: namespace, name: name, retry: retry, handler)
    }

    /// Runs `handler` on any change at a location matching `pattern`: created, updated or deleted.
    public mutating func onValueWritten(
        _ pattern: String, namespace: String? = nil, name: String? = nil, retry: RetryPolicy = .default,
        _ handler: @escaping DatabaseHandler
    ) throws(FunctionsError) {
        try addDatabase(.written, pattern, namespace: namespace, name: name, retry: retry, handler)
    }

    private mutating func addDatabase(
        _ change: ValueChange, _ pattern: String, namespace: String?, name: String?, retry: RetryPolicy,
        _ handler: @escaping DatabaseHandler
    ) throws(FunctionsError) {
        let parsed: PathPattern
        do {
            parsed = try PathPattern(pattern)
        } catch {
            throw FunctionsError(error.message)
        }
        guard parsed.depth > 0 else { throw FunctionsError("A database trigger watches a location below the root, not \"/\"") }
        if let namespace, !NamespaceRegistry.isValid(namespace) {
            throw FunctionsError("Invalid namespace \"\(namespace)\"")
        }
        let kind = "onValue" + change.rawValue.prefix(1).uppercased() + change.rawValue.dropFirst()
        let functionName = name ?? "\(kind):\(namespace.map { $0 + ":" } ?? "")\(parsed)"
        try claim(functionName)
        database.append(
            DatabaseEntry(
                trigger: DatabaseTrigger(function: functionName, pattern: parsed, change: change), namespace: namespace, retry: retry,
                handler: handler))
    }

    // MARK: Auth and storage triggers

    /// Runs `handler` after an account is created (sign-up, first sign-in with phone, custom token or
    /// email link, admin create or import).
    public mutating func onUserCreated(name: String = "onUserCreated", retry: RetryPolicy = .default, _ handler: @escaping UserHandler)
        throws(FunctionsError)
    {
        try claim(name)
        userCreated.append(EventEntry(name: name, retry: retry, handler: handler))
    }

    /// Runs `handler` after an account is deleted.
    public mutating func onUserDeleted(name: String = "onUserDeleted", retry: RetryPolicy = .default, _ handler: @escaping UserHandler)
        throws(FunctionsError)
    {
        try claim(name)
        userDeleted.append(EventEntry(name: name, retry: retry, handler: handler))
    }

    /// Runs `handler` after an object's upload (or copy) completes and it is readable.
    public mutating func onObjectFinalized(
        name: String = "onObjectFinalized", retry: RetryPolicy = .default, _ handler: @escaping ObjectHandler
    ) throws(FunctionsError) {
        try claim(name)
        objectFinalized.append(EventEntry(name: name, retry: retry, handler: handler))
    }

    /// Runs `handler` after an object is deleted (or replaced by a new upload: then
    /// `onObjectFinalized` follows for the new one, as in Cloud Storage).
    public mutating func onObjectDeleted(
        name: String = "onObjectDeleted", retry: RetryPolicy = .default, _ handler: @escaping ObjectHandler
    ) throws(FunctionsError) {
        try claim(name)
        objectDeleted.append(EventEntry(name: name, retry: retry, handler: handler))
    }

    // MARK: Callable and HTTP functions

    /// A callable function at `POST /functions/NAME` (and the emulator's `/PROJECT/REGION/NAME`),
    /// speaking Firebase's callable protocol: `{"data": …}` in, `{"result": …}` or
    /// `{"error": {"status", "message", "details"}}` out. Input that does not decode answers
    /// `INVALID_ARGUMENT`; throw ``CallableError`` for any other status. Other errors answer
    /// `INTERNAL` without their text (which is logged).
    public mutating func callable<Input: Decodable & Sendable, Output: Encodable & Sendable>(
        _ name: String,
        _ handler: @escaping @Sendable (Input, CallableRequest, FunctionContext) async throws -> Output
    ) throws(FunctionsError) {
        try Self.checkCallableName(name)
        try claim(name)
        callables[name] = CallableEntry(name: name) { data, request, context in
            let input: Input
            do {
                input = try FunctionCoding.decode(Input.self, from: data)
            } catch {
                throw CallableError(.invalidArgument, "The function's input is not valid: \(FunctionCoding.describe(error))")
            }
            let output = try await handler(input, request, context)
            return try FunctionCoding.encode(output)
        }
    }

    /// A callable function that takes and returns raw JSON (`data` and `result` as they are).
    public mutating func callable(
        _ name: String, _ handler: @escaping @Sendable (JSONValue, CallableRequest, FunctionContext) async throws -> JSONValue
    ) throws(FunctionsError) {
        try Self.checkCallableName(name)
        try claim(name)
        callables[name] = CallableEntry(name: name, handler: handler)
    }

    private static func checkCallableName(_ name: String) throws(FunctionsError) {
        guard !name.isEmpty, name.utf8.allSatisfy({ $0 == 0x2D || $0 == 0x5F || ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) })
        else { throw FunctionsError("Callable names are letters, digits, - and _: \"\(name)\"") }
    }

    /// A plain HTTP function at a custom route, e.g. `http(.get, "/hooks/weather/{station}")`. It
    /// answers before the database does for matching paths. `{name}` segments are captured in
    /// ``HTTPFunctionContext/params``.
    ///
    /// A path ending in `.json` (`/api/v1/openapi.json`) is answered by the function instead of the database's REST
    /// API, which reads every other `….json` path as a database location; its `.json` is not part of a `{name}`.
    public mutating func http(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping HTTPHandler) throws(FunctionsError) {
        let jsonSuffix = path.hasSuffix(".json")
        let pattern: PathPattern
        do {
            pattern = try PathPattern(jsonSuffix ? String(path.dropLast(5)) : path)
        } catch {
            throw FunctionsError(error.message)
        }
        guard pattern.depth > 0 else { throw FunctionsError("An HTTP function needs a path below \"/\"") }
        if jsonSuffix, path.dropLast(5).hasSuffix("}") {
            throw FunctionsError("A route ending in .json needs a literal last segment: \"\(path)\"")
        }
        try claim("\(method.rawValue) \(pattern)\(jsonSuffix ? ".json" : "")")
        routes.append(RouteEntry(method: method, pattern: pattern, jsonSuffix: jsonSuffix, handler: handler))
        if jsonSuffix { hasJSONRoutes = true }
    }

    // MARK: Scheduled jobs

    /// Runs `handler` on a cron schedule (`"0 * * * *"` = hourly), in `timeZone` (default UTC).
    /// One run of a job at a time; after downtime `missedRuns` decides (default: one catch-up run).
    /// See docs/scheduling.md for the syntax and the daylight-saving rules.
    public mutating func schedule(
        _ name: String, _ cron: String, timeZone: TimeZone = TimeZone(identifier: "UTC")!, missedRuns: MissedRunPolicy = .runOnce,
        _ handler: @escaping ScheduleHandler
    ) throws(FunctionsError) {
        let expression: CronExpression
        do {
            expression = try CronExpression(cron)
        } catch {
            throw FunctionsError("Schedule \"\(name)\": \(error)")
        }
        try claim(name)
        schedules.append(
            ScheduleEntry(name: name, schedule: Schedule(cron: expression, timeZone: timeZone, missedRuns: missedRuns), handler: handler))
    }
}

/// A function registration that cannot work (bad pattern, duplicate name, bad cron expression).
public struct FunctionsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, for the developer.
    public var message: String

    /// An error with `message`.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}

/// How often, and how far apart, a failing trigger is tried again.
public struct RetryPolicy: Sendable, Hashable {
    /// Runs in total before the event becomes a dead letter.
    public var maxAttempts: Int
    /// The wait after the first failure; it doubles after each further one.
    public var initialBackoff: Duration
    /// The longest wait between two attempts.
    public var maxBackoff: Duration

    /// A policy; `maxAttempts` is at least 1.
    public init(maxAttempts: Int, initialBackoff: Duration = .seconds(1), maxBackoff: Duration = .seconds(600)) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
    }

    /// 8 attempts, 1 s doubling to 10 minutes (about 2 minutes from first failure to dead letter).
    public static let `default` = RetryPolicy(maxAttempts: 8)
    /// Once; a failure goes straight to the dead letters.
    public static let never = RetryPolicy(maxAttempts: 1)

    /// Milliseconds to wait after `attempts` failed runs (1 = the first failure), with ±20 % jitter
    /// so that many failing events do not retry in lockstep.
    package func backoffMillis(afterAttempts attempts: Int) -> Int64 {
        let base = Double(initialBackoff.components.seconds) * 1000 + Double(initialBackoff.components.attoseconds) / 1e15
        let cap = Double(maxBackoff.components.seconds) * 1000 + Double(maxBackoff.components.attoseconds) / 1e15
        let wait = min(cap, base * pow(2, Double(min(attempts - 1, 40))))
        return Int64(wait * Double.random(in: 0.8...1.2))
    }
}
