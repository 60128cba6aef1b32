import Foundation
public import HearthAuth
import NIOCore
public import NIOPosix
import NIOSSL

/// Where and how Hearth hands auth's emails (password resets, verification and sign-in links) to
/// a mail server.
public struct SMTPConfiguration: Sendable {
    /// How the connection to the mail server is encrypted.
    public enum Security: String, Sendable, CaseIterable {
        /// Plain connection upgraded with STARTTLS before anything is sent (port 587). Refuses
        /// servers that do not offer it.
        case startTLS = "starttls"
        /// TLS from the first byte (port 465).
        case tls
        /// No encryption: only for a relay on the same machine or network (and tests).
        case none
    }

    /// The mail server's host name.
    public var host: String
    /// Its port (587 for STARTTLS, 465 for TLS).
    public var port: Int
    /// How the connection is encrypted.
    public var security: Security
    /// The account to authenticate as (none: no AUTH).
    public var username: String?
    /// Its password (never logged).
    public var password: String?
    /// `"Name <address>"` or `"address"`.
    public var from: String
    /// PEM file of CA certificates to trust instead of the system's (a private relay).
    public var trustedCertificates: String?
    /// The name Hearth gives in EHLO.
    public var heloName: String
    /// The longest one message may take, connection to QUIT.
    public var timeout: Duration

    /// A configuration; `heloName` and `timeout` have defaults.
    public init(
        host: String, port: Int = 587, security: Security = .startTLS, username: String? = nil, password: String? = nil,
        from: String, trustedCertificates: String? = nil, heloName: String = "hearth.localhost", timeout: Duration = .seconds(30)
    ) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
        self.from = from
        self.trustedCertificates = trustedCertificates
        self.heloName = heloName
        self.timeout = timeout
    }
}

/// Sends auth's emails through an SMTP server: one connection per message, TLS (STARTTLS or
/// implicit) verified against the system's or the configured CA certificates, AUTH PLAIN or
/// LOGIN when credentials are set. SMS messages are not its business (it throws for them).
///
/// ```swift
/// let smtp = try SMTPSender(configuration: .init(host: "smtp.example.com", username: "hearth",
///                                                 password: secret, from: "Hearth <no-reply@example.com>"))
/// let auth = AuthService(projectID: "demo", store: accounts, keys: keys, sender: smtp)
/// ```
public final class SMTPSender: MessageSender {
    /// Where and how mail is sent.
    public let configuration: SMTPConfiguration
    private let tls: NIOSSLContext?
    private let group: any EventLoopGroup

    /// A sender; throws when the `from` address or the CA file is invalid.
    public init(configuration: SMTPConfiguration, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) throws {
        _ = try MailFormat.parseMailbox(configuration.from)
        self.configuration = configuration
        self.group = group
        if configuration.security == .none {
            tls = nil
        } else {
            var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
            tlsConfiguration.minimumTLSVersion = .tlsv12
            if let file = configuration.trustedCertificates { tlsConfiguration.trustRoots = .file(file) }
            tls = try NIOSSLContext(configuration: tlsConfiguration)
        }
    }

    /// Delivers one email in one SMTP session; throws ``SMTPError`` naming the step that failed.
    public func send(_ message: OutgoingMessage) async throws {
        guard message.channel == .email else { throw SMTPError("SMTP delivers email only, not \(message.channel.rawValue)") }
        let data = try MailFormat.render(
            from: configuration.from, to: message.to, subject: message.subject, body: message.body, date: Date(),
            messageID: UUID().uuidString.lowercased())
        let sender = try MailFormat.parseMailbox(configuration.from).address
        let timeout = configuration.timeout
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.deliver(data, from: sender, to: message.to) }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw SMTPError("the SMTP server did not finish within \(timeout)")
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    private func deliver(_ data: [UInt8], from: String, to: String) async throws {
        let connection = try await connect()
        try await withTaskCancellationHandler {
            do {
                try await converse(connection, data: data, from: from, to: to)
                connection.channel.close(promise: nil)
            } catch {
                connection.channel.close(promise: nil)
                throw error
            }
        } onCancel: {
            connection.channel.close(promise: nil)
        }
    }

    private func converse(_ smtp: SMTPConnection, data: [UInt8], from: String, to: String) async throws {
        guard try await smtp.reply().code == 220 else { throw SMTPError("the SMTP server refused the connection") }
        var hello = try await smtp.command("EHLO \(configuration.heloName)", expect: [250])
        if configuration.security == .startTLS, let tls {
            guard hello.supports("STARTTLS") else { throw SMTPError("the SMTP server does not offer STARTTLS") }
            _ = try await smtp.command("STARTTLS", expect: [220])
            try await smtp.startTLS(tls, host: configuration.host)
            hello = try await smtp.command("EHLO \(configuration.heloName)", expect: [250])
        }
        if let username = configuration.username, let password = configuration.password {
            try await authenticate(smtp, hello: hello, username: username, password: password)
        }
        let international = !(from + to).utf8.allSatisfy { $0 < 0x80 }
        if international && !hello.supports("SMTPUTF8") {
            throw SMTPError("the SMTP server cannot take non-ASCII addresses (no SMTPUTF8)")
        }
        _ = try await smtp.command("MAIL FROM:<\(from)>" + (international ? " SMTPUTF8" : ""), expect: [250])
        _ = try await smtp.command("RCPT TO:<\(to)>", expect: [250, 251])
        _ = try await smtp.command("DATA", expect: [354])
        _ = try await smtp.send(data + Array(".\r\n".utf8), step: "the message", expect: [250])
        _ = try? await smtp.command("QUIT", expect: [221])
    }

    private func authenticate(_ smtp: SMTPConnection, hello: SMTPReply, username: String, password: String) async throws {
        let methods = hello.capabilities.filter { $0.hasPrefix("AUTH") }.flatMap { $0.dropFirst(5).split(separator: " ") }
        func b64(_ s: String) -> String { Data(s.utf8).base64EncodedString() }
        if methods.contains("PLAIN") {
            _ = try await smtp.send(Array("AUTH PLAIN \(b64("\0\(username)\0\(password)"))\r\n".utf8), step: "AUTH", expect: [235])
        } else if methods.contains("LOGIN") {
            _ = try await smtp.command("AUTH LOGIN", expect: [334])
            _ = try await smtp.send(Array((b64(username) + "\r\n").utf8), step: "AUTH", expect: [334])
            _ = try await smtp.send(Array((b64(password) + "\r\n").utf8), step: "AUTH", expect: [235])
        } else {
            throw SMTPError("the SMTP server offers no AUTH method Hearth speaks (PLAIN, LOGIN)")
        }
    }

    private func connect() async throws -> SMTPConnection {
        let loop = group.next()
        let handler = try await loop.submit { NIOLoopBound(SMTPReplyHandler(), eventLoop: loop) }.get()
        let implicitTLS = configuration.security == .tls ? tls : nil
        let host = configuration.host
        let channel = try await ClientBootstrap(group: loop)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let implicitTLS {
                        try channel.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(context: implicitTLS, serverHostname: SMTPConnection.sniName(host)))
                    }
                    try channel.pipeline.syncOperations.addHandler(handler.value)
                }
            }
            .connect(host: host, port: configuration.port).get()
        return SMTPConnection(channel: channel, handler: handler)
    }
}

/// The client side of one SMTP session: send a line, await the reply.
struct SMTPConnection: Sendable {
    let channel: any Channel
    let handler: NIOLoopBound<SMTPReplyHandler>

    func reply() async throws -> SMTPReply {
        let handler = handler
        return try await channel.eventLoop.flatSubmit {
            let promise = channel.eventLoop.makePromise(of: SMTPReply.self)
            handler.value.next(promise)
            return promise.futureResult
        }.get()
    }

    func command(_ line: String, expect codes: Set<Int>) async throws -> SMTPReply {
        try await send(Array((line + "\r\n").utf8), step: String(line.prefix { $0 != ":" && $0 != " " }), expect: codes)
    }

    func send(_ bytes: [UInt8], step: String, expect codes: Set<Int>) async throws -> SMTPReply {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
        let reply = try await reply()
        guard codes.contains(reply.code) else { throw SMTPError("the SMTP server answered \(step) with \(reply.code)") }
        return reply
    }

    /// Switches the connection to TLS after the server's `220` to STARTTLS. Anything the server
    /// sent after that reply, before the handshake, is refused (it could be injected by a
    /// man in the middle).
    func startTLS(_ context: NIOSSLContext, host: String) async throws {
        let handler = handler
        try await channel.eventLoop.flatSubmit {
            channel.eventLoop.makeCompletedFuture {
                guard !handler.value.hasUnreadInput else { throw SMTPError("the SMTP server sent data before the TLS handshake") }
                try channel.pipeline.syncOperations.addHandler(
                    NIOSSLClientHandler(context: context, serverHostname: Self.sniName(host)), position: .first)
            }
        }.get()
    }

    /// The name to verify and send as SNI; IP literals are verified against the address instead.
    static func sniName(_ host: String) -> String? {
        (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
    }
}
