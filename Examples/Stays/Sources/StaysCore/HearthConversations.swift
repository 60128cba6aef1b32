import Foundation
import Hearth
import HearthCore

struct HearthConversations: ConversationRepository {
    let database: Database

    /// One line as written by a member: the server's clock stamps it (the rules want `at === now`).
    struct MessageWrite: Encodable {
        var from: String
        var text: String
        var at : Hearth.ServerValue = .timestamp
    }

    /// What the merged listeners report to the loop that builds the list.
    enum Event: Sendable {
        /// `/userConversations/{uid}` now holds these keys.
        case index(Set<String>)
        /// A conversation's current value (nil: gone or not readable).
        case conversation(String, Conversation?)
    }

    /// Follows the index `/userConversations/{uid}` and each conversation it names (their `lastMessage` moves), and
    /// yields the whole list once every listed conversation has been read.
    func conversations(of uid: String) -> AsyncThrowingStream<[Conversation], any Error> {
        let database = self.database
        return AsyncThrowingStream { continuation in
            let task = Task {
                let (events, sink) = AsyncThrowingStream<Event, any Error>.makeStream()
                let index = Task {
                    do {
                        for try await snapshot in database.reference("userConversations").child(uid).snapshots() {
                            sink.yield(.index(Set(snapshot.children.compactMap(\.key))))
                        }
                        sink.finish()
                    } catch {
                        sink.finish(throwing: error)
                    }
                }
                var watchers: [String: Task<Void, Never>] = [:]
                defer {
                    index.cancel()
                    for watcher in watchers.values { watcher.cancel() }
                }
                var keys: Set<String> = []
                var known: [String: Conversation?] = [:]
                do {
                    for try await event in events {
                        switch event {
                        case .index(let newKeys):
                            for gone in keys.subtracting(newKeys) {
                                watchers.removeValue(forKey: gone)?.cancel()
                                known[gone] = nil
                            }
                            for added in newKeys.subtracting(keys) {
                                watchers[added] = Task {
                                    do {
                                        for try await snapshot in database.reference("conversations").child(added).snapshots() {
                                            var value = snapshot.exists ? try snapshot.value(as: Conversation.self) : nil
                                            value?.id = added
                                            sink.yield(.conversation(added, value))
                                        }
                                    } catch {
                                        sink.yield(.conversation(added, nil))
                                    }
                                }
                            }
                            keys = newKeys
                        case .conversation(let key, let value):
                            guard keys.contains(key) else { continue }
                            known[key] = value
                        }
                        if keys.allSatisfy({ known[$0] != nil }) {
                            continuation.yield(known.values.compactMap(\.self).sorted(by: Conversation.newestFirst))
                        }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: ErrorMapping.app(error))
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func conversation(_ conversationID: String) async throws(AppError) -> Conversation? {
        guard isKey(conversationID) else { return nil }
        return try await mapped { try await decodedValue(database.reference("conversations").child(conversationID), Conversation.self, id: \.id) }
    }

    func messages(in conversationID: String) -> AsyncThrowingStream<[Message], any Error> {
        guard isKey(conversationID) else {
            return AsyncThrowingStream { $0.finish(throwing: AppError.notFound) }
        }
        let query = database.reference("messages").child(conversationID).queryOrdered(byChild: "at")
        return liveValues(of: query) { try decodedChildren($0, Message.self, id: \.id).sorted(by: Message.oldestFirst) }
    }

    func send(_ text: String, in conversationID: String, from uid: String) async throws(AppError) {
        guard isKey(conversationID) else { throw .notFound }
        let message = database.reference("messages").child(conversationID).childByAutoId()
        let write = MessageWrite(from: uid, text: text)
        let updates: [String: any Encodable] = [
            "messages/\(conversationID)/\(message.key ?? "")": write, "conversations/\(conversationID)/lastMessage": write,
        ]
        try await mapped { try await database.reference().updateChildValues(updates) }
    }
}
