import Foundation
import HearthCore
import HearthFunctions
import HearthDatabase
import HearthStore
import HearthWire
import Hummingbird
import Logging
import NIOCore

extension FunctionsRuntime {
    static let adminPrefix = "/.hearth/functions"

    /// Answers callable functions, HTTP functions and the functions admin API; nil when the request
    /// is for none of them.
    func respond(to request: Request, controller: DatabaseController) async -> Response? {
        let path = request.uri.path
        if path.hasPrefix(Self.adminPrefix) { return await admin(request, controller: controller) }
        // Database REST paths end in `.json`: only an HTTP function registered with that very suffix takes one.
        let json = path.hasUTF8Suffix(".json")
        if json && !functions.hasJSONRoutes { return nil }
        if !json, let name = callableName(path) {
            if let entry = functions.callables[name] { return await call(entry, request, controller: controller) }
            if path.hasPrefix("/functions/") { return Self.callableError(CallableError(.notFound, "Function not found: \(name)")) }
        }
        guard !functions.routes.isEmpty else { return nil }
        let keys = Path(json ? String(path.dropLast(5)) : path)
        for route in functions.routes where route.jsonSuffix == json {
            guard route.method == request.method, let params = route.pattern.match(keys) else { continue }
            let context = HTTPFunctionContext(
                params: params, auth: verifiedCaller(request, controller: controller), isAdmin: isAdmin(request, controller: controller),
                function: context(for: "\(route.method.rawValue) \(route.pattern)", database: controller.service))
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: controller.configuration.maxBodyBytes)
            } catch {
                return Self.plain(.contentTooLarge, "The request body is over \(controller.configuration.maxBodyBytes) bytes")
            }
            let input = HTTPFunctionRequest(
                method: request.method, path: path, query: parseQueryString(request.uri.query), headers: request.headers,
                body: Array(body.readableBytesView))
            let name = "\(route.method.rawValue) \(route.pattern)\(route.jsonSuffix ? ".json" : "")"
            return await runs.timed(name, trigger: "\(request.method.rawValue) \(path)", clock: clock) { () -> (Response, FunctionRun.Outcome?, String?) in
                do {
                    let output = try await route.handler(input, context)
                    let failed = output.status.code >= 500
                    return (
                        Response(status: output.status, headers: output.headers, body: .init(byteBuffer: ByteBuffer(bytes: output.body))),
                        failed ? .error : .ok, failed ? "HTTP \(output.status.code)" : nil
                    )
                } catch let error as HTTPFunctionError {
                    let message = error.message ?? error.status.reasonPhrase
                    return (Self.plain(error.status, message), .error, "HTTP \(error.status.code): \(message)")
                } catch let error as PermissionDeniedError {
                    // The rules refused what the function did as its caller (`database.as(auth)`): the caller's fault.
                    context.function.logger.info("HTTP function refused by the rules", metadata: ["hearth.error": "\(error)"])
                    let refused = error.httpError()
                    return (Self.plain(refused.status, refused.message ?? refused.status.reasonPhrase), .error, "\(error)")
                } catch {
                    context.function.logger.error("HTTP function failed", metadata: ["hearth.error": "\(error)"])
                    return (Self.plain(.internalServerError, "Internal Server Error"), .error, "\(error)")
                }
            }.0
        }
        return nil
    }

    /// Whether `respond` may answer a request for this path and method (the checks it makes before reading the
    /// request): false means it returns nil.
    func mayRespond(path: String, method: HTTPRequest.Method) -> Bool {
        if path.hasPrefix(Self.adminPrefix) { return true }
        let json = path.hasUTF8Suffix(".json")
        if !json, callableName(path) != nil { return true }
        // A `….json` path is the database's unless an HTTP function was registered with that suffix.
        if json && !functions.hasJSONRoutes { return false }
        let keys = Path(json ? String(path.dropLast(5)) : path)
        return functions.routes.contains { $0.jsonSuffix == json && $0.method == method && $0.pattern.match(keys) != nil }
    }

    /// `/functions/NAME`, or the emulator's `/PROJECT/REGION/NAME`.
    private func callableName(_ path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        if parts.count == 2, parts.first == "functions" { return String(parts.last!) }
        if parts.count == 3, parts.first.map(String.init) == defaultNamespace, Self.isRegion(parts[parts.startIndex + 1]) {
            return String(parts.last!)
        }
        return nil
    }

    /// `us-central1`, `europe-west3`: lower-case words, a dash, a word ending in a digit.
    private static func isRegion(_ s: Substring) -> Bool {
        guard let dash = s.firstIndex(of: "-"), dash != s.startIndex, let last = s.last, last.isNumber else { return false }
        return s.allSatisfy { $0 == "-" || ($0.isASCII && ($0.isLowercase || $0.isNumber)) }
    }

    private func verifiedCaller(_ request: Request, controller: DatabaseController) -> CallableAuth? {
        guard let token = request.authorizationToken(), !controller.authenticator.isAdmin(token),
            let auth = try? controller.authenticator.user(token), let uid = auth["uid"]?.stringValue
        else { return nil }
        return CallableAuth(uid: uid, token: auth["token"] ?? .object([]))
    }

    private func isAdmin(_ request: Request, controller: DatabaseController) -> Bool {
        controller.authenticator.isAdmin(request.authorizationToken())
    }

    // MARK: Callable protocol

    private static let corsHeaders: HTTPFields = [
        .accessControlAllowOrigin: "*",
        .accessControlAllowMethods: "POST, OPTIONS",
        .accessControlAllowHeaders: "Authorization, Content-Type, X-Firebase-AppCheck, X-Firebase-Instance-ID-Token, X-Client-Version, X-Firebase-GMPID",
        .accessControlMaxAge: "3600",
    ]

    private func call(_ entry: Functions.CallableEntry, _ request: Request, controller: DatabaseController) async -> Response {
        if request.method == .options { return Response(status: .noContent, headers: Self.corsHeaders) }
        // As Firebase: POST with a JSON body whose top level has `data`, or 400 "Bad Request".
        let contentType = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard request.method == .post, contentType == "application/json" else {
            return Self.callableError(CallableError(.invalidArgument, "Bad Request"))
        }
        let data: JSONValue
        do {
            let buffer = try await request.body.collect(upTo: controller.configuration.maxBodyBytes)
            guard let value = try JSONValue.parse(Array(buffer.readableBytesView))["data"] else {
                return Self.callableError(CallableError(.invalidArgument, "Bad Request"))
            }
            data = value
        } catch {
            return Self.callableError(CallableError(.invalidArgument, "Bad Request"))
        }
        var auth: CallableAuth?
        if request.authorizationToken() != nil {
            // A token that is present but invalid is refused, as Firebase does (an absent one is fine).
            guard let caller = verifiedCaller(request, controller: controller) else {
                return Self.callableError(CallableError(.unauthenticated, "Unauthenticated"))
            }
            auth = caller
        }
        let context = context(for: entry.name, database: controller.service)
        return await runs.timed(entry.name, trigger: "POST \(request.uri.path)", clock: clock) { () -> (Response, FunctionRun.Outcome?, String?) in
            do {
                let result = try await entry.handler(data, CallableRequest(auth: auth, headers: request.headers), context)
                return (Self.json(.object([JSONMember("result", result)]), status: .ok), .ok, nil)
            } catch let error as CallableError {
                return (Self.callableError(error), .error, "\(error.code): \(error.message)")
            } catch let error as PermissionDeniedError {
                return (Self.callableError(error.callableError), .error, "\(error)")
            } catch {
                // Never leak an unexpected error's text to the caller; it is in the log (and the admin's run log).
                context.logger.error("callable function failed", metadata: ["hearth.error": "\(error)"])
                return (Self.callableError(CallableError(.internal, "INTERNAL")), .error, "\(error)")
            }
        }.0
    }

    private static func callableError(_ error: CallableError) -> Response {
        json(error.body, status: HTTPResponse.Status(code: error.code.httpStatus))
    }

    static func json(_ value: JSONValue, status: HTTPResponse.Status) -> Response {
        var headers = corsHeaders
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: value.jsonBytes)))
    }

    private static func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    // MARK: Admin API (dead letters; the list and "run now" are in FunctionsHTTP+Console)

    /// `GET /.hearth/functions/deadLetters[?queue=…&after=…]` lists dead letters;
    /// `POST /.hearth/functions/deadLetters/QUEUE/ID:retry` makes one live again; `GET /.hearth/functions` and
    /// `POST /.hearth/functions/schedules/NAME:run` are ``console(_:rest:controller:)``'s. Admin only.
    private func admin(_ request: Request, controller: DatabaseController) async -> Response {
        guard isAdmin(request, controller: controller) else {
            return Self.json(.object([JSONMember("error", .string("Unauthorized: the functions API needs the admin credential"))]), status: .unauthorized)
        }
        let rest = request.uri.path.dropFirst(Self.adminPrefix.count)
        do {
            if rest == "/deadLetters" || rest == "/deadLetters/", request.method == .get {
                let parameters = parseQueryString(request.uri.query)
                let after = parameters["after"].flatMap { Int64($0) } ?? 0
                let limit = min(1000, max(1, parameters["limit"].flatMap { Int($0) } ?? 100))
                var items: [JSONValue] = []
                for dispatcher in allDispatchers where parameters["queue"] == nil || parameters["queue"] == dispatcher.queue.name {
                    for event in try await dispatcher.queue.dead(after, limit) { items.append(Self.describe(event, queue: dispatcher.queue.name)) }
                }
                return Self.json(.object([JSONMember("deadLetters", .array(items))]), status: .ok)
            }
            if rest.hasPrefix("/deadLetters/"), rest.hasSuffix(":retry"), request.method == .post {
                let spec = rest.dropFirst("/deadLetters/".count).dropLast(":retry".count)
                guard let slash = spec.lastIndex(of: "/"), let id = Int64(spec[spec.index(after: slash)...]),
                    let dispatcher = dispatcher(String(spec[..<slash]))
                else { return Self.json(.object([JSONMember("error", .string("No such queue or event id"))]), status: .notFound) }
                guard try await dispatcher.queue.revive(id, clock()) else {
                    return Self.json(.object([JSONMember("error", .string("No dead letter \(id) in \(dispatcher.queue.name)"))]), status: .notFound)
                }
                dispatcher.wake()
                return Self.json(.object([JSONMember("retried", .string("\(dispatcher.queue.name)/\(id)"))]), status: .ok)
            }
            if let answer = try await console(request, rest: rest, controller: controller) { return answer }
            return Self.json(.object([JSONMember("error", .string("Not found"))]), status: .notFound)
        } catch {
            logger.error("functions admin request failed", metadata: ["hearth.error": "\(error)"])
            return Self.json(.object([JSONMember("error", .string("Internal error"))]), status: .internalServerError)
        }
    }

    static func describe(_ event: OutboxEvent, queue: String) -> JSONValue {
        var members = [
            JSONMember("queue", .string(queue)), JSONMember("id", .string(String(event.id))), JSONMember("function", .string(event.function)),
            JSONMember("attempts", .int(Int64(event.attempts))), JSONMember("createdAt", .int(event.createdAt)),
        ]
        if let error = event.lastError { members.append(JSONMember("error", .string(error))) }
        members.append(JSONMember("payload", (try? JSONValue.parse(event.payload)) ?? .string(String(decoding: event.payload, as: UTF8.self))))
        return .object(members)
    }
}
