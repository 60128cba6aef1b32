import HearthCore
import HearthRules
import HearthStorage
import HearthStore
import Synchronization
import Testing

/// The storage rules applied to callers with no HTTP in between: the domain step both storage APIs share.
@Suite("Storage access")
struct StorageAccessTests {
    static let rules = """
        rules_version = '2';
        service firebase.storage {
          match /b/{bucket}/o {
            match /users/{uid}/{file} {
              allow read, list: if request.auth != null;
              allow create: if request.auth.uid == uid && request.resource.size < 1000;
              allow delete: if request.auth.uid == uid;
            }
          }
        }
        """

    final class Denials: Sendable {
        let list = Mutex<[String]>([])
    }

    static func access(denials: Denials? = nil) async throws -> StorageAccess {
        let rules = StorageRulesHolder(path: nil)
        try rules.replace(with: Self.rules)
        return StorageAccess(service: try await StorageRouterTests.storage(), rules: rules) { method, bucket, name, _ in
            denials?.list.withLock { $0.append("\(method) \(bucket)/\(name)") }
        }
    }

    static let alice = Caller.user(.object([JSONMember("uid", .string("alice"))]))
    static let bucket = "demo.appspot.com"

    @Test func eachOperationIsDecidedByTheRulesAndDenialsAreReported() async throws {
        let denials = Denials()
        let access = try await Self.access(denials: denials)
        let planned = try access.plannedObject(bucket: Self.bucket, name: "users/alice/a.png", size: 10, fields: ObjectFields())
        #expect(planned.contentType == "application/octet-stream")
        try access.authorize(Self.alice, .create, bucket: Self.bucket, name: "users/alice/a.png", resource: planned)
        try access.authorize(Self.alice, .list, bucket: Self.bucket, name: "users/bob/")
        let tooBig = try access.plannedObject(bucket: Self.bucket, name: "users/alice/a.png", size: 5000, fields: ObjectFields())
        #expect(throws: StorageError.forbidden("Permission denied. No WRITE permission.")) {
            try access.authorize(Self.alice, .create, bucket: Self.bucket, name: "users/alice/a.png", resource: tooBig)
        }
        #expect(throws: StorageError.forbidden("Permission denied. No READ permission.")) {
            try access.authorize(.signedOut, .get, bucket: Self.bucket, name: "users/alice/a.png")
        }
        #expect(throws: StorageError.forbidden("Permission denied. No WRITE permission.")) {
            try access.authorize(Self.alice, .delete, bucket: Self.bucket, name: "users/bob/b.png")
        }
        // The admin skips the rules and is never reported.
        try access.authorize(.admin, .delete, bucket: Self.bucket, name: "users/bob/b.png")
        #expect(denials.list.withLock { $0 } == ["create \(Self.bucket)/users/alice/a.png", "get \(Self.bucket)/users/alice/a.png", "delete \(Self.bucket)/users/bob/b.png"])
    }

    @Test func uploadsArePrecheckedAndBoundedByTheRulesSizeConditions() async throws {
        let access = try await Self.access()
        // Declared sizes are checked as they are; an undeclared one passes if some size could.
        try await access.precheck(Self.alice, bucket: Self.bucket, name: "users/alice/a.png", size: 10, fields: ObjectFields())
        try await access.precheck(Self.alice, bucket: Self.bucket, name: "users/alice/a.png", size: nil, fields: ObjectFields())
        await #expect(throws: StorageError.self) {
            try await access.precheck(Self.alice, bucket: Self.bucket, name: "users/alice/a.png", size: 5000, fields: ObjectFields())
        }
        await #expect(throws: StorageError.self) {
            try await access.precheck(.signedOut, bucket: Self.bucket, name: "users/alice/a.png", size: nil, fields: ObjectFields())
        }
        let limit = access.uploadLimit(Self.alice, bucket: Self.bucket, name: "users/alice/a.png")
        #expect(limit.bytes == 999)
        #expect(limit.refusal == StorageError.forbidden("Permission denied. No WRITE permission."))
        #expect(access.uploadLimit(.admin, bucket: Self.bucket, name: "users/alice/a.png").bytes == StorageService.maxObjectBytes)
    }
}
