import Foundation
import HearthCore
import HearthFunctions

/// Two small functions the console's browser test (compat/test_console_functions.py) drives: a trigger that fails
/// until a switch in the database is on (so its events become dead letters quickly, to be retried from the
/// console), and a daily job to run by hand.
enum ConsoleDemo {
    /// Where the demo keeps its data.
    static let root = "/consoleDemo"

    /// Registers `consoleDemoShip` and `consoleDemoDailyReport`.
    static func register(in functions: inout Functions) throws {
        // An order ships only while `/consoleDemo/switch` is true; two quick attempts, then a dead letter.
        let quick = RetryPolicy(maxAttempts: 2, initialBackoff: .milliseconds(100), maxBackoff: .milliseconds(200))
        try functions.onValueCreated("\(root)/orders/{id}", name: "consoleDemoShip", retry: quick) { event, context in
            guard try await context.database.get("\(root)/switch") == .bool(true) else {
                throw FunctionsError("Shipping is switched off (\(root)/switch is not true)")
            }
            let id = event.params["id"] ?? "?"
            try await context.database.set("\(root)/shipped/\(id)", event.after, idempotencyKey: event.id)
        }

        // Every morning: how many orders have shipped so far.
        try functions.schedule("consoleDemoDailyReport", "0 6 * * *") { event, context in
            let shipped = try await context.database.get("\(root)/shipped")
            let count = if case .object(let members) = shipped { members.count } else { 0 }
            let at = Int64((event.scheduledTime.timeIntervalSince1970 * 1000).rounded())
            try await context.database.set("\(root)/report", .object([JSONMember("shipped", .int(Int64(count))), JSONMember("at", .int(at))]))
        }
    }
}
