import HearthFiles
import NIOCore
import Testing

/// A parsed part: its headers and its whole body.
struct ParsedPart: Equatable {
    var headers: MultipartPartHeaders
    var body: [UInt8]
}

/// Feeds `chunks` to a parser and collects the parts.
func parse(_ chunks: [ByteBuffer], boundary: String, limits: MultipartLimits = MultipartLimits()) throws -> [ParsedPart] {
    var parser = try MultipartParser(boundary: boundary, limits: limits)
    var parts: [ParsedPart] = []
    var ended = false
    for chunk in chunks {
        parser.append(chunk)
        while let event = try parser.next() {
            switch event {
            case .part(let headers):
                #expect(!ended)
                parts.append(ParsedPart(headers: headers, body: []))
            case .body(let bytes):
                parts[parts.count - 1].body += bytes.bytes
            case .end:
                ended = true
            }
        }
    }
    try parser.finish()
    #expect(ended)
    return parts
}

func parse(_ text: [UInt8], boundary: String, cuts: [Int] = []) throws -> [ParsedPart] {
    try parse(buffers(text, cuts: cuts), boundary: boundary)
}

@Suite("Multipart parser")
struct MultipartParserTests {
    @Test(arguments: [
        ("multipart/related; boundary=1234567890", "1234567890"),
        ("multipart/related; boundary=\"===============7330845974216740156==\"", "===============7330845974216740156=="),
        ("Multipart/Form-Data;charset=utf-8;  BOUNDARY = \"a b\\\"c\" ; x=y", "a b\"c"),
        ("multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW", "----WebKitFormBoundary7MA4YWxkTrZu0gW"),
    ])
    func boundaryFromContentType(header: String, boundary: String) throws {
        #expect(try MultipartParser.boundary(contentType: header) == boundary)
    }

    @Test(arguments: [
        "application/json; boundary=abc",
        "multipart/related",
        "multipart/related; boundary=\"\"",
        "multipart/related; boundary=\"ends with space \"",
        "multipart/related; boundary=" + String(repeating: "x", count: 71),
    ])
    func unusableContentTypes(header: String) {
        let error = #expect(throws: MultipartError.self) { try MultipartParser.boundary(contentType: header) }
        #expect(error?.code == .invalidContentType)
    }

    /// The body python-storage sends for `upload_from_string`.
    static let gcsBody = Array((
        "--===============7330845974216740156==\r\n"
        + "content-type: application/json; charset=UTF-8\r\n\r\n"
        + "{\"name\": \"x.txt\", \"crc32c\": \"yZRlqg==\"}\r\n"
        + "--===============7330845974216740156==\r\n"
        + "content-type: text/plain\r\n\r\n"
        + "hello world\r\n"
        + "--===============7330845974216740156==--"
    ).utf8)

    @Test func googleCloudStorageUpload() throws {
        let parts = try parse(Self.gcsBody, boundary: "===============7330845974216740156==")
        #expect(parts.count == 2)
        #expect(parts[0].headers.contentType == "application/json; charset=UTF-8")
        #expect(parts[0].headers["Content-Type"] == "application/json; charset=UTF-8")
        #expect(parts[0].body == Array("{\"name\": \"x.txt\", \"crc32c\": \"yZRlqg==\"}".utf8))
        #expect(parts[1].headers.contentType == "text/plain")
        #expect(parts[1].body == Array("hello world".utf8))
    }

    /// Every way of splitting the body into two or three chunks gives the same parts.
    @Test func everySplitPointGivesTheSameParts() throws {
        let boundary = "===============7330845974216740156=="
        let whole = try parse(Self.gcsBody, boundary: boundary)
        for cut in 0...Self.gcsBody.count {
            #expect(try parse(Self.gcsBody, boundary: boundary, cuts: [cut]) == whole)
        }
        for cut in stride(from: 0, through: Self.gcsBody.count, by: 7) {
            for second in cut...Self.gcsBody.count {
                #expect(try parse(Self.gcsBody, boundary: boundary, cuts: [cut, second]) == whole)
            }
        }
        let bytewise = Array(1..<Self.gcsBody.count)
        #expect(try parse(Self.gcsBody, boundary: boundary, cuts: bytewise) == whole)
    }

    /// Binary media holding CR, LF, CRLF, hyphens, near-boundaries and every byte value.
    @Test func binaryPartsAreExact() throws {
        let boundary = "bound"
        var media: [UInt8] = Array(0...255)
        media += Array("\r\n--boun\r\n-bound\r\n--Bound--\r--bound\n--bound\r\r\n\r\n--".utf8)
        media += [13, 13, 10, 13]
        var random = SeededGenerator(seed: 30)
        media += random.bytes(3000)
        media += [13]  // a CR right before the delimiter
        let body = Array("--bound\r\nContent-Type: application/octet-stream\r\n\r\n".utf8) + media
            + Array("\r\n--bound--\r\n".utf8)
        for round in 0..<30 {
            let cuts = random.pieces(of: body.count, maxPiece: round < 10 ? 3 : 200).map(\.upperBound).dropLast()
            let parts = try parse(body, boundary: boundary, cuts: Array(cuts))
            #expect(parts.count == 1)
            #expect(parts.first?.body == media)
        }
    }

    /// Flat memory: after every chunk, all media bytes received so far have been handed out
    /// except at most a delimiter's length (a possible boundary being held back).
    @Test func bodyIsHandedOutAsItArrives() throws {
        let boundary = "===============7330845974216740156=="
        let head = Array("--\(boundary)\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
        var random = SeededGenerator(seed: 31)
        var media = random.bytes(300_000)
        media[1000] = 13  // CRs that make the parser hold bytes back for a moment
        media[50_000] = 13
        let body = head + media + Array("\r\n--\(boundary)--".utf8)
        var parser = try MultipartParser(boundary: boundary)
        var received = 0
        var emitted = 0
        for piece in random.pieces(of: body.count, maxPiece: 4000) {
            parser.append(ByteBuffer(bytes: body[piece]))
            received = piece.upperBound
            while let event = try parser.next() {
                if case .body(let bytes) = event { emitted += bytes.readableBytes }
            }
            let mediaReceived = min(max(received - head.count, 0), media.count)
            #expect(emitted <= mediaReceived)
            #expect(mediaReceived - emitted <= boundary.utf8.count + 4)
        }
        try parser.finish()
        #expect(emitted == media.count)
    }

    @Test func preambleEpiloguePaddingAndFolding() throws {
        let body = Array((
            "This is the preamble.\r\nIt is ignored.\r\n"
            + "--xyz \t\r\n"
            + "Content-Disposition: form-data;\r\n name=\"meta\"\r\n"
            + "X-Empty:\r\n\r\n"
            + "{}\r\n"
            + "--xyz\r\n\r\n"
            + "\r\n--xyz--  and this is the epilogue\r\n--xyz\r\nignored"
        ).utf8)
        let parts = try parse(body, boundary: "xyz")
        #expect(parts.count == 2)
        #expect(parts[0].headers.name == "meta")
        #expect(parts[0].headers["x-empty"] == "")
        #expect(parts[0].headers.fields.count == 2)
        #expect(parts[0].body == Array("{}".utf8))
        #expect(parts[1].headers.fields.isEmpty)
        #expect(parts[1].body == [])
    }

    @Test func bodyStartingWithCRLFOrEmptyOfParts() throws {
        #expect(try parse(Array("\r\n--b\r\n\r\nx\r\n--b--".utf8), boundary: "b").map(\.body) == [[0x78]])
        #expect(try parse(Array("--b--".utf8), boundary: "b").isEmpty)
    }

    @Test func formDataNames() throws {
        let body = Array((
            "--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a \\\"b\\\".png\"\r\n\r\n1\r\n"
            + "--B\r\ncontent-disposition: form-data; name=doc; filename=\"fallback.txt\"; filename*=UTF-8''na%C3%AFve.txt\r\n\r\n2\r\n"
            + "--B--\r\n"
        ).utf8)
        let parts = try parse(body, boundary: "B")
        #expect(parts.map(\.headers.name) == ["file", "doc"])
        #expect(parts.map(\.headers.filename) == ["a \"b\".png", "naïve.txt"])
    }
}
