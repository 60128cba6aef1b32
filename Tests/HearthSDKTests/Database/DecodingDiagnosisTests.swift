import Foundation
import HearthCore
import HearthWire
import Testing

/// Foundation's JSONDecoder on Linux loses the field of a number that does not fit; a second pass names it.
@Suite("Decoding diagnosis")
struct DecodingDiagnosisTests {
    struct Event: Codable { var at: Date; var blob: Data; var count: Int; var ratio: Float?; var tags: [String] }

    static func explain<T: Decodable>(_ type: T.Type, _ json: String) -> DecodingError? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        do {
            _ = try decoder.decode(type, from: Data(json.utf8))
            return nil
        } catch {
            return DecodingDiagnosis.explained(error, decoding: type, from: (try? JSONValue.parse(Array(json.utf8))) ?? .null) as? DecodingError
        }
    }

    static func path(_ error: DecodingError?) -> [String]? {
        let context: DecodingError.Context
        switch error {
        case .dataCorrupted(let c)?, .typeMismatch(_, let c)?, .valueNotFound(_, let c)?: context = c
        case .keyNotFound(let key, let c)?: return (c.codingPath + [key]).map(\.stringValue)
        default: return nil
        }
        return context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
    }

    @Test(arguments: [
        (#"{"at":1700000000000,"blob":"aGk=","count":1.5,"tags":[]}"#, ["count"]),
        (#"{"at":1700000000000,"blob":"aGk=","count":1e30,"tags":[]}"#, ["count"]),
        (#"{"at":1700000000000,"blob":"aGk=","count":1,"ratio":1e300,"tags":[]}"#, ["ratio"]),
    ])
    func namesTheFieldOfANumberThatDoesNotFit(json: String, expected: [String]) {
        #expect(Self.path(Self.explain(Event.self, json)) == expected)
    }

    @Test func errorsThatNameTheirFieldAreKept() {
        // A string where a number belongs: Foundation names the field itself.
        let error = Self.explain(Event.self, #"{"at":1,"blob":"aGk=","count":"x","tags":[]}"#)
        guard case .typeMismatch(_, let context)? = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["count"])
    }

    @Test func aSecondPassThatDecodesKeepsFoundationsError() {
        // The second pass must decode what Foundation decodes (dates in ms, base64 data, optionals, arrays), or it
        // would blame a field that is fine.
        let valid = try? JSONValue.parse(Array(#"{"at":1700000000000,"blob":"aGk=","count":2,"ratio":0.5,"tags":["a"]}"#.utf8))
        let original = DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "original"))
        let kept = DecodingDiagnosis.explained(original, decoding: Event.self, from: valid ?? .null) as? DecodingError
        guard case .dataCorrupted(let context)? = kept else {
            Issue.record("expected the original error, got \(String(describing: kept))")
            return
        }
        #expect(context.debugDescription == "original")
    }
}
