import Foundation
import Hearth
import HearthCore
import HearthFunctions
import HearthWire
import HearthServer
import Testing

/// `app.functions.call`: Firebase's callable protocol from the SDK, as the signed-in user.
@Suite("SDK callable functions")
struct CloudFunctionsTests {
    struct Shake: Codable, Sendable {
        var context: String
    }

    struct Coins: Codable, Sendable, Equatable {
        var coins: Int
        var uid: String?
    }

    static func functions() throws -> Functions {
        var functions = Functions()
        try functions.callable("shake") { (input: Shake, request, _) -> Coins in
            guard !input.context.isEmpty else {
                throw CallableError(.invalidArgument, "context is empty", details: .object([JSONMember("field", .string("context"))]))
            }
            return Coins(coins: input.context.count, uid: request.auth?.uid)
        }
        return functions
    }

    @Test func callsCarryTheUsersTokenAndDecodeResultsAndErrors() async throws {
        try await withAuthStorageServer(functions: try Self.functions()) { server in
            let app = HearthApp(options: server.options())
            defer { Task { await app.close() } }
            // Signed out: no token, the function sees no caller.
            var result = try await app.functions.call("shake", Shake(context: "cafe"), returning: Coins.self)
            #expect(result == Coins(coins: 4, uid: nil))

            let user = try await app.auth.signInAnonymously()
            result = try await app.functions.call("shake", Shake(context: "ab"), returning: Coins.self)
            #expect(result == Coins(coins: 2, uid: user.uid))

            do {
                _ = try await app.functions.call("shake", Shake(context: ""), returning: Coins.self)
                Issue.record("expected an error")
            } catch let error as FunctionsCallError {
                #expect(error.code == .invalidArgument)
                #expect(error.message == "context is empty")
                #expect(error.details == .object([JSONMember("field", .string("context"))]))
            }
            do {
                _ = try await app.functions.call("missing", .null)
                Issue.record("expected an error")
            } catch let error as FunctionsCallError {
                #expect(error.code == .notFound)
            }
            do {
                _ = try await app.functions.call("bad name", .null)
                Issue.record("expected an error")
            } catch let error as FunctionsCallError {
                #expect(error.code == .invalidArgument)
            }
        }
    }
}
