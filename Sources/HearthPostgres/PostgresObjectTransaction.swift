import Foundation
import HearthStore
import PostgresNIO

/// An `ObjectTransaction` over one project's `hearth_storage_…` rows, valid only inside the session's
/// transaction. Records are stored as the JSON SQLite's catalog keeps; the outbox is box `storage:<project>`.
final class PostgresObjectTransaction: ObjectTransaction, PostgresOutboxHost {
    let session: PostgresSession
    let project: String
    var box: String { "storage:" + project }

    init(session: PostgresSession, project: String) {
        self.session = session
        self.project = project
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ row: PostgresRow) throws -> T {
        try JSONDecoder().decode(type, from: try row.decode(Data.self))
    }

    func bucket(_ name: String) throws -> BucketRecord? {
        try session.query("SELECT record FROM hearth_storage_buckets WHERE project = \(project) AND name = \(name)")
            .first.map { try Self.decode(BucketRecord.self, $0) }
    }

    func buckets() throws -> [BucketRecord] {
        try session.query("SELECT record FROM hearth_storage_buckets WHERE project = \(project) ORDER BY name")
            .map { try Self.decode(BucketRecord.self, $0) }
    }

    func saveBucket(_ bucket: BucketRecord) throws {
        let record = try JSONEncoder().encode(bucket)
        try session.execute(
            """
            INSERT INTO hearth_storage_buckets(project, name, record) VALUES (\(project), \(bucket.name), \(record))
            ON CONFLICT (project, name) DO UPDATE SET record = excluded.record
            """)
    }

    func deleteBucket(_ name: String) throws {
        try session.execute("DELETE FROM hearth_storage_objects WHERE project = \(project) AND bucket = \(name)")
        try session.execute("DELETE FROM hearth_storage_buckets WHERE project = \(project) AND name = \(name)")
    }

    func hasObjects(bucket: String) throws -> Bool {
        try !session.query("SELECT 1 FROM hearth_storage_objects WHERE project = \(project) AND bucket = \(bucket) LIMIT 1").isEmpty
    }

    func object(bucket: String, name: String) throws -> ObjectRecord? {
        try session.query(
            "SELECT record FROM hearth_storage_objects WHERE project = \(project) AND bucket = \(bucket) AND name = \(name)"
        ).first.map { try Self.decode(ObjectRecord.self, $0) }
    }

    func saveObject(_ object: ObjectRecord) throws {
        let record = try JSONEncoder().encode(object)
        try session.execute(
            """
            INSERT INTO hearth_storage_objects(project, bucket, name, record) VALUES (\(project), \(object.bucket), \(object.name), \(record))
            ON CONFLICT (project, bucket, name) DO UPDATE SET record = excluded.record
            """)
    }

    func deleteObject(bucket: String, name: String) throws {
        try session.execute("DELETE FROM hearth_storage_objects WHERE project = \(project) AND bucket = \(bucket) AND name = \(name)")
    }

    /// One range scan of the primary key; the columns' "C" collation makes `>`, `<` and the order bytewise.
    func objects(bucket: String, from lower: String, inclusive: Bool, before upper: String?, limit: Int) throws -> [ObjectRecord] {
        let above = inclusive ? ">=" : ">"
        let rows: [PostgresRow]
        if let upper {
            rows = try session.query(
                """
                SELECT record FROM hearth_storage_objects WHERE project = \(project) AND bucket = \(bucket)
                AND name \(unescaped: above) \(lower) AND name < \(upper) ORDER BY name LIMIT \(max(0, limit))
                """)
        } else {
            rows = try session.query(
                """
                SELECT record FROM hearth_storage_objects WHERE project = \(project) AND bucket = \(bucket)
                AND name \(unescaped: above) \(lower) ORDER BY name LIMIT \(max(0, limit))
                """)
        }
        return try rows.map { try Self.decode(ObjectRecord.self, $0) }
    }

    func upload(_ id: String) throws -> Data? {
        try session.query("SELECT data FROM hearth_storage_uploads WHERE project = \(project) AND id = \(id)").first?.decode(Data.self)
    }

    func saveUpload(_ id: String, data: Data, created: Int64) throws {
        try session.execute(
            """
            INSERT INTO hearth_storage_uploads(project, id, data, created) VALUES (\(project), \(id), \(data), \(created))
            ON CONFLICT (project, id) DO UPDATE SET data = excluded.data, created = excluded.created
            """)
    }

    func deleteUpload(_ id: String) throws {
        try session.execute("DELETE FROM hearth_storage_uploads WHERE project = \(project) AND id = \(id)")
    }

    func deleteUploads(createdBefore: Int64) throws {
        try session.execute("DELETE FROM hearth_storage_uploads WHERE project = \(project) AND created < \(createdBefore)")
    }
}
