import Foundation
import HTTPTypes
import HearthCommand
import HearthCore
import HearthFunctions
import Synchronization

// A server with functions built to be crashed and measured, for the process tests
// (compat/test_functions_process.py) and the trigger-latency benchmark. Files in $FIXTURE_DIR
// steer it:
//   hold-<id>         /jobs/<id> waits 5 s before doing anything (so a test can kill it first)
//   crash-after-<id>  /jobs/<id> kills the process (SIGKILL) after its effect, before the outbox
//                     hears it finished; the file is removed first, so the rerun does not crash
//   heal-<id>         /flaky/<id> succeeds (without it, it throws)
// Every run of /jobs/<id> appends "run <id> <attempt>" to $FIXTURE_DIR/runs.log.
let folder = ProcessInfo.processInfo.environment["FIXTURE_DIR"] ?? FileManager.default.temporaryDirectory.path

func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: folder + "/" + name) }

func appendLine(_ line: String) {
    let fd = open(folder + "/runs.log", O_WRONLY | O_APPEND | O_CREAT, 0o644)
    guard fd >= 0 else { return }
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

/// Commit-to-start delays of /latency/{id} triggers, in microseconds.
let latencies = Mutex<[Int64]>([])

var functions = Functions()
do {
    try functions.onValueCreated("/jobs/{id}") { event, context in
        let id = event.params["id"]!
        if exists("hold-\(id)") { try await Task.sleep(for: .seconds(5)) }
        appendLine("run \(id) \(event.attempt)")
        let applied = try await context.database.update("/", ["results/\(id)/effects": .object([JSONMember(".sv", .object([JSONMember("increment", .int(1))]))])], idempotencyKey: event.id)
        if !applied { appendLine("duplicate \(id)") }
        if exists("crash-after-\(id)") {
            try FileManager.default.removeItem(atPath: folder + "/crash-after-\(id)")
            kill(getpid(), SIGKILL)
        }
    }
    try functions.onValueCreated(
        "/flaky/{id}", retry: RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(100), maxBackoff: .milliseconds(200))
    ) { event, context in
        let id = event.params["id"]!
        guard exists("heal-\(id)") else { throw FunctionsError("flaky \(id) failed on attempt \(event.attempt)") }
        try await context.database.set("/results/\(id)/healed", .bool(true))
    }
    try functions.onValueCreated("/latency/{id}") { event, _ in
        let micros = Int64(Date().timeIntervalSince(event.time) * 1_000_000)
        latencies.withLock { $0.append(micros) }
    }
    // {"count", "p50", "p99", "max"} in microseconds; DELETE resets.
    try functions.http(.get, "/fixture/latency") { _, _ in
        let sorted = latencies.withLock { $0.sorted() }
        func pct(_ p: Double) -> Int64 { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        let body = "{\"count\":\(sorted.count),\"p50\":\(pct(0.5)),\"p99\":\(pct(0.99)),\"max\":\(sorted.last ?? 0)}"
        return HTTPFunctionResponse(status: .ok, headers: [.contentType: "application/json"], body: Array(body.utf8))
    }
    try functions.http(.delete, "/fixture/latency") { _, _ in
        latencies.withLock { $0.removeAll() }
        return HTTPFunctionResponse(status: .noContent)
    }
} catch {
    fatalError("\(error)")
}
await HearthCommand.main(functions: functions)
