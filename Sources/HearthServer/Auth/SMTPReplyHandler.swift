import NIOCore

/// One SMTP reply: its three-digit code and the text of its lines (a multi-line reply such as
/// EHLO's lists one capability per line).
struct SMTPReply: Sendable {
    var code: Int
    var lines: [String]

    /// EHLO keywords, upper-cased: `STARTTLS`, `AUTH PLAIN LOGIN`, `SMTPUTF8`, …
    var capabilities: [String] { lines.dropFirst().map { $0.uppercased() } }

    func supports(_ keyword: String) -> Bool {
        capabilities.contains { $0 == keyword || $0.hasPrefix(keyword + " ") || $0.hasPrefix(keyword + "=") }
    }
}

/// Splits the server's bytes into replies and hands them, in order, to whoever asked for the
/// next one. Lines are bounded (a server cannot make Hearth buffer without limit).
final class SMTPReplyHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    static let maxLineBytes = 4096
    static let maxLinesPerReply = 100

    private var partial = ByteBuffer()
    private var lines: [String] = []
    private var replies = CircularBuffer<SMTPReply>()
    private var waiters = CircularBuffer<EventLoopPromise<SMTPReply>>()
    private var failure: (any Error)?

    /// Bytes received but not yet part of a complete reply (must be none when TLS starts).
    var hasUnreadInput: Bool { partial.readableBytes > 0 || !replies.isEmpty || !lines.isEmpty }

    /// Completes `promise` with the next reply.
    func next(_ promise: EventLoopPromise<SMTPReply>) {
        if let reply = replies.popFirst() {
            promise.succeed(reply)
        } else if let failure {
            promise.fail(failure)
        } else {
            waiters.append(promise)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        partial.writeBuffer(&bytes)
        while let newline = partial.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
            let raw = partial.readBytes(length: newline - partial.readerIndex + 1) ?? []
            var line = String(decoding: raw.dropLast(), as: UTF8.self)
            if line.hasSuffix("\r") { line.removeLast() }
            if let error = take(line) {
                fail(error, context: context)
                return
            }
        }
        partial.discardReadBytes()
        if partial.readableBytes > Self.maxLineBytes { fail(SMTPError("the server sent an over-long line"), context: context) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(SMTPError("the server closed the connection"), context: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error, context: context)
    }

    private func take(_ line: String) -> SMTPError? {
        let utf8 = Array(line.utf8)
        guard utf8.count >= 3, utf8[0..<3].allSatisfy({ (0x30...0x39).contains($0) }), let code = Int(String(line.prefix(3))) else {
            return SMTPError("the server sent a malformed reply")
        }
        let last = utf8.count == 3 || utf8[3] == UInt8(ascii: " ")
        guard last || utf8[3] == UInt8(ascii: "-") else { return SMTPError("the server sent a malformed reply") }
        lines.append(String(line.dropFirst(4)))
        guard lines.count <= Self.maxLinesPerReply else { return SMTPError("the server sent an over-long reply") }
        if last {
            let reply = SMTPReply(code: code, lines: lines)
            lines = []
            if let waiter = waiters.popFirst() { waiter.succeed(reply) } else { replies.append(reply) }
        }
        return nil
    }

    private func fail(_ error: any Error, context: ChannelHandlerContext?) {
        if failure == nil { failure = error }
        while let waiter = waiters.popFirst() { waiter.fail(error) }
        context?.close(promise: nil)
    }
}

/// Why an email could not be handed to the SMTP server. The description names the step and the
/// reply code, never the message, the recipient or the credentials.
public struct SMTPError: Error, CustomStringConvertible, Sendable {
    /// The step that failed and the server's reply code.
    public let description: String

    init(_ description: String) { self.description = description }
}
