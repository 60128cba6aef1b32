import Synchronization

/// An email or SMS that auth sends (out-of-band links, verification codes).
public struct OutgoingMessage: Sendable, Hashable {
    /// How a message travels: `email` to an address, `sms` to an E.164 number.
    public enum Channel: String, Sendable, Hashable { case email, sms }

    /// Email or SMS; ``ChannelRouter`` sends on by this.
    public var channel: Channel
    /// Email address or phone number.
    public var to: String
    /// The email's subject; empty for SMS.
    public var subject: String
    /// Plain text holding the link or the code: a secret, so senders must not log it.
    public var body: String
    /// What it is for: `PASSWORD_RESET`, `VERIFY_EMAIL`, `VERIFY_AND_CHANGE_EMAIL`, `EMAIL_SIGNIN`, `PHONE`.
    public var purpose: String

    /// A message, for a custom ``MessageSender``'s tests; ``AuthService`` makes its own.
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
    /// Delivers `message`, or throws. A throw does not fail the request that sent it: the code stays valid and
    /// ``AuthService`` reports the failure to its `onDeliveryFailure`.
    func send(_ message: OutgoingMessage) async throws
}

/// Keeps the most recent messages in memory, for `--dev` and tests (the emulator endpoints list
/// the codes they carry).
public final class OutboxSender: MessageSender {
    private let messages = Mutex<[OutgoingMessage]>([])
    /// How many messages are kept; the oldest go first.
    public let capacity: Int

    /// An outbox that keeps the last `capacity` messages.
    public init(capacity: Int = 1000) { self.capacity = capacity }

    /// Keeps the message (dropping the oldest beyond ``capacity``); never throws.
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
    /// Where emails go.
    public let email: any MessageSender
    /// Where SMS go.
    public let sms: any MessageSender

    /// A router sending emails through `email` and SMS through `sms`.
    public init(email: any MessageSender, sms: any MessageSender) {
        self.email = email
        self.sms = sms
    }

    /// Hands the message to the sender of its channel; its error passes through.
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
    func checkMessageQuota(_ recipient: String, now: Int64, code: String) async throws {
        guard let messageLimiter else { return }
        if try await messageLimiter.isFull(recipient, now: now) { throw AuthError(code) }
        try await messageLimiter.record(recipient, now: now)
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
