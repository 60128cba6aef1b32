import Foundation
import HTTPTypes
import HearthAuth
import HearthCore
import HearthServer
import Hummingbird
import HummingbirdTesting
import Testing

// Requests are read into typed bodies under protobuf's JSON mapping: fields the services once read as absent when
// they had another JSON type are refused with Google's INVALID_ARGUMENT message, naming nested fields by their path.

extension AuthRouterTests {
    @Test("fields once read as absent when mistyped are refused with the field, its type and the value")
    func formerlyLenientFieldsAreRefused() async throws {
        try await withRouterClient(auth: Self.service()) { client in
            let (_, user) = try await call(client, Self.v1 + "signUp?key=k", #"{"email":"l@b.c","password":"secret1"}"#)
            #expect(user["localId"] != nil)
            let cases: [(String, String, HTTPFields, String)] = [
                (Self.v1 + "signInWithPassword?key=k", #"{"email":5,"password":"secret1"}"#, [:], "Invalid value at 'email' (TYPE_STRING), 5"),
                (Self.v1 + "lookup?key=k", #"{"idToken":["t"]}"#, [:], #"Invalid value at 'idToken' (TYPE_STRING), ["t"]"#),
                (Self.adminBase + ":lookup", #"{"localId":"abc"}"#, admin, #"Invalid value at 'localId' (TYPE_STRING), "abc""#),
                (Self.adminBase + ":lookup", #"{"email":["a@b.c",1]}"#, admin, #"Invalid value at 'email' (TYPE_STRING), ["a@b.c",1]"#),
                (Self.v1 + "sendOobCode?key=k", #"{"requestType":"PASSWORD_RESET","email":"l@b.c","returnOobLink":"yes"}"#, [:],
                    #"Invalid value at 'returnOobLink' (TYPE_BOOL), "yes""#),
                (Self.adminBase + ":batchDelete", #"{"localIds":["x"],"force":"yes"}"#, admin, #"Invalid value at 'force' (TYPE_BOOL), "yes""#),
                ("/identitytoolkit.googleapis.com/v1/projects/demo/accounts:query", #"{"expression":[{"email":5}]}"#, admin,
                    "Invalid value at 'expression[0].email' (TYPE_STRING), 5"),
                (Self.adminBase + ":update", #"{"localId":"x","linkProviderUserInfo":{"providerId":"google.com","rawId":7}}"#, admin,
                    "Invalid value at 'linkProviderUserInfo.rawId' (TYPE_STRING), 7"),
            ]
            for (path, body, headers, message) in cases {
                let (status, json) = try await call(client, path, body, headers: headers)
                #expect(status == .badRequest, "\(body)")
                #expect(errorMessage(json) == "INVALID_ARGUMENT : \(message)", "\(body)")
            }
            // A privilege check still comes first: an API-key caller naming another project is refused for that.
            let (_, other) = try await call(client, Self.v1 + "signInWithPassword?key=k", #"{"targetProjectId":"x","email":5}"#)
            #expect(errorMessage(other)?.hasPrefix("INSUFFICIENT_PERMISSION") == true)
        }
    }

    @Test("an imported user with a mistyped field inside a provider is refused alone, named from the user")
    func aMistypedProviderFieldRefusesOneImportedUser() async throws {
        try await withRouterClient(auth: Self.service()) { client in
            let body = #"{"users":[{"localId":"ok"},{"localId":"bad","providerUserInfo":[{"providerId":"google.com","rawId":7}]}]}"#
            let (status, result) = try await call(client, Self.adminBase + ":batchCreate", body, headers: admin)
            #expect(status == .ok)
            #expect(result["error"]?[0]?["index"] == .int(1))
            #expect(result["error"]?[0]?["message"] == .string("Invalid value at 'providerUserInfo[0].rawId' (TYPE_STRING), 7"))
            #expect(result["error"]?[1] == nil)
        }
    }
}
