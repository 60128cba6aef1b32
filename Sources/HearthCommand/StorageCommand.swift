import ArgumentParser
import AsyncHTTPClient
import Foundation
import HearthCore
import HearthRules
import NIOCore
import NIOHTTP1

/// `hearth storage rules check|set`: storage security rules without an HTTP call.
struct StorageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storage", abstract: "File storage administration.", subcommands: [Rules.self, Export.self, Import.self])

    struct Rules: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check storage rules, or install them in a data folder.", subcommands: [Check.self, Set.self])
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Compile a storage.rules file; errors name the line and column.")

        @Argument(help: "The rules file (rules_version = '2'; service firebase.storage { … }).") var file: String

        func run() throws {
            let rules = try compile(file)
            print("\(file): ok (\(rules.allowStatements.count) allow statements)")
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Install storage rules in the data folder; a running server picks them up within a second.")

        @Argument(help: "The rules file.") var file: String
        @Option(help: "Data folder (HEARTH_DATA; default ./hearth-data).") var data: String?

        func run() throws {
            let rules = try compile(file)
            let folder = data ?? ProcessInfo.processInfo.environment["HEARTH_DATA"] ?? "./hearth-data"
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try Data(rules.source.utf8).write(to: URL(fileURLWithPath: folder + "/storage.rules"), options: .atomic)
            } catch {
                throw fail("cannot write \(folder)/storage.rules: \(error)", .dataFolderNotWritable)
            }
            print("installed \(file) as \(folder)/storage.rules")
        }
    }
}

/// Compiles a storage rules file or exits 7 with the error's position.
private func compile(_ file: String) throws -> StorageRules {
    guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
        throw fail("cannot read \(file)", .rulesFailed)
    }
    do {
        return try StorageRules(source: text)
    } catch {
        FileHandle.standardError.write(Data("\(file): \(error)\n".utf8))
        throw ExitCode.rulesFailed
    }
}

extension StorageCommand {
    /// The object fields an export keeps and an import sets again.
    static let keptFields = ["contentType", "contentEncoding", "contentDisposition", "contentLanguage", "cacheControl", "customTime", "metadata"]

    /// The bucket the transfer commands use.
    struct BucketOption: ParsableArguments {
        @Option(help: "Bucket (default <HEARTH_PROJECT or demo>.appspot.com).") var bucket: String?

        var name: String { bucket ?? "\(ProcessInfo.processInfo.environment["HEARTH_PROJECT"] ?? "demo").appspot.com" }
    }

    /// `hearth storage export DIR`: every object of a bucket into a folder, each with its metadata.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy every object of a bucket from a running server into a folder: DIR/objects/<name> and DIR/metadata/<name>.json.")
        @OptionGroup var server: ServerConnection
        @OptionGroup var bucket: BucketOption
        @Argument(help: "The folder to write (created; must not hold an earlier export).") var folder: String

        func run() async throws {
            let token = server.credential()
            let fm = FileManager.default
            if fm.fileExists(atPath: folder + "/objects") { throw fail("\(folder)/objects exists: export into a new folder") }
            var pageToken: String?
            var count = 0
            var bytes = 0
            repeat {
                var query = "maxResults=1000"
                if let pageToken { query += "&pageToken=" + encode(pageToken) }
                let page = try await server.call(.GET, "\(server.base)/storage/v1/b/\(encode(bucket.name))/o?\(query)", token: token)
                let json = try JSONValue.parse(page.readableBytesView)
                pageToken = json["nextPageToken"]?.stringValue
                guard case .array(let items)? = json["items"] else { continue }
                for item in items {
                    guard let name = item["name"]?.stringValue else { continue }
                    let (file, meta) = (folder + "/objects/" + name, folder + "/metadata/" + name + ".json")
                    guard !name.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
                        throw fail("object \(quoted(name)) has a name that is no file path (empty, . or .. segment)")
                    }
                    do {
                        try fm.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                        try fm.createDirectory(atPath: (meta as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                    } catch { throw fail("cannot write \(file): \(error)") }
                    bytes += try await download(name, to: file, token: token)
                    try Data(item.jsonBytes).write(to: URL(fileURLWithPath: meta))
                    count += 1
                }
            } while pageToken != nil
            FileHandle.standardError.write(Data("exported \(count) objects (\(bytes) bytes) from \(bucket.name) to \(folder)\n".utf8))
        }

        /// Streams one object's bytes into `file`; returns their count.
        private func download(_ name: String, to file: String, token: String) async throws -> Int {
            var request = HTTPClientRequest(url: "\(server.base)/download/storage/v1/b/\(encode(bucket.name))/o/\(encode(name))?alt=media")
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(3600))
            guard response.status == .ok else { throw fail("GET \(name): \(response.status.code)") }
            guard fm.createFile(atPath: file, contents: nil), let handle = FileHandle(forWritingAtPath: file) else { throw fail("cannot write \(file)") }
            defer { try? handle.close() }
            var total = 0
            for try await chunk in response.body {
                handle.write(Data(chunk.readableBytesView))
                total += chunk.readableBytes
            }
            return total
        }

        private var fm: FileManager { .default }
    }

    /// `hearth storage import DIR`: a folder written by `storage export` into a bucket, metadata included.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Upload every file under DIR/objects to a bucket of a running server, with the content type and metadata in DIR/metadata (existing objects of the same name are replaced).")
        @OptionGroup var server: ServerConnection
        @OptionGroup var bucket: BucketOption
        @Argument(help: "A folder written by `hearth storage export`.") var folder: String

        func run() async throws {
            let token = server.credential()
            let root = URL(fileURLWithPath: folder + "/objects").standardizedFileURL.path
            guard let walker = FileManager.default.enumerator(atPath: root) else { throw fail("there is no \(root)") }
            var names: [String] = []
            while let next = walker.nextObject() as? String {
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: root + "/" + next, isDirectory: &isFolder), !isFolder.boolValue { names.append(next) }
            }
            var bytes = 0
            for name in names.sorted() { bytes += try await upload(name, from: root + "/" + name, token: token) }
            FileHandle.standardError.write(Data("imported \(names.count) objects (\(bytes) bytes) from \(folder) into \(bucket.name)\n".utf8))
        }

        /// One multipart upload (metadata part, then the file streamed from disk); returns the file's size.
        private func upload(_ name: String, from file: String, token: String) async throws -> Int {
            var resource: [JSONMember] = [JSONMember("name", .string(name))]
            if let data = FileManager.default.contents(atPath: folder + "/metadata/" + name + ".json") {
                guard case .object(let fields)? = try? JSONValue.parse(Array(data)) else { throw fail("\(folder)/metadata/\(name).json is not a JSON object") }
                resource += fields.filter { StorageCommand.keptFields.contains($0.key) }
            }
            guard let size = (try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? NSNumber, let handle = FileHandle(forReadingAtPath: file) else {
                throw fail("cannot read \(file)")
            }
            let boundary = "hearth-" + UUID().uuidString
            let contentType = resource.first { $0.key == "contentType" }?.value.stringValue ?? "application/octet-stream"
            let head = Array("--\(boundary)\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n".utf8) + JSONValue.object(resource).jsonBytes
                + Array("\r\n--\(boundary)\r\nContent-Type: \(contentType)\r\n\r\n".utf8)
            let tail = Array("\r\n--\(boundary)--\r\n".utf8)
            let parts = MultipartBody(head: head, handle: handle, tail: tail)
            var request = HTTPClientRequest(url: "\(server.base)/upload/storage/v1/b/\(encode(bucket.name))/o?uploadType=multipart")
            request.method = .POST
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            request.headers.add(name: "Content-Type", value: "multipart/related; boundary=\(boundary)")
            request.body = .stream(parts, length: .known(Int64(head.count + size.intValue + tail.count)))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(3600))
            let answer = try await response.body.collect(upTo: 1 << 20)
            guard response.status == .ok else { throw fail("upload of \(name): \(response.status.code) \(String(buffer: answer))") }
            return size.intValue
        }
    }
}

/// A multipart body read as it is sent: the metadata part, the file in 1 MiB chunks, the closing boundary.
struct MultipartBody: AsyncSequence, Sendable {
    /// The bytes before the file.
    let head: [UInt8]
    /// The file, read by the one iterator.
    let handle: FileHandle
    /// The bytes after the file.
    let tail: [UInt8]

    /// Yields head, file chunks, tail.
    struct AsyncIterator: AsyncIteratorProtocol {
        /// The body being sent.
        let body: MultipartBody
        /// 0 head, 1 file, 2 tail, 3 done.
        var stage = 0

        /// The next chunk, nil at the end.
        mutating func next() async throws -> ByteBuffer? {
            switch stage {
            case 0:
                stage = 1
                return ByteBuffer(bytes: body.head)
            case 1:
                let chunk = body.handle.readData(ofLength: 1 << 20)
                if !chunk.isEmpty { return ByteBuffer(bytes: chunk) }
                try? body.handle.close()
                stage = 3
                return ByteBuffer(bytes: body.tail)
            default:
                return nil
            }
        }
    }

    /// A fresh iterator (the body is sent once).
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(body: self) }
}

/// `text` escaped for one URL path segment or query value.
private func encode(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
}
