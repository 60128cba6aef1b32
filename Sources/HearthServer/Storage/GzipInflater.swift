import CZlib
import NIOCore

/// Decompresses a gzip stream chunk by chunk (memory stays at zlib's window plus one output
/// buffer), for objects stored with `contentEncoding: gzip` and a client that does not accept gzip.
/// One task uses an inflater at a time.
final class GzipInflater {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let stream: UnsafeMutablePointer<z_stream>
    private(set) var finished = false

    init() throws {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        guard czlib_inflate_init_gzip(stream) == Z_OK else {
            stream.deallocate()
            throw Failure(description: "zlib could not start inflating")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// Inflates `input`, passing each piece of output to `emit`.
    func inflate(_ input: ByteBuffer, emit: (ByteBuffer) async throws -> Void) async throws {
        var input = input
        let outputSize = 64 * 1024
        while !finished {
            var output = ByteBuffer()
            let consumed: Int = try input.withUnsafeMutableReadableBytes { inBytes in
                try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: outputSize) { out in
                    stream.pointee.next_in = inBytes.baseAddress?.assumingMemoryBound(to: Bytef.self)
                    stream.pointee.avail_in = uInt(inBytes.count)
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = uInt(outputSize)
                    let status = CZlib.inflate(stream, Z_NO_FLUSH)
                    switch status {
                    case Z_OK, Z_BUF_ERROR: break
                    case Z_STREAM_END: finished = true
                    default: throw Failure(description: "the stored gzip data is corrupt (zlib \(status))")
                    }
                    output.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(out)[0..<(outputSize - Int(stream.pointee.avail_out))]))
                    return inBytes.count - Int(stream.pointee.avail_in)
                }
            }
            input.moveReaderIndex(forwardBy: consumed)
            let produced = output.readableBytes
            if produced > 0 { try await emit(output) }
            // Done with this input once it is used up and zlib had room to spare (nothing left to flush).
            if input.readableBytes == 0 && produced < outputSize { return }
            if consumed == 0 && produced == 0 { throw Failure(description: "the stored gzip data is corrupt") }
        }
    }

    /// Throws unless the whole gzip stream arrived.
    func finish() throws {
        guard finished else { throw Failure(description: "the stored gzip data is truncated") }
    }
}
