import HearthFiles
import NIOCore
import Testing

@Suite("Multipart reader")
struct MultipartReaderTests {
    static let contentType = "multipart/related; boundary=\"===============7330845974216740156==\""

    @Test func metadataThenStreamedMedia() async throws {
        var random = SeededGenerator(seed: 40)
        let media = random.bytes(200_000)
        let body = Array("--===============7330845974216740156==\r\ncontent-type: application/json\r\n\r\n{\"name\":\"a\"}\r\n".utf8)
            + Array("--===============7330845974216740156==\r\ncontent-type: image/png\r\n\r\n".utf8)
            + media + Array("\r\n--===============7330845974216740156==--".utf8)
        let chunks = random.pieces(of: body.count, maxPiece: 16_384).map { ByteBuffer(bytes: body[$0]) }
        var reader = try MultipartReader(contentType: Self.contentType, body: stream(chunks))

        let metadata = try #require(try await reader.nextPart())
        #expect(metadata.contentType == "application/json")
        #expect(try await reader.collectBody(upTo: 1024).bytes == Array("{\"name\":\"a\"}".utf8))
        let part = try #require(try await reader.nextPart())
        #expect(part.contentType == "image/png")
        var received: [UInt8] = []
        var largest = 0
        while let chunk = try await reader.nextBodyChunk() {
            largest = max(largest, chunk.readableBytes)
            received += chunk.bytes
        }
        #expect(received == media)
        #expect(largest <= 16_384 + 64)  // streamed in pieces, never collected whole
        #expect(try await reader.nextBodyChunk() == nil)
        #expect(try await reader.nextPart() == nil)
        #expect(try await reader.nextPart() == nil)
    }

    @Test func unreadPartsAreSkipped() async throws {
        let body = "--b\r\nA: 1\r\n\r\nfirst\r\n--b\r\nA: 2\r\n\r\nsecond\r\n--b\r\nA: 3\r\n\r\nthird\r\n--b--"
        var reader = try MultipartReader(boundary: "b", body: stream([ByteBuffer(string: body)]))
        #expect(try await reader.nextBodyChunk() == nil)  // no part yet
        #expect(try await reader.nextPart()?["a"] == "1")
        #expect(try await reader.nextPart()?["a"] == "2")
        #expect(try await reader.nextBodyChunk()?.bytes == Array("second".utf8))
        #expect(try await reader.nextPart()?["a"] == "3")
        #expect(try await reader.nextPart() == nil)
    }

    @Test func collectedPartsAreCapped() async throws {
        let body = "--b\r\n\r\n" + String(repeating: "x", count: 2000) + "\r\n--b--"
        var reader = try MultipartReader(boundary: "b", body: stream(buffers(Array(body.utf8), cuts: [100, 900])))
        _ = try await reader.nextPart()
        let error = await #expect(throws: MultipartError.self) { try await reader.collectBody(upTo: 1000) }
        #expect(error?.code == .partTooLarge)
    }

    @Test func truncatedBodyThrows() async throws {
        var reader = try MultipartReader(boundary: "b", body: stream([ByteBuffer(string: "--b\r\n\r\npartial")]))
        _ = try await reader.nextPart()
        let error = await #expect(throws: MultipartError.self) {
            while try await reader.nextBodyChunk() != nil {}
        }
        #expect(error?.code == .truncated)
    }

    @Test func errorsOfTheBodyPassThrough() async throws {
        var reader = try MultipartReader(boundary: "b", body: failingStream([ByteBuffer(string: "--b\r\n\r\nab")]))
        _ = try await reader.nextPart()
        await #expect(throws: ClientWentAway.self) {
            while try await reader.nextBodyChunk() != nil {}
        }
    }
}
