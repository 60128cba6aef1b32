import Foundation
import HTTPTypes
import HearthAuth
import HearthCore
import HearthFunctions
import HearthWire
import Logging

/// The app's original REST API (a Spring Boot server before), kept for the old client: same paths, bodies, status
/// codes and messages. Its bearer token is a Hearth ID token, and every read and write goes through the database
/// as the caller (`database.as(auth)`), so the rules apply exactly as for realtime clients, who see REST changes live.
extension Gifts {
    /// Logins become the email of a Hearth account under this domain (a reserved TLD: never mailed).
    static let loginDomain = "users.gifts.invalid"

    static func message(_ text: String, _ status: HTTPResponse.Status) -> HTTPFunctionResponse {
        .json(.object([JSONMember("message", .string(text))]), status: status)
    }

    static func failure(_ text: String, _ status: HTTPResponse.Status) -> HTTPFunctionError {
        HTTPFunctionError(status, message: text)
    }

    /// The caller, or a `401`.
    static func caller(_ context: HTTPFunctionContext) throws -> CallableAuth {
        guard let auth = context.auth else { throw RESTError(.unauthorized, "Unauthorized") }
        return auth
    }

    /// A JSON error the old client reads: `{"message": …}` with its status.
    struct RESTError: Error {
        var status: HTTPResponse.Status
        var message: String
        init(_ status: HTTPResponse.Status, _ message: String) {
            self.status = status
            self.message = message
        }
    }

    /// Runs `body`, answering a ``RESTError`` as the old server did.
    static func rest(_ body: @escaping @Sendable (HTTPFunctionRequest, HTTPFunctionContext) async throws -> HTTPFunctionResponse)
        -> Functions.HTTPHandler
    {
        { request, context in
            do {
                return try await body(request, context)
            } catch let error as RESTError {
                return message(error.message, error.status)
            }
        }
    }

    static func key(_ text: String?, _ what: String) throws -> String {
        guard let text, !text.isEmpty, text.utf8.count <= 128, (try? Key.validated(text)) != nil else {
            throw RESTError(.badRequest, "Invalid \(what)")
        }
        return text
    }

    struct Account: Sendable {
        var id: String
        var token: String
    }

    static func registerREST(in functions: inout Functions) throws {
        try functions.http(.post, "/api/v1/auth/register", rest { request, context in
            guard let body = try? request.json(), let login = body["login"]?.stringValue, let password = body["password"]?.stringValue,
                let first = body["firstName"]?.stringValue, let last = body["lastName"]?.stringValue
            else { throw RESTError(.badRequest, "login, password, firstName and lastName are required") }
            guard login.range(of: #"^[A-Za-z0-9._-]{3,64}$"#, options: .regularExpression) != nil else {
                throw RESTError(.badRequest, "A login is 3-64 letters, digits, '.', '_' or '-'")
            }
            guard let auth = context.function.auth else { throw RESTError(.serviceUnavailable, "Accounts are not enabled") }
            let displayName = "\(first) \(last)".trimmingCharacters(in: .whitespaces)
            let created: IdentityToolkit.SignUpResponse
            do {
                created = try await auth.signUp(
                    IdentityToolkit.SignUpRequest(
                        email: "\(login.lowercased())@\(loginDomain)", password: password, displayName: displayName, returnSecureToken: true),
                    privileged: false)
            } catch let error as AuthError where error.code == "EMAIL_EXISTS" {
                throw RESTError(.forbidden, "Login is already used!")
            } catch let error as AuthError {
                throw RESTError(.badRequest, error.code == "WEAK_PASSWORD" ? "The password is too weak" : "Invalid registration")
            }
            guard let uid = created.localId, let token = created.idToken else { throw RESTError(.internalServerError, "No account") }
            try await context.function.database.as(uid: uid).set(
                "/users/\(uid)",
                .object([
                    JSONMember("displayName", .string(displayName.isEmpty ? login : displayName)), JSONMember("firstName", .string(first)),
                    JSONMember("lastName", .string(last)),
                ]))
            return .json(accountJSON(id: uid, login: login, first: first, last: last, token: token))
        })

        try functions.http(.post, "/api/v1/auth/login", rest { request, context in
            guard let body = try? request.json(), let login = body["login"]?.stringValue, let password = body["password"]?.stringValue,
                let auth = context.function.auth
            else { throw RESTError(.forbidden, "Invalid login or password!") }
            let session: IdentityToolkit.SignInWithPasswordResponse
            do {
                session = try await auth.signInWithPassword(
                    IdentityToolkit.SignInWithPasswordRequest(email: "\(login.lowercased())@\(loginDomain)", password: password, returnSecureToken: true))
            } catch {
                // Wrong login, wrong password and too many attempts all read the same to the old client.
                throw RESTError(.forbidden, "Invalid login or password!")
            }
            guard let uid = session.localId, let token = session.idToken else { throw RESTError(.forbidden, "Invalid login or password!") }
            let profile = try await context.function.database.get("/users/\(uid)")
            return .json(
                accountJSON(
                    id: uid, login: login, first: profile["firstName"]?.stringValue ?? "", last: profile["lastName"]?.stringValue ?? "",
                    token: token))
        })

        try functions.http(.get, "/api/v1/user/{userId}/request", rest { _, context in
            let me = try caller(context)
            let owner = try key(context.params["userId"], "user id")
            let wishes = try await context.function.database.as(me).get("/wishes/\(owner)")
            guard case .object(let members) = wishes else { return .json(.array([])) }
            let sorted = members.sorted { ($0.value["createdAt"]?.doubleValue ?? 0, $0.key) < ($1.value["createdAt"]?.doubleValue ?? 0, $1.key) }
            return .json(.array(sorted.map { wishJSON(id: $0.key, $0.value) }))
        })

        try functions.http(.post, "/api/v1/user/{userId}/request", rest { request, context in
            let me = try caller(context)
            let owner = try key(context.params["userId"], "user id")
            guard owner == me.uid else { throw RESTError(.forbidden, "You can only add gifts to your own list!") }
            guard let body = try? request.json(), let name = body["name"]?.stringValue else { throw RESTError(.badRequest, "name is required") }
            var wish = [JSONMember("name", .string(name)), JSONMember("createdAt", .timestamp), JSONMember("received", .bool(false))]
            for field in ["description", "link"] { if let v = body[field]?.stringValue, !v.isEmpty { wish.append(JSONMember(field, .string(v))) } }
            if let price = body["price"], price != .null {
                guard price.doubleValue != nil else { throw RESTError(.badRequest, "price must be a number") }
                wish.append(JSONMember("price", price))
            }
            let id: String
            do {
                id = try await context.function.database.as(me).push("/wishes/\(owner)", .object(wish))
            } catch let error as PermissionDeniedError {
                _ = error
                throw RESTError(.badRequest, "Invalid gift (name 1-200 characters, an http(s) link, a price of at least 0)")
            }
            let stored = try await context.function.database.as(me).get("/wishes/\(owner)/\(id)")
            return .json(wishJSON(id: id, stored), status: .created)
        })

        try functions.http(.delete, "/api/v1/user/{userId}/request/{giftId}", rest { _, context in
            let me = try caller(context)
            let owner = try key(context.params["userId"], "user id")
            let gift = try key(context.params["giftId"], "gift id")
            guard owner == me.uid else { throw RESTError(.forbidden, "You can only delete your own gifts!") }
            guard try await context.function.database.get("/wishes/\(owner)/\(gift)") != .null else { throw RESTError(.notFound, "Gift not found!") }
            try await context.function.database.as(me).remove("/wishes/\(owner)/\(gift)")
            return HTTPFunctionResponse(status: .noContent)
        })

        try functions.http(.get, "/api/v1/user/{userId}/reservation", rest { _, context in
            let me = try caller(context)
            let user = try key(context.params["userId"], "user id")
            guard user == me.uid else { throw RESTError(.forbidden, "You can only list your own reservations!") }
            let entries = try await context.function.database.as(me).get("/userReservations/\(user)")
            guard case .object(let members) = entries else { return .json(.array([])) }
            let sorted = members.sorted { ($0.value["at"]?.doubleValue ?? 0, $0.key) < ($1.value["at"]?.doubleValue ?? 0, $1.key) }
            return .json(
                .array(
                    sorted.map { entry in
                        .object([
                            JSONMember("id", .string(entry.key)), JSONMember("giftId", entry.value["wishId"] ?? .null),
                            JSONMember("ownerId", entry.value["ownerId"] ?? .null), JSONMember("name", entry.value["wishName"] ?? .null),
                            JSONMember("ownerName", entry.value["ownerName"] ?? .null),
                        ])
                    }))
        })

        try functions.http(.patch, "/api/v1/user/{requesterId}/reserve/{giftId}", rest { request, context in
            let (me, owner, gift) = try reservationTarget(request, context)
            guard owner != me.uid else { throw RESTError(.forbidden, "You cannot reserve your own gift!") }
            let wish = try await context.function.database.get("/wishes/\(owner)/\(gift)")
            guard wish != .null else { throw RESTError(.notFound, "Gift not found!") }
            do {
                try await context.function.database.as(me).set(
                    "/reservations/\(owner)/\(gift)", .object([JSONMember("reserverId", .string(me.uid)), JSONMember("at", .timestamp)]))
            } catch is PermissionDeniedError {
                if try await context.function.database.get("/reservations/\(owner)/\(gift)") != .null {
                    throw RESTError(.conflict, "Gift is already reserved!")
                }
                throw RESTError(.forbidden, wish["received"] == .bool(true) ? "Gift was already received!" : "Forbidden")
            }
            return .json(wishJSON(id: gift, try await context.function.database.get("/wishes/\(owner)/\(gift)")))
        })

        try functions.http(.delete, "/api/v1/user/{requesterId}/reserve/{giftId}", rest { request, context in
            let (me, owner, gift) = try reservationTarget(request, context)
            let reservation = try await context.function.database.get("/reservations/\(owner)/\(gift)")
            guard reservation["reserverId"]?.stringValue == me.uid else { throw RESTError(.notFound, "Reservation not found!") }
            try await context.function.database.as(me).remove("/reservations/\(owner)/\(gift)")
            return HTTPFunctionResponse(status: .noContent)
        })

        try functions.http(.get, "/api/v1/gift/rating", rest { _, context in
            let me = try caller(context)
            let top = try await context.function.database.as(me).get("/topGifts")
            guard case .object(let members) = top else { return .json(.array([])) }
            let ranked = members.compactMap { m -> (String, Int64)? in
                guard let count = m.value["count"]?.int64, count > 0 else { return nil }
                return (m.value["name"]?.stringValue ?? m.key, count)
            }.sorted { ($0.1, $1.0) > ($1.1, $0.0) }
            return .json(.array(ranked.map { .object([JSONMember("name", .string($0.0)), JSONMember("count", .int($0.1))]) }))
        })

        try functions.http(.get, "/api/v1/openapi.json") { _, _ in
            HTTPFunctionResponse(status: .ok, headers: [.contentType: "application/json"], body: Array(openAPIDocument.utf8))
        }
    }

    /// The caller, the wish's owner and the wish of a reserve/cancel request; the caller must be `activeUserId`.
    static func reservationTarget(_ request: HTTPFunctionRequest, _ context: HTTPFunctionContext) throws -> (CallableAuth, String, String) {
        let me = try caller(context)
        let owner = try key(context.params["requesterId"], "user id")
        let gift = try key(context.params["giftId"], "gift id")
        guard let active = request.query["activeUserId"] else { throw RESTError(.badRequest, "activeUserId is required") }
        guard active == me.uid else { throw RESTError(.forbidden, "activeUserId must be the signed-in user") }
        return (me, owner, gift)
    }

    static func accountJSON(id: String, login: String, first: String, last: String, token: String) -> JSONValue {
        .object([
            JSONMember("id", .string(id)), JSONMember("login", .string(login)), JSONMember("firstName", .string(first)),
            JSONMember("lastName", .string(last)), JSONMember("token", .string(token)),
        ])
    }

    /// A wish as the REST API shows it: whether it is reserved, never by whom.
    static func wishJSON(id: String, _ wish: JSONValue) -> JSONValue {
        .object([
            JSONMember("id", .string(id)), JSONMember("name", wish["name"] ?? .string("")), JSONMember("description", wish["description"] ?? .null),
            JSONMember("link", wish["link"] ?? .null), JSONMember("price", wish["price"] ?? .null),
            JSONMember("received", wish["received"] ?? .bool(false)), JSONMember("reserved", wish["reserved"] ?? .bool(false)),
        ])
    }
}
