import Foundation
import HearthCore
import HearthFunctions
import HearthMessaging

/// Barcode Comments (Examples/BarcodeComments): the app itself needs no functions (its multi-path updates and
/// rules keep the counters right); this one only tells the earlier commenters of a topic that there is a new comment.
///
/// Who commented on a topic is kept at `/topicCommenters/{code}/{uid}` (`true`), written only here (the rules give
/// clients no access), so a comment costs one small read and one write, not a scan of the topic's comments.
enum BarcodeComments {
    static func register(in functions: inout Functions) throws {
        try functions.onValueCreated("/comments/{code}/{commentId}", name: "barcodeCommentsNotify") { event, context in
            let code = event.params["code"]!
            guard let author = event.after["userId"]?.stringValue else { return }
            let name = event.after["displayName"]?.stringValue ?? "Someone"
            let text = event.after["commentText"]?.stringValue ?? ""
            let pushes = context.messaging != nil
            // The author joins the commenters and the others' notifications are queued, in one step, once per event
            // (a retried event neither adds the author twice nor notifies anyone twice).
            _ = try await context.database.atomically(once: event.id) { data, writes in
                let commenters = try data.value("topicCommenters/\(code)")
                if commenters[author] == nil { writes["topicCommenters/\(code)/\(author)"] = .bool(true) }
                guard pushes, case .object(let members) = commenters else { return }
                for uid in members.map(\.key) where uid != author {
                    var note = PushNotification(
                        title: "\(name) commented on \(code)", body: String(text.prefix(200)), data: ["code": code], threadID: "topic-\(code)")
                    note.collapseID = "comment-\(event.params["commentId"]!)"
                    try writes.send(note, to: .user(uid))
                }
            }
        }
    }
}
