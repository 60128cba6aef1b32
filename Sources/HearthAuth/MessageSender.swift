import Synchronization

/// An email or SMS that auth sends (out-of-band links, verification codes).
public struct OutgoingMessage: Sendable, Hashable {
    public enum Channel: String, Sendable, Hashable { case email, sms }

    public var channel: Channel
    /// Email address or phone number.
    public var to: String
    public var subject: String
    public var body: String
    /// What it is for: `PASSWORD_RESET`, `VERIFY_EMAIL`, `VERIFY_AND_CHANGE_EMAIL`, `EMAIL_SIGNIN`, `PHONE`.
    public var purpose: String

    public init(channel: Channel, to: String, subject: String, body: String, purpose: String) {
        self.channel = channel
        self.to = to
        self.subject = subject
        self.body = body
        self.purpose = purpose
    }
}

/// Delivers auth's messages. Hearth ships an in-memory outbox (`--dev`, tests); a deployment
/// plugs in its email/SMS provider through this protocol.
public protocol MessageSender: Sendable {
    func send(_ message: OutgoingMessage) async throws
}

/// Keeps the most recent messages in memory, for `--dev` and tests (the emulator endpoints list
/// the codes they carry).
public final class OutboxSender: MessageSender {
    private let messages = Mutex<[OutgoingMessage]>([])
    public let capacity: Int

    public init(capacity: Int = 1000) { self.capacity = capacity }

    public func send(_ message: OutgoingMessage) async throws {
        messages.withLock { m in
            if m.count >= capacity { m.removeFirst(m.count - capacity + 1) }
            m.append(message)
        }
    }

    /// Messages in the order they were sent.
    public var sent: [OutgoingMessage] { messages.withLock { $0 } }
}

/// Sends email through one sender and SMS through another (say SMTP and the outbox).
public struct ChannelRouter: MessageSender {
    public let email: any MessageSender
    public let sms: any MessageSender

    public init(email: any MessageSender, sms: any MessageSender) {
        self.email = email
        self.sms = sms
    }

    public func send(_ message: OutgoingMessage) async throws {
        switch message.channel {
        case .email: try await email.send(message)
        case .sms: try await sms.send(message)
        }
    }
}

extension AuthService {
    /// Counts a message to `recipient` against `Options.messagesPerRecipientPerHour`, so nobody can
    /// flood an inbox or a phone through the reset and sign-in endpoints.
    func checkMessageQuota(_ recipient: String, now: Int64, code: String) throws {
        guard let messageLimiter else { return }
        do {
            try messageLimiter.check(recipient, now: now)
        } catch {
            throw AuthError(code)
        }
        messageLimiter.record(recipient, now: now)
    }

    func deliver(_ message: OutgoingMessage) async {
        do {
            try await sender.send(message)
        } catch {
            // The code is still valid; the caller sees success as Firebase reports it, the
            // failure is for the operator (without the message body, which holds the secret).
            onDeliveryFailure(message.channel, message.purpose, "\(error)")
        }
    }
}
