import Foundation
import HearthStore
import Testing

@testable import HearthServer
@testable import HearthStorage

/// The product series' building blocks (docs/operations.md): the batch-size histogram, storage usage, the page's
/// families, and the `--metrics-listen` address. Their counts through a real server are compat/test_metrics_more.py's.
@Suite("Metrics of the products")
struct MetricsProductTests {
    @Test(arguments: [
        ("127.0.0.1:9100", MetricsListenAddress(host: "127.0.0.1", port: 9100)),
        ("0.0.0.0:0", MetricsListenAddress(host: "0.0.0.0", port: 0)),
        ("metrics.internal:65535", MetricsListenAddress(host: "metrics.internal", port: 65535)),
        ("[::1]:9100", MetricsListenAddress(host: "::1", port: 9100)),
        ("127.0.0.1", nil), ("127.0.0.1:", nil), (":9100", nil), ("127.0.0.1:65536", nil), ("127.0.0.1:-1", nil),
        ("::1:9100", nil), ("[::1]9100", nil), ("[]:9100", nil), ("host:port", nil),
    ] as [(String, MetricsListenAddress?)])
    func listenAddressesParse(text: String, expected: MetricsListenAddress?) {
        #expect(MetricsListenAddress(parsing: text) == expected)
        if let expected { #expect(MetricsListenAddress(parsing: expected.description) == expected) }
    }

    @Test("Batches land in the first bucket whose bound holds them; the count and sum add up")
    func batchHistogram() {
        let histogram = BatchHistogram()
        for size in [1, 1, 2, 3, 64, 65, 513] { histogram.record(size) }
        let (cumulative, sum, count) = histogram.histogram
        // Bounds 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, +Inf.
        #expect(cumulative == [2, 3, 4, 4, 4, 4, 5, 6, 6, 6, 7])
        #expect(sum == 1 + 1 + 2 + 3 + 64 + 65 + 513)
        #expect(count == 7)
    }

    @Test("Storage usage is measured from the catalog once, then follows uploads and deletes")
    func storageUsage() async throws {
        let catalog = MemoryObjectCatalog()
        @Sendable func record(_ bucket: String, _ name: String, _ size: Int64) -> ObjectRecord {
            ObjectRecord(bucket: bucket, name: name, generation: 1, blob: "b", size: size, md5Hash: "", crc32c: "", timeCreated: 0, updated: 0)
        }
        try await catalog.transaction { tx in
            try tx.saveBucket(BucketRecord(name: "a", timeCreated: 0))
            try tx.saveBucket(BucketRecord(name: "b", timeCreated: 0))
            // More than one page of 1000 in bucket a.
            for i in 0..<1500 { try tx.saveObject(record("a", "o\(i)", 2)) }
            try tx.saveObject(record("b", "x", 500))
        }
        let usage = StorageUsage()
        // A change before the first measurement is in the catalog already: not counted twice.
        try await catalog.transaction { tx in try tx.saveObject(record("b", "y", 7)) }
        usage.stored(size: 7, replacing: nil)
        let first = try await usage.total(catalog: catalog)
        #expect(first.bytes == 3507 && first.objects == 1502)
        usage.stored(size: 1000, replacing: nil)
        usage.stored(size: 10, replacing: 500)
        usage.deleted(size: 2)
        // Later readings do not read the catalog (it changed behind the counters' back: not seen).
        try await catalog.transaction { tx in try tx.saveObject(record("b", "ignored", 1 << 20)) }
        let later = try await usage.total(catalog: catalog)
        #expect(later.bytes == 3507 + 1000 - 490 - 2 && later.objects == 1502)
    }

    @Test("Every product family has HELP and TYPE lines before its samples, and label values are escaped")
    func productFamilies() {
        let page = MetricsPage.renderProducts(
            ProductReadings(storage: (bytes: 1234, objects: 5), outboxes: [(queue: "db:a\"b", counts: OutboxCounts(waiting: 3, dead: 1))]))
        let lines = page.split(separator: "\n").map(String.init)
        var declared: Set<String> = []
        for line in lines {
            if line.hasPrefix("# TYPE ") {
                declared.insert(String(line.split(separator: " ")[2]))
                continue
            }
            if line.hasPrefix("# HELP ") { continue }
            let name = String(line.prefix { $0 != "{" && $0 != " " })
            let family = ["_bucket", "_sum", "_count"].reduce(name) { n, suffix in
                declared.contains(n) ? n : (n.hasSuffix(suffix) ? String(n.dropLast(suffix.count)) : n)
            }
            #expect(declared.contains(family), "\(line)")
        }
        #expect(lines.contains("hearth_storage_bytes 1234"))
        #expect(lines.contains("hearth_storage_objects 5"))
        #expect(lines.contains(#"hearth_functions_outbox_events{queue="db:a\"b",state="waiting"} 3"#))
        #expect(lines.contains(#"hearth_functions_outbox_events{queue="db:a\"b",state="dead"} 1"#))
        // One closure for every lookup (closures in `#expect` arguments can share a symbol; see scripts/check-test-closures).
        func has(_ prefix: String) -> Bool { lines.contains { $0.hasPrefix(prefix) } }
        for labels in [#"product="database",op="read""#, #"product="database",op="write""#, #"product="storage",op="read""#] {
            #expect(has("hearth_rule_denials_total{\(labels)} "))
        }
        #expect(has(#"hearth_auth_sign_ins_total{method="custom_token",outcome="failure"} "#))
        #expect(has(#"hearth_database_commit_batch_writes_bucket{le="+Inf"} "#))
    }
}
