import ArgumentParser
import Foundation
import HearthCore
import HearthMessaging
import NIOCore
import NIOHTTP1

/// `hearth push send`: a test notification through a running server (its `POST /.hearth/messaging/send`).
struct PushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Push notifications through a running server (configured with --apns-* or --fcm-service-account).",
        subcommands: [Send.self]
    )

    struct Send: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send a notification to a user's devices, one device token or a topic, and print what each provider answered.",
            discussion: """
                Examples:
                  hearth push send --user u123 --title "Hello" --body "It works"
                  hearth push send --topic campaigns-berlin --title "A campaign near you" --field campaign=c7 --queue
                  hearth push send --device 8f3a… --json notification.json
                With --queue the push goes through the default database's outbox (retried, dead-lettered) and the \
                command returns at once.
                """)
        @OptionGroup var server: ServerConnection
        @Option(help: "A user: all their registered devices.") var user: String?
        @Option(help: "One device token (APNs hex or FCM).") var device: String?
        @Option(help: "A topic: every device subscribed to it.") var topic: String?
        @Option(help: "The title.") var title: String?
        @Option(help: "The text.") var body: String?
        @Option(name: .customLong("field"), help: "Data for the app, key=value (repeatable).") var fields: [String] = []
        @Option(help: "The badge number.") var badge: Int?
        @Option(help: "A sound file name, or default.") var sound: String?
        @Flag(help: "A silent (background) push: no alert, wakes the app with the data.") var silent = false
        @Option(help: "A JSON file with the whole notification (the REST API's form); the options above are then not used.")
        var json: String?
        @Flag(help: "Queue it in the outbox instead of sending now.") var queue = false

        func run() async throws {
            let targets = [user.map(PushTarget.user), device.map(PushTarget.device), topic.map(PushTarget.topic)].compactMap { $0 }
            guard targets.count == 1, let target = targets.first else { throw fail("give exactly one of --user, --device and --topic", .badConfiguration) }
            let notification: PushNotification
            do {
                notification = try self.notification()
                try notification.validate()
                try target.validate()
            } catch let error as PushError {
                throw fail(error.message, .badConfiguration)
            }
            var members = [JSONMember("target", target.json), JSONMember("notification", notification.json)]
            if queue { members.append(JSONMember("queue", .bool(true))) }
            let answer = try await server.call(
                .POST, server.base + "/.hearth/messaging/send", body: JSONValue.object(members).jsonBytes, token: server.credential())
            guard let report = try? JSONValue.parse(Array(buffer: answer)) else { return }
            if queue {
                print("queued")
                return
            }
            print("devices \(report["devices"]?.doubleValue.map { Int($0) } ?? 0), delivered \(report["delivered"]?.doubleValue.map { Int($0) } ?? 0)")
            if case .array(let removed)? = report["removed"] { for t in removed { print("removed (invalid token): \(t.stringValue ?? "")") } }
            for kind in ["retryable", "rejected"] {
                if case .array(let items)? = report[kind] {
                    for item in items { print("\(kind): \(item["token"]?.stringValue ?? ""): \(item["reason"]?.stringValue ?? "")") }
                }
            }
        }

        /// The notification the options (or the JSON file) describe.
        func notification() throws -> PushNotification {
            if let json {
                guard let bytes = FileManager.default.contents(atPath: json), let value = try? JSONValue.parse(Array(bytes)) else {
                    throw PushError("cannot read a JSON notification from \(json)")
                }
                return try PushNotification(json: value)
            }
            var note = silent ? PushNotification.silent(data: [:]) : PushNotification(title: title, body: body, badge: badge, sound: sound)
            for pair in fields {
                guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else { throw PushError("--field takes key=value (got \(pair))") }
                note.data[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
            }
            return note
        }
    }
}
