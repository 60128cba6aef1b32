import Foundation
import Observation

/// Conversations: the user's conversations, live, newest activity first.
@MainActor @Observable
public final class ConversationsViewModel {
    /// The conversations.
    public private(set) var conversations: [Conversation] = []
    /// The first load's progress; ``ActionState/failed(_:)`` when the live list broke.
    public private(set) var state: ActionState = .idle
    private let useCases: UseCases
    private var watcher: Task<Void, Never>?

    /// The screen over `useCases`.
    public init(_ useCases: UseCases) { self.useCases = useCases }

    /// Follows the user's conversations until ``stop()``.
    public func start() async {
        guard watcher == nil else { return }
        state = .working
        let uid: String
        do {
            uid = try await useCases.signedIn()
        } catch {
            state = .failed(error)
            return
        }
        let stream = useCases.repositories.conversations.conversations(of: uid)
        watcher = Task { [weak self] in
            do {
                for try await list in stream {
                    guard let self else { return }
                    self.conversations = list
                    self.state = .done
                }
            } catch {
                self?.state = .failed(ErrorMapping.app(error))
            }
        }
    }

    /// Stops following.
    public func stop() {
        watcher?.cancel()
        watcher = nil
    }
}

/// Messages: one conversation's messages, live, and sending one.
@MainActor @Observable
public final class MessagesViewModel {
    /// The conversation's id.
    public let conversationID: String
    /// The messages, oldest first.
    public private(set) var messages: [Message] = []
    /// The text being written.
    public var draft = ""
    /// The live list's progress.
    public private(set) var state: ActionState = .idle
    /// The last send's progress.
    public private(set) var sendState: ActionState = .idle
    /// The signed-in user (to tell own messages apart).
    public private(set) var me: String?
    private let useCases: UseCases
    private var watcher: Task<Void, Never>?

    /// The messages of `conversationID`.
    public init(conversationID: String, _ useCases: UseCases) {
        self.conversationID = conversationID
        self.useCases = useCases
    }

    /// Follows the messages until ``stop()``.
    public func start() async {
        guard watcher == nil else { return }
        me = await useCases.repositories.session.currentUserID()
        state = .working
        let stream = useCases.repositories.conversations.messages(in: conversationID)
        watcher = Task { [weak self] in
            do {
                for try await list in stream {
                    guard let self else { return }
                    self.messages = list
                    self.state = .done
                }
            } catch {
                self?.state = .failed(ErrorMapping.app(error))
            }
        }
    }

    /// Stops following.
    public func stop() {
        watcher?.cancel()
        watcher = nil
    }

    /// Whether "Send" is enabled.
    public var canSend: Bool { !draft.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty && sendState != .working }

    /// Sends the draft; it is cleared once sent and kept when sending failed.
    public func send() async {
        guard sendState != .working else { return }
        let text = draft
        sendState = .working
        do {
            try await useCases.send(text, in: conversationID)
            if draft == text { draft = "" }
            sendState = .done
        } catch {
            sendState = .failed(error)
        }
    }
}
