import HearthCore
import HearthRules
import Testing

/// The upload size bound read from storage rules: tight for the usual size conditions, absent
/// whenever a condition could accept a larger size, and never below a size the rules accept.
@Suite("Storage rules upload size bound")
struct StorageSizeBoundTests {
    static func rules(_ body: String) throws -> StorageRules {
        try StorageRules(source: """
            rules_version = '2';
            service firebase.storage {
              match /b/{bucket}/o {
            \(body)
              }
            }
            """)
    }

    @Test("bounds read from the conditions", arguments: [
        ("match /u/{uid}/{f} { allow write: if request.auth.uid == uid && request.resource.size < 5 * 1024 * 1024; }", Int64?.some(5 * 1024 * 1024 - 1)),
        ("match /u/{uid}/{f} { allow create: if request.resource.size <= 100; allow update: if request.resource.size <= 300; }", 300),
        ("match /u/{uid}/{f} { allow write: if 100 > request.resource.size; }", 99),
        ("match /u/{uid}/{f} { allow write: if request.resource.size == 7 || request.resource.size < 3; }", 7),
        ("match /u/{uid}/{f} { allow write: if request.resource.size < 2.5; }", 2),
        ("match /u/{uid}/{f} { allow write: if request.resource.size < 10 && request.resource.contentType.matches('image/.*'); }", 10 - 1),
        ("match /u/{uid}/{f} { allow write: if request.resource.size < 10; } match /u/{uid}/{f} { allow write: if request.resource.size < 20; }", 19),
        // Rules elsewhere do not count.
        ("match /u/{uid}/{f} { allow write: if request.resource.size < 10; } match /other/{f} { allow write: if true; }", 9),
        // Unbounded: an allow without a size bound, a bound on one side of ||, a bound depending on the request, a function.
        ("match /u/{uid}/{f} { allow write: if request.auth != null; }", nil),
        ("match /u/{uid}/{f} { allow write; }", nil),
        ("match /u/{uid}/{f} { allow write: if request.resource.size < 10 || request.auth.uid == uid; }", nil),
        ("match /u/{uid}/{f} { allow write: if request.resource.size < request.resource.metadata.max; }", nil),
        ("match /u/{uid}/{f} { allow write: if request.resource.size > 10; }", nil),
        ("match /u/{uid}/{f} { allow write: if !(request.resource.size >= 10); }", nil),
        ("match /u/{uid}/{f} { allow write: if request.resource.size < resource.size; }", nil),
        ("function small() { return request.resource.size < 10; } match /u/{uid}/{f} { allow write: if small(); }", nil),
        // No allow covers uploads: nothing can pass.
        ("match /u/{uid}/{f} { allow read: if true; }", -1),
    ])
    func bound(body: String, expected: Int64?) throws {
        #expect(try Self.rules(body).uploadSizeBound(bucket: "b", objectName: "u/ann/f.txt") == expected, "\(body)")
    }

    @Test("no size past the bound is ever allowed, and the bound itself is when the rule is a plain limit")
    func sound() throws {
        let bodies = [
            "match /u/{uid}/{f} { allow write: if request.auth.uid == uid && request.resource.size < 1000; }",
            "match /u/{uid}/{f} { allow write: if request.resource.size == 7 || request.resource.size <= 500 && request.resource.contentType == 'text/plain'; }",
            "match /u/{uid}/{f} { allow create: if request.resource.size < 2000 / 2; allow update: if request.resource.size < 10; }",
        ]
        for body in bodies {
            let rules = try Self.rules(body)
            let bound = try #require(rules.uploadSizeBound(bucket: "b", objectName: "u/ann/f.txt"))
            for size in [bound, bound + 1, bound + 100, 1 << 40] {
                for method in [StorageRulesMethod.create, .update] {
                    let request = StorageRulesRequest(
                        method: method, bucket: "b", objectName: "u/ann/f.txt", auth: StorageRulesAuth(uid: "ann"),
                        resource: StorageRulesResource(bucket: "b", name: "u/ann/f.txt", size: size, contentType: "text/plain"), time: 0)
                    if size > bound { #expect(!rules.evaluate(request).allowed, "\(body) allowed \(size) past \(bound)") }
                }
            }
        }
    }
}
