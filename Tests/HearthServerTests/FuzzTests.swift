import Foundation
import HearthFiles
import HearthWire
import NIOCore
import Testing

/// Seeded mutation fuzzing of two parsers that read what clients send, over a corpus kept in the repository:
/// multipart upload bodies and the realtime protocol's framing and messages. (The JSON reader and the database and
/// storage rules parsers have their own seeded fuzzing: `JSONFuzzTests`, `ParserFuzzTests`,
/// `StorageRulesSafetyTests`.) Each starts from the inputs in `Tests/Fixtures/fuzz/<target>/`, mutates them for a fixed
/// time (`HEARTH_FUZZ_SECONDS`, 2 s by default; a longer run is `HEARTH_FUZZ_SECONDS=600 swift test --filter
/// FuzzTests`), and checks that the parser returns or throws its own error (a crash ends the test process, which fails
/// the run) plus a property: a multipart body gives the same events however it is split; a message gives the same
/// answer through the frame assembler, whole or cut into frames. The seed is printed; `HEARTH_FUZZ_SEED` repeats a
/// run. An input that ever crashes a parser goes into its folder, so every later run tries it first.
@Suite("Fuzzing multipart and realtime framing", .serialized)
struct FuzzTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/fuzz")
    static let seconds = Double(ProcessInfo.processInfo.environment["HEARTH_FUZZ_SECONDS"] ?? "") ?? 2
    static let seed = UInt64(ProcessInfo.processInfo.environment["HEARTH_FUZZ_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64.max)

    static func seeds(_ target: String) throws -> [[UInt8]] {
        let folder = corpus.appendingPathComponent(target)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let inputs = try names.map { Array(try Data(contentsOf: folder.appendingPathComponent($0))) }
        #expect(!inputs.isEmpty, "no seeds in \(folder.path)")
        return inputs
    }

    /// Runs `body` on every seed, then on mutations of them until the time is up; returns how many inputs ran.
    static func fuzz(_ target: String, _ body: ([UInt8]) throws -> Void) throws -> Int {
        let seeds = try seeds(target)
        var mutator = Mutator(seed: seed ^ target.utf8.reduce(UInt64(0)) { $0 &* 31 &+ UInt64($1) }, dictionary: Mutator.tokens)
        for input in seeds { try body(input) }
        let deadline = Date().addingTimeInterval(seconds)
        var runs = seeds.count
        while Date() < deadline {
            for _ in 0..<64 {
                try body(mutator.mutate(seeds))
                runs += 1
            }
        }
        print("fuzz \(target): \(runs) inputs in \(seconds) s (seed \(seed))")
        return runs
    }

    /// Every event the parser gives for `body` fed in pieces of `sizes` (cycled), or the error it stops with.
    static func multipartEvents(_ body: [UInt8], sizes: [Int]) -> (events: [String], error: String?) {
        guard var parser = try? MultipartParser(boundary: "b0und", limits: MultipartLimits()) else { return ([], "boundary") }
        var events: [String] = []
        var offset = 0
        var turn = 0
        var bodyBytes: [UInt8] = []
        func drain() throws(MultipartError) {
            while let event = try parser.next() {
                switch event {
                case .part(let headers):
                    if !bodyBytes.isEmpty { events.append("body \(bodyBytes)"); bodyBytes = [] }
                    events.append("part \(headers)")
                case .body(let buffer): bodyBytes += Array(buffer.readableBytesView)
                case .end:
                    if !bodyBytes.isEmpty { events.append("body \(bodyBytes)"); bodyBytes = [] }
                    events.append("end")
                }
            }
        }
        do {
            while offset < body.count {
                let size = max(1, sizes[turn % sizes.count])
                turn += 1
                let end = min(body.count, offset + size)
                parser.append(ByteBuffer(bytes: body[offset..<end]))
                offset = end
                try drain()
            }
            try drain()
            if !bodyBytes.isEmpty { events.append("body \(bodyBytes)") }
            try parser.finish()
            return (events, nil)
        } catch {
            return (events, "\(error.code)")
        }
    }

    @Test func multipartParser() throws {
        var sizes = Mutator(seed: Self.seed, dictionary: [])
        let runs = try Self.fuzz("multipart") { bytes in
            let whole = Self.multipartEvents(bytes, sizes: [bytes.count + 1])
            let split = Self.multipartEvents(bytes, sizes: (0..<5).map { _ in 1 + Int(sizes.next() % 17) })
            // However the body arrives, the parser says the same (both finish, or both stop with the same error).
            #expect(whole.error == split.error, "\(bytes)")
            if whole.error == nil { #expect(whole.events == split.events, "\(bytes)") }
        }
        #expect(runs > 100)
    }

    /// Found by `realtimeFraming`: with a limit of one UTF-16 unit, a surrogate pair made `frames(for:)` loop forever.
    @Test func framesAlwaysMoveOnPastASurrogatePair() {
        #expect(RealtimeFraming.frames(for: "😀a😀", maxFrameCharacters: 1) == ["3", "😀", "a", "😀"])
        #expect(RealtimeFraming.frames(for: "😀😀", maxFrameCharacters: 3) == ["2", "😀", "😀"])
    }

    @Test func realtimeFraming() throws {
        var sizes = Mutator(seed: Self.seed, dictionary: [])
        let runs = try Self.fuzz("realtime") { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            let direct = Result { () throws(RealtimeFramingError) in try RealtimeMessage(parsing: text) }
            // The same message in frames of a random size, as the client library splits long ones.
            let frameSize = 1 + Int(sizes.next() % 40)
            var assembler = RealtimeFrameAssembler(maxMessageBytes: 1 << 20)
            var assembled: String?
            do {
                for frame in RealtimeFraming.frames(for: text, maxFrameCharacters: frameSize) {
                    if let message = try assembler.receive(frame) { assembled = message }
                }
            } catch {
                Issue.record("framing refused its own frames of \(text.debugDescription): \(error)")
                return
            }
            #expect(assembled == text || (text.utf8.count <= 6 && Int(text) != nil), "\(text.debugDescription)")
            if assembled == text {
                let again = Result { () throws(RealtimeFramingError) in try RealtimeMessage(parsing: assembled ?? "") }
                #expect((try? again.get()) == (try? direct.get()))
            }
        }
        #expect(runs > 100)
    }
}

/// Seeded mutations of byte strings: flips, inserts of bytes and of tokens the parsers care about, deletions,
/// duplications, splices of two seeds and truncations. SplitMix64, so a seed repeats a run exactly.
struct Mutator {
    var state: UInt64
    let dictionary: [[UInt8]]

    static let tokens: [[UInt8]] = [
        "{", "}", "[", "]", "\"", "\\", "\\u", "\\ud83d", ":", ",", "null", "true", "1e999", "-0", "0.", "//", "/*", "*/",
        "$", ".read", ".write", ".validate", "auth", "==", "===", "&&", "||", "(", ")", "'", "match", "allow", "if", ";",
        "{x=**}", "\r\n", "--b0und", "--b0und--", "Content-Type: ", "\u{0}", "\u{FFFF}", "é", "😀",
    ].map { Array($0.utf8) } + [[0xFF], [0xC3], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80]]

    init(seed: UInt64, dictionary: [[UInt8]]) {
        state = seed
        self.dictionary = dictionary
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }

    mutating func mutate(_ seeds: [[UInt8]]) -> [UInt8] {
        var bytes = seeds[below(seeds.count)]
        for _ in 0...below(4) {
            let at = below(bytes.count + 1)
            switch below(7) {
            case 0 where !bytes.isEmpty: bytes[min(at, bytes.count - 1)] ^= UInt8(1 << below(8))
            case 1: bytes.insert(UInt8(truncatingIfNeeded: next()), at: at)
            case 2 where !dictionary.isEmpty: bytes.insert(contentsOf: dictionary[below(dictionary.count)], at: at)
            case 3 where !bytes.isEmpty: bytes.removeSubrange(at..<min(bytes.count, at + 1 + below(16)))
            case 4 where !bytes.isEmpty:
                let end = min(bytes.count, at + 1 + below(32))
                bytes.insert(contentsOf: bytes[min(at, bytes.count - 1)..<end], at: at)
            case 5:
                let other = seeds[below(seeds.count)]
                let from = below(other.count + 1)
                bytes = Array(bytes[..<at]) + Array(other[from...])
            default: bytes = Array(bytes.prefix(at))
            }
        }
        return bytes
    }
}
