import ArgumentParser
import Foundation
import HearthCore
import NIOCore
import NIOHTTP1

extension DBCommand {
    /// `hearth db import FILE [PATH]`: a JSON file (Firebase's export) into a location, in bounded writes.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace a location (default: the whole database) with a JSON file, streamed in writes of at most --batch-bytes.",
            discussion: """
                The file is read twice and never held in memory: first checked from start to end (JSON syntax, keys the \
                database accepts, no value larger than a batch), and only if all of it is valid is the location cleared \
                and written, in multi-path PATCHes of at most --batch-bytes each. A malformed file writes nothing and \
                names the byte offset of the error. A failure during the writes (server gone, rules) leaves the \
                location partly written: run the import again.
                """)
        @OptionGroup var server: ServerConnection
        @Argument(help: "The JSON file (Firebase's console export, `hearth db export`'s output).") var file: String
        @Argument(help: "The location to replace, e.g. /users (default: everything).") var path = "/"
        @Option(help: "Largest write in bytes; keep it under the server's --max-body-bytes (default 16 MiB).") var batchBytes = 4 << 20
        @Flag(help: "Show the progress line even when standard error is not a terminal.") var progress = false

        func validate() throws {
            guard batchBytes >= 1024 else { throw ArgumentParser.ValidationError("--batch-bytes is at least 1024") }
        }

        func run() async throws {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: file), let size = (attributes[.size] as? NSNumber)?.intValue,
                FileHandle(forReadingAtPath: file) != nil
            else { throw fail("cannot read \(file)") }
            let token = server.credential()
            let target = path.split(separator: "/").joined(separator: "/")

            let check = TransferProgress(forced: progress, total: size)
            do {
                let scanner = try scanner(progress: check, step: "checked")
                try await scanner.scan(into: nil)
            } catch let e as JSONStreamError {
                check.finish()
                throw fail("\(file): \(e); nothing was imported")
            }
            check.finish()

            let write = TransferProgress(forced: progress, total: size)
            let batcher = ImportBatcher(limit: batchBytes) { entries in
                if entries.count == 1, entries[0].path.isEmpty {
                    _ = try await server.call(.PUT, server.address(target, [("print", "silent")]), body: entries[0].raw, token: token)
                    return
                }
                var body: [UInt8] = [0x7B]
                for (i, e) in entries.enumerated() {
                    if i > 0 { body.append(0x2C) }
                    body += Array(quoted(e.path).utf8)
                    body.append(0x3A)
                    body += e.raw
                }
                body.append(0x7D)
                _ = try await server.call(.PATCH, server.address(target, [("print", "silent")]), body: body, token: token)
            }
            _ = try await server.call(.DELETE, server.address(target, [("print", "silent")]), token: token)
            do {
                let scanner = try scanner(progress: write, step: "imported")
                try await scanner.scan(into: batcher)
                try await batcher.flush()
            } catch let e as JSONStreamError {
                write.finish()
                throw fail("\(file): \(e) (the file changed after it was checked?); the location is partly written")
            }
            write.report("imported", bytes: size, force: true)
            write.finish()
            FileHandle.standardError.write(Data("imported \(size) bytes into /\(target) in \(batcher.batches) writes\n".utf8))
        }

        private func scanner(progress: TransferProgress, step: String) throws -> JSONStreamScanner {
            guard let handle = FileHandle(forReadingAtPath: file) else { throw fail("cannot read \(file)") }
            let scanner = JSONStreamScanner(handle: handle)
            scanner.maxPrimitive = batchBytes - 64
            scanner.onRead = { progress.report(step, bytes: $0) }
            return scanner
        }
    }
}
