import HearthFunctions
import HearthMessaging
import HearthStorage
import HearthStore
import Synchronization

/// What a scrape reads from the products besides the counters: measured when `/metrics` is asked for (see
/// ``ScrapeSources/read()``).
struct ProductReadings: Sendable {
    /// Stored object bytes and count (nil: no storage, or it could not be read).
    var storage: (bytes: Int64, objects: Int)?
    /// Waiting events and dead letters by outbox (`db:<namespace>`, `auth`, `storage`).
    var outboxes: [(queue: String, counts: OutboxCounts)] = []
}

/// The products a scrape reads: wired by the server once it is built.
final class ScrapeSources: Sendable {
    /// The most events of one kind a scrape counts in one outbox: counting stops there (an index range scan of at
    /// most this many entries), and the gauge then reads this bound.
    static let outboxCountLimit = 10_000

    /// The storage service and the functions runtime (either may be absent).
    private let products = Mutex<(storage: StorageService?, functions: FunctionsRuntime?)>((nil, nil))

    /// No products until ``wire(storage:functions:)``.
    init() {}

    /// Sets the products to read.
    func wire(storage: StorageService?, functions: FunctionsRuntime?) {
        products.withLock { $0 = (storage, functions) }
    }

    /// Reads storage usage and every outbox's counts; a product that fails to answer is left out of the page.
    func read() async -> ProductReadings {
        let (storage, functions) = products.withLock { $0 }
        var readings = ProductReadings()
        if let storage { readings.storage = try? await storage.usage.total(catalog: storage.catalog) }
        for dispatcher in functions?.allDispatchers ?? [] {
            if let counts = try? await dispatcher.queue.counts(Self.outboxCountLimit) {
                readings.outboxes.append((dispatcher.queue.name, counts))
            }
        }
        return readings
    }
}

extension MetricsPage {
    /// Group commits, rule denials, sign-ins, storage usage and the function outboxes, in Prometheus' text format.
    static func renderProducts(_ readings: ProductReadings) -> String {
        var page = PrometheusText()
        commits(into: &page)
        page.family(
            "hearth_rule_denials_total", "Requests the security rules refused, by product (database, storage) and operation (read, write).",
            type: "counter")
        for product in RuleDenials.Product.allCases {
            for op in RuleDenials.Operation.allCases {
                page.sample("hearth_rule_denials_total", ["product": product.label, "op": op.label], Double(RuleDenials.total(product, op)))
            }
        }
        page.family(
            "hearth_auth_sign_ins_total", "Sign-ins (and token refreshes) answered by the auth endpoints, by method and outcome.", type: "counter")
        for method in SignInCounts.Method.allCases {
            for success in [true, false] {
                page.sample(
                    "hearth_auth_sign_ins_total", ["method": method.label, "outcome": success ? "success" : "failure"],
                    Double(SignInCounts.total(method, success: success)))
            }
        }
        page.family(
            "hearth_push_notifications_total", "Push notifications sent to devices, by outcome (delivered, token_removed, retryable, rejected).",
            type: "counter")
        for outcome in PushMetrics.Outcome.allCases {
            page.sample("hearth_push_notifications_total", ["outcome": outcome.label], Double(PushMetrics.total(outcome)))
        }
        if let storage = readings.storage {
            page.single("hearth_storage_bytes", "Bytes of the stored objects (the catalog's sizes).", type: "gauge", Double(storage.bytes))
            page.single("hearth_storage_objects", "Stored objects.", type: "gauge", Double(storage.objects))
        }
        if !readings.outboxes.isEmpty {
            page.family(
                "hearth_functions_outbox_events",
                "Function trigger events in each outbox: waiting (due or to be retried) or dead (gave up); counted up to \(ScrapeSources.outboxCountLimit).",
                type: "gauge")
            for (queue, counts) in readings.outboxes {
                page.sample("hearth_functions_outbox_events", ["queue": queue, "state": "waiting"], Double(counts.waiting))
                page.sample("hearth_functions_outbox_events", ["queue": queue, "state": "dead"], Double(counts.dead))
            }
        }
        return page.text
    }

    /// `hearth_database_commit_batch_writes`: writes per group commit, as a histogram (its count is the commits).
    private static func commits(into page: inout PrometheusText) {
        let (cumulative, sum, count) = CommitBatches.histogram
        page.family(
            "hearth_database_commit_batch_writes",
            "Writes per database commit: concurrent writes are committed together in one transaction (count: commits).", type: "histogram")
        for (i, bound) in (BatchHistogram.bounds.map(Double.init) + [.infinity]).enumerated() {
            page.sample("hearth_database_commit_batch_writes_bucket", ["le": PrometheusText.number(bound)], Double(cumulative[i]))
        }
        page.sample("hearth_database_commit_batch_writes_sum", [:], Double(sum))
        page.sample("hearth_database_commit_batch_writes_count", [:], Double(count))
    }
}
