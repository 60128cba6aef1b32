import HearthFiles
import NIOCore
import Testing

@Suite("Multipart parser: malformed bodies")
struct MultipartErrorTests {
    static func failure(_ body: String, boundary: String = "b", limits: MultipartLimits = MultipartLimits()) -> MultipartError? {
        #expect(throws: MultipartError.self) {
            try parse([ByteBuffer(string: body)], boundary: boundary, limits: limits)
        }
    }

    @Test(arguments: [
        ("--b\r\n\r\nno closing boundary", "truncated"),
        ("--b\r\n\r\nbody\r\n--b", "truncated"),
        ("--b\r\nContent-Type: text/plain\r\n", "truncated"),
        ("", "truncated"),
        ("--bx\r\n\r\n\r\n--b--", "malformedDelimiter"),
        ("--b\r\n\r\nbody\r\n--b-x", "malformedDelimiter"),
        ("--b\r\n\r\nbody\r\n--b\rx", "malformedDelimiter"),
        ("--b\r\nno colon here\r\n\r\n\r\n--b--", "malformedHeader"),
        ("--b\r\n: empty name\r\n\r\n\r\n--b--", "malformedHeader"),
        ("--b\r\nBad Name: x\r\n\r\n\r\n--b--", "malformedHeader"),
        ("--b\r\nName: bare LF\n\r\n\r\n--b--", "malformedHeader"),
        ("--b\r\nName: bare\rCR\r\n\r\n\r\n--b--", "malformedHeader"),
        ("--b\r\n continuation first\r\n\r\n\r\n--b--", "malformedHeader"),
    ])
    func malformed(body: String, code: String) {
        #expect(Self.failure(body)?.code.description == code)
    }

    @Test func headerBlockTooLarge() {
        var limits = MultipartLimits()
        limits.maxHeaderBytes = 64
        let long = "--b\r\nX-Long: " + String(repeating: "a", count: 100) + "\r\n\r\n\r\n--b--"
        #expect(Self.failure(long, limits: limits)?.code == .headerTooLarge)
        // No line end at all: refused once the limit is passed, without waiting for more.
        var parser = try! MultipartParser(boundary: "b", limits: limits)
        parser.append(ByteBuffer(string: "--b\r\n" + String(repeating: "a", count: 65)))
        #expect(throws: MultipartError.self) { _ = try parser.next() }
        let fits = "--b\r\nX-Long: " + String(repeating: "a", count: 40) + "\r\n\r\n\r\n--b--"
        #expect(throws: Never.self) { try parse([ByteBuffer(string: fits)], boundary: "b", limits: limits) }
    }

    @Test func tooManyFieldsAndParts() {
        var limits = MultipartLimits()
        limits.maxHeaderFields = 2
        limits.maxParts = 2
        #expect(Self.failure("--b\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n\r\n--b--", limits: limits)?.code == .tooManyHeaderFields)
        #expect(Self.failure("--b\r\n\r\n\r\n--b\r\n\r\n\r\n--b\r\n\r\n\r\n--b--", limits: limits)?.code == .tooManyParts)
        #expect(throws: Never.self) {
            try parse([ByteBuffer(string: "--b\r\nA: 1\r\nB: 2\r\n\r\n\r\n--b\r\n\r\n\r\n--b--")], boundary: "b", limits: limits)
        }
    }

    @Test func preambleWithoutBoundary() {
        var limits = MultipartLimits()
        limits.maxPreambleBytes = 100
        #expect(Self.failure(String(repeating: "junk ", count: 30), limits: limits)?.code == .preambleTooLarge)
        #expect(Self.failure(String(repeating: "junk ", count: 10), limits: limits)?.code == .truncated)
    }

    @Test func errorsCarryAnOffsetButNoContent() {
        let error = Self.failure("--b\r\nsecret-value-without-colon\r\n\r\n--b--")
        #expect(error?.offset == 5)
        #expect(error.map { !String(describing: $0).contains("secret") } == true)
    }
}
