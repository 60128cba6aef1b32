import Foundation
import HearthCore
import HearthWire
import Testing

/// `JSONValueDecoder` reads Identity Toolkit requests under protobuf's JSON mapping and names a mistyped field the
/// way Google's front end does.
@Suite("JSONValueDecoder")
struct JSONValueDecoderTests {
    struct Item: Codable, Equatable {
        var name: String?
        var count: Int64?
    }

    struct Fields: Codable, Equatable {
        var text: String?
        var flag: Bool?
        var big: Int64?
        var plain: Int?
        var small: Int32?
        var ratio: Double?
        var words: [String]?
        var items: [Item]?
        var item: Item?
    }

    static func decode<T: Decodable>(_ json: String, as type: T.Type = Fields.self) throws -> T {
        try JSONValueDecoder().decode(type, from: JSONValue.parse(Array(json.utf8)))
    }

    /// The mismatch decoding `json` throws.
    static func refusal(_ json: String) -> JSONFieldMismatch? {
        do {
            _ = try decode(json)
            return nil
        } catch {
            return error as? JSONFieldMismatch
        }
    }

    @Test(arguments: [
        (#"{"big":5}"#, Int64(5)), (#"{"big":-7.0}"#, -7), (#"{"big":"42"}"#, 42), (#"{"big":"-9223372036854775808"}"#, Int64.min),
        (#"{"big":9007199254740992}"#, 9_007_199_254_740_992),
    ])
    func integersTakeExactNumbersAndDecimalStrings(json: String, expected: Int64) throws {
        #expect(try Self.decode(json).big == expected)
    }

    @Test func everyAcceptedShape() throws {
        let all = try Self.decode(#"""
            {"text":"t","flag":false,"big":"1","plain":2,"small":3.0,"ratio":"0.5","words":["a","b"],
             "items":[{"name":"n","count":"4"},{}],"item":{"count":6}}
            """#)
        #expect(all == Fields(
            text: "t", flag: false, big: 1, plain: 2, small: 3, ratio: 0.5, words: ["a", "b"],
            items: [Item(name: "n", count: 4), Item()], item: Item(count: 6)))
        #expect(try Self.decode(#"{"ratio":2}"#).ratio == 2)
        #expect(try Self.decode(#"{"words":[]}"#).words == [])
    }

    @Test func nullIsAbsentAndUnknownKeysAreIgnored() throws {
        let nulls = try Self.decode(#"{"text":null,"flag":null,"big":null,"words":null,"items":null,"item":null,"other":[1,{"x":2}]}"#)
        #expect(nulls == Fields())
        #expect(try Self.decode("{}") == Fields())
        // A key given twice counts as its last value, as JSONValue's subscript reads it.
        #expect(try Self.decode(#"{"text":"a","text":"b"}"#).text == "b")
    }

    @Test(arguments: [
        (#"{"text":5}"#, "Invalid value at 'text' (TYPE_STRING), 5"),
        (#"{"text":true}"#, "Invalid value at 'text' (TYPE_STRING), true"),
        (#"{"text":{"a":1}}"#, #"Invalid value at 'text' (TYPE_STRING), {"a":1}"#),
        (#"{"flag":"yes"}"#, #"Invalid value at 'flag' (TYPE_BOOL), "yes""#),
        (#"{"flag":1}"#, "Invalid value at 'flag' (TYPE_BOOL), 1"),
        (#"{"big":"abc"}"#, #"Invalid value at 'big' (TYPE_INT64), "abc""#),
        (#"{"big":1.5}"#, "Invalid value at 'big' (TYPE_INT64), 1.5"),
        (#"{"big":true}"#, "Invalid value at 'big' (TYPE_INT64), true"),
        (#"{"big":"1.0"}"#, #"Invalid value at 'big' (TYPE_INT64), "1.0""#),
        (#"{"plain":[1]}"#, "Invalid value at 'plain' (TYPE_INT64), [1]"),
        (#"{"small":4294967296}"#, "Invalid value at 'small' (TYPE_INT32), 4294967296"),
        (#"{"ratio":"x"}"#, #"Invalid value at 'ratio' (TYPE_DOUBLE), "x""#),
        (#"{"words":"a"}"#, #"Invalid value at 'words' (TYPE_STRING), "a""#),
        (#"{"words":["a",5]}"#, #"Invalid value at 'words' (TYPE_STRING), ["a",5]"#),
        (#"{"words":["a",null]}"#, #"Invalid value at 'words' (TYPE_STRING), ["a",null]"#),
        (#"{"items":{"name":"n"}}"#, #"Invalid value at 'items' (TYPE_MESSAGE), {"name":"n"}"#),
        (#"{"items":[{},"n"]}"#, #"Invalid value at 'items' (TYPE_MESSAGE), [{},"n"]"#),
        (#"{"item":"n"}"#, #"Invalid value at 'item' (TYPE_MESSAGE), "n""#),
    ])
    func everyRefusalNamesTheFieldItsTypeAndTheValue(json: String, message: String) throws {
        let refusal = try #require(Self.refusal(json))
        #expect(refusal.message == message)
        #expect(refusal.path.count == 1)
    }

    @Test func aFieldInsideAnItemIsNamedByItsPath() throws {
        let inList = try #require(Self.refusal(#"{"items":[{"name":"a"},{"name":"b","count":"x"}]}"#))
        #expect(inList.path == [.key("items"), .index(1), .key("count")])
        #expect(inList.field == "items[1].count")
        #expect(inList.key == "count")
        #expect(inList.message == #"Invalid value at 'items[1].count' (TYPE_INT64), "x""#)
        #expect(inList.dropping(2).message == #"Invalid value at 'count' (TYPE_INT64), "x""#)
        let nested = try #require(Self.refusal(#"{"item":{"name":7}}"#))
        #expect(nested.field == "item.name" && nested.expectedType == "TYPE_STRING" && nested.value == .int(7))
    }

    @Test func aLongValueIsShownByItsSize() throws {
        let long = String(repeating: "x", count: 80)
        let refusal = try #require(Self.refusal(#"{"flag":"\#(long)"}"#))
        #expect(refusal.message == "Invalid value at 'flag' (TYPE_BOOL), (82 bytes)")
        let edge = String(repeating: "y", count: 62)
        #expect(Self.refusal(#"{"flag":"\#(edge)"}"#)?.message == #"Invalid value at 'flag' (TYPE_BOOL), "\#(edge)""#)
    }

    @Test func theFirstMistypedFieldInDeclarationOrderIsReported() throws {
        #expect(Self.refusal(#"{"words":5,"text":5}"#)?.key == "text")
    }

    @Test func aMissingRequiredFieldIsADecodingErrorNotAMismatch() {
        struct Needs: Decodable { var id: String }
        #expect(throws: DecodingError.self) { try Self.decode("{}", as: Needs.self) }
        #expect(throws: JSONFieldMismatch.self) { try Self.decode("[]", as: Needs.self) }
    }
}

@Suite("Identity Toolkit request types")
struct IdentityToolkitRequestTests {
    static func decode<T: Decodable>(_ json: String, as type: T.Type) throws -> T {
        try JSONValueDecoder().decode(type, from: JSONValue.parse(Array(json.utf8)))
    }

    @Test func requestsRoundTripThroughBothCoders() throws {
        let update = IdentityToolkit.SetAccountInfoRequest(
            localId: "u", email: "a@b.c", validSince: 5, deleteAttribute: ["DISPLAY_NAME"],
            linkProviderUserInfo: IdentityToolkit.ProviderUserInfoInput(providerId: "google.com", rawId: "g"), returnSecureToken: true)
        let json = try JSONValueEncoder().encode(update)
        #expect(try JSONValueDecoder().decode(IdentityToolkit.SetAccountInfoRequest.self, from: json) == update)
        #expect(try JSONDecoder().decode(IdentityToolkit.SetAccountInfoRequest.self, from: Data(json.jsonBytes)) == update)
        #expect(json.jsonString.contains(#""validSince":5"#))
    }

    @Test func theTokenRequestIsSnakeCased() throws {
        let request = IdentityToolkit.RefreshTokenRequest(grantType: "refresh_token", refreshToken: "r")
        #expect(try JSONValueEncoder().encode(request).jsonString == #"{"grant_type":"refresh_token","refresh_token":"r"}"#)
    }

    @Test func anOobRequestTypeIsKeptAsSentEvenWhenUnknown() throws {
        let known = try Self.decode(#"{"requestType":"VERIFY_EMAIL"}"#, as: IdentityToolkit.GetOobConfirmationCodeRequest.self)
        #expect(known.type == .verifyEmail)
        let unknown = try Self.decode(#"{"requestType":"NEW_KIND"}"#, as: IdentityToolkit.GetOobConfirmationCodeRequest.self)
        #expect(unknown.requestType == "NEW_KIND" && unknown.type == nil)
        #expect(IdentityToolkit.GetOobConfirmationCodeRequest(type: .passwordReset, email: "a@b.c").requestType == "PASSWORD_RESET")
    }

    @Test func aMistypedImportedUserIsKeptWithItsMismatchAndTheOthersDecode() throws {
        let request = try Self.decode(
            #"{"users":[{"localId":"a"},{"localId":"b","email":"b@c.d","emailVerified":"yes","customAttributes":"{}"}],"rounds":"8"}"#,
            as: IdentityToolkit.UploadAccountRequest.self)
        let users = try #require(request.users)
        #expect(users[0] == IdentityToolkit.UserImport(localId: "a"))
        #expect(users[1].localId == "b" && users[1].email == "b@c.d" && users[1].customAttributes == nil, "fields after the mistyped one are absent")
        #expect(users[1].invalidField?.message == #"Invalid value at 'emailVerified' (TYPE_BOOL), "yes""#)
        #expect(request.rounds == 8)
        // A user that is not an object fails the whole request, named at the list.
        #expect(throws: JSONFieldMismatch.self) { try Self.decode(#"{"users":[{},"x"]}"#, as: IdentityToolkit.UploadAccountRequest.self) }
        let inProvider = try Self.decode(
            #"{"users":[{"localId":"p","providerUserInfo":[{"providerId":"google.com","rawId":1}]}]}"#, as: IdentityToolkit.UploadAccountRequest.self)
        #expect(inProvider.users?[0].invalidField?.field == "providerUserInfo[0].rawId")
    }

    @Test(arguments: [
        (#"{"maxResults":5}"#, IdentityToolkit.PageSize.count(5)), (#"{"maxResults":"7"}"#, .count(7)), (#"{"maxResults":2.9}"#, .count(2)),
        (#"{"maxResults":"abc"}"#, .unreadable), (#"{"maxResults":true}"#, .unreadable), (#"{"maxResults":[1]}"#, .unreadable),
        (#"{"maxResults":"2.5"}"#, .unreadable), (#"{"maxResults":1e30}"#, .unreadable),
    ])
    func aPageSizeNeverFailsToDecode(json: String, expected: IdentityToolkit.PageSize) throws {
        #expect(try Self.decode(json, as: IdentityToolkit.DownloadAccountRequest.self).maxResults == expected)
    }
}
