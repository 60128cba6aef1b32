import Foundation
import HearthSQLite

/// `hearth backup restore --at TIME`: a backup restored, then each realtime database brought forward
/// to `TIME` by replaying its write log (see ``WriteLog``).
///
/// The base is the newest complete backup whose snapshot of every namespace database stands for a
/// point at or before `TIME`. For each namespace, the changes after the base's sequence come from the
/// first later source that reaches `TIME`: a later backup's snapshot, else a snapshot of the live data
/// folder. A source reaches `TIME` when its log holds a change committed after `TIME`, or when its
/// snapshot started at least ``margin`` after `TIME` (a commit in flight is done by then). Its log must
/// hold every change after the base (no gap), else the restore is refused. Changes are applied in
/// sequence order up to the first one committed after `TIME` (a prefix: a state the database was in).
/// Accounts, links and the storage catalog come from the base backup as they are.
struct PointInTimeRestore {
    /// Why a point-in-time restore is refused; `description` says the recoverable window.
    struct Refusal: Error, CustomStringConvertible {
        /// The message shown.
        var description: String
    }

    /// What the restore did.
    struct Report {
        /// The base backup.
        var base: BackupManifest
        /// Per namespace file: changes replayed and where they came from.
        var replayed: [(path: String, changes: Int, source: String)]
    }

    /// A commit is assumed done this long after its time was taken (it is recorded inside its transaction).
    static let margin: Int64 = 1000

    /// The backups.
    let repository: BackupRepository
    /// The live data folder (the source of changes newer than the newest backup).
    let data: String
    /// The point to restore, milliseconds since 1970.
    let at: Int64
    /// The clock (milliseconds since 1970).
    var now: () -> Int64 = { BackupMaker.millis(Date()) }

    /// The backups that can be a base, oldest first: complete, format 2 (with sequences), holding at
    /// least one realtime database.
    func bases() throws -> [BackupManifest] {
        try repository.list().compactMap(\.manifest).filter { m in
            let namespaces = m.files.filter(\.isNamespace)
            return !namespaces.isEmpty && namespaces.allSatisfy { $0.sequence != nil && $0.pointMillis != nil }
        }
    }

    /// The point a backup stands for: the latest commit time among its namespace snapshots.
    static func point(_ m: BackupManifest) -> Int64 {
        m.files.filter(\.isNamespace).compactMap(\.pointMillis).max() ?? 0
    }

    /// Restores into `target` (which must be new or empty); `id` forces the base backup.
    func run(to target: String, id: String?) async throws -> Report {
        guard at <= now() else {
            throw Refusal(description: "--at \(Self.text(at)) is in the future (now \(Self.text(now())))")
        }
        let all = try bases()
        guard var base = all.last(where: { Self.point($0) <= at }) else {
            throw Refusal(description: "no backup was taken at or before \(Self.text(at)); \(try windowText(all))")
        }
        if let id {
            guard let forced = all.first(where: { $0.id == id }) else { throw Refusal(description: "backup \(id) has no sequence numbers (made by an older hearth) or is incomplete") }
            guard Self.point(forced) <= at else { throw Refusal(description: "backup \(id) holds changes made after \(Self.text(at)) (its point is \(Self.text(Self.point(forced))))") }
            base = forced
        }
        let later = Array(all.drop { $0.id != base.id }.dropFirst())
        try repository.restore(base, to: target)
        let scratch = target + "/.pitr-scratch"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var paths = Set(base.files.filter(\.isNamespace).map(\.path))
        for m in later { paths.formUnion(m.files.filter(\.isNamespace).map(\.path)) }
        let live = (try? FileManager.default.contentsOfDirectory(atPath: data)) ?? []
        paths.formUnion(live.filter { BackupManifest.Entry.isNamespacePath($0) })
        var report = Report(base: base, replayed: [])
        for path in paths.sorted() {
            let entry = base.files.first { $0.path == path }
            let from = entry?.sequence ?? 0
            let destination = target + "/" + path
            let created = entry == nil
            if created {
                let store = try SQLiteStore(path: destination)
                try await store.close()
            }
            let (source, replayed) = try bringForward(path, from: from, into: destination, later: later, scratch: scratch)
            if created && replayed == 0 {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: destination + suffix) }
                continue
            }
            report.replayed.append((path, replayed, source))
        }
        return report
    }

    /// Replays `path`'s changes after sequence `from` into `destination`, from the first source that reaches ``at``.
    private func bringForward(
        _ path: String, from: UInt64, into destination: String, later: [BackupManifest], scratch: String
    ) throws -> (source: String, changes: Int) {
        var newest: Int64?
        /// Replays from one source when it reaches ``at``; nil when it does not.
        func attempt(_ name: String, _ file: String, started: Int64) throws -> (source: String, changes: Int)? {
            guard let info = try WriteLog.info(ofFile: file, after: from), info.sequence >= from else { return nil }
            let logged = info.last.map { $0 > from } ?? false
            if logged, let m = info.lastMillis { newest = max(newest ?? m, m) }
            let reaches = (logged && (info.lastMillis ?? .min) > at) || started - Self.margin >= at
            guard reaches else { return nil }
            guard WriteLog.isComplete(info, after: from) else {
                let reason = info.hasLog
                    ? "the write log in \(name) does not hold every change after sequence \(from) (the base backup's)"
                        + (info.first.map { ", it starts at \($0)" } ?? ", it holds none") + ": pruned, or the write log was off for a while"
                    : "\(name) has no write log (serve with --write-log, or --backup-every which turns it on)"
                throw Refusal(description: "cannot restore \(path) to \(Self.text(at)): \(reason)")
            }
            let done = try WriteLog.replay(from: file, into: destination, after: from, until: at)
            return (name, done.changes)
        }
        for m in later {
            guard let e = m.files.first(where: { $0.path == path }), let started = e.snapshotStartMillis else { continue }
            if let done = try attempt("backup \(m.id)", repository.blob(e.sha256), started: started) { return done }
        }
        let file = data + "/" + path
        if FileManager.default.fileExists(atPath: file) {
            // An online snapshot of the live file (a read): the server keeps writing meanwhile.
            let copy = scratch + "/live-" + path
            try? FileManager.default.removeItem(atPath: copy)
            let started = now()
            try SQLiteSnapshot.copy(from: file, to: copy)
            if let done = try attempt("the live data folder \(data)", copy, started: started) { return done }
        }
        let reach = newest.map { "its write log reaches \(Self.text($0))" } ?? "no write log after its backup"
        throw Refusal(description: "cannot restore \(path) to \(Self.text(at)): no later backup or live write log reaches that time (\(reach))")
    }

    /// The recoverable window over `bases`, in words (the live folder's log is not read).
    func windowText(_ bases: [BackupManifest]) throws -> String {
        guard let first = bases.first else { return "no backup has sequence numbers yet, so there is no point-in-time window" }
        return "the earliest recoverable point is \(Self.text(Self.point(first))) (backup \(first.id))"
    }

    /// ISO 8601 UTC with milliseconds.
    static func text(_ millis: Int64) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: Date(timeIntervalSince1970: Double(millis) / 1000))
    }

    /// Parses `--at`: ISO 8601 UTC (`2026-11-29T10:15:30Z`, fractional seconds allowed) or a Unix time in seconds.
    static func parse(_ text: String) -> Int64? {
        if let seconds = Double(text), seconds.isFinite, seconds > 0 { return Int64((seconds * 1000).rounded(.down)) }
        let f = ISO8601DateFormatter()
        if let d = f.date(from: text) { return BackupMaker.millis(d) }
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.date(from: text).map(BackupMaker.millis)
    }
}
