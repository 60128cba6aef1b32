import Crypto
import Foundation
import HearthFiles
import NIOCore
import Testing

/// A small deterministic generator (SplitMix64) so random tests repeat exactly.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SeededGenerator {
    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &self) }
    }

    /// Cuts `total` into random pieces of 0...maxPiece bytes (zero-length pieces included).
    mutating func pieces(of total: Int, maxPiece: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        while start < total {
            let end = min(total, start + Int.random(in: 0...maxPiece, using: &self))
            ranges.append(start..<end)
            start = end
        }
        return ranges
    }
}

/// A fresh empty folder under the system temporary folder.
func temporaryFolder() -> String {
    let path = NSTemporaryDirectory() + "hearth-files-" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Removes a folder made by `temporaryFolder()`.
func removeFolder(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}

/// Names of the regular files under `folder`, recursively, relative to it.
func files(under folder: String) -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: folder)
    var names: [String] = []
    while let name = enumerator?.nextObject() as? String {
        var isFolder: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder)
        if !isFolder.boolValue { names.append(name) }
    }
    return names.sorted()
}

/// An async sequence yielding these buffers, then ending.
func stream(_ buffers: [ByteBuffer]) -> AsyncStream<ByteBuffer> {
    AsyncStream { continuation in
        for buffer in buffers { continuation.yield(buffer) }
        continuation.finish()
    }
}

/// An async sequence yielding these buffers, then failing (a client that went away).
func failingStream(_ buffers: [ByteBuffer]) -> AsyncThrowingStream<ByteBuffer, any Error> {
    AsyncThrowingStream { continuation in
        for buffer in buffers { continuation.yield(buffer) }
        continuation.finish(throwing: ClientWentAway())
    }
}

struct ClientWentAway: Error {}

extension ByteBuffer {
    var bytes: [UInt8] { Array(readableBytesView) }
}

/// Splits bytes into buffers at the given cut points.
func buffers(_ bytes: [UInt8], cuts: [Int]) -> [ByteBuffer] {
    var result: [ByteBuffer] = []
    var start = 0
    for cut in cuts + [bytes.count] {
        result.append(ByteBuffer(bytes: bytes[start..<cut]))
        start = cut
    }
    return result
}

/// Expects `digests` to be the size, MD5 and CRC-32C of `bytes`.
func expectDigests(_ digests: BlobDigests, of bytes: ArraySlice<UInt8>, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(digests.size == Int64(bytes.count), sourceLocation: sourceLocation)
    #expect(digests.md5 == Array(Insecure.MD5.hash(data: bytes)), sourceLocation: sourceLocation)
    #expect(digests.crc32c == CRC32C.checksum(bytes), sourceLocation: sourceLocation)
}
