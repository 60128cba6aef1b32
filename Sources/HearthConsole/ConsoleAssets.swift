import Foundation
import Crypto

/// One file of the console: its bytes, type and entity tag.
public struct ConsoleAsset: Sendable {
    /// The `Content-Type` it is served with.
    public let contentType: String
    /// The file's bytes.
    public let bytes: [UInt8]
    /// A strong entity tag: the first 16 hex digits of the bytes' SHA-256, quoted.
    public let etag: String

    /// A file served with `contentType`.
    public init(contentType: String, text: String) {
        self.init(contentType, text)
    }

    init(_ contentType: String, _ text: String) {
        self.contentType = contentType
        bytes = Array(text.utf8)
        etag = "\"" + SHA256.hash(data: Data(bytes)).prefix(8).map { String(format: "%02x", $0) }.joined() + "\""
    }
}

/// The console's files, compiled into the binary from `Sources/HearthConsole/web` by `scripts/console-assets`
/// (no build step at install, nothing fetched from elsewhere).
///
/// ```swift
/// ConsoleAssets.asset("js/app.js")?.contentType  // "text/javascript; charset=utf-8"
/// ```
public enum ConsoleAssets {
    /// The page every console address serves (`index.html`); its scripts pick the view from the address.
    public static var shell: ConsoleAsset { files["index.html"]! }

    /// The file at `path`, relative to `web/` (`console.css`, `js/data.js`), or nil.
    public static func asset(_ path: String) -> ConsoleAsset? { files[path] }

    /// The type a file named `path` is served with (by its extension), or nil for a kind the console has none of.
    public static func contentType(for path: String) -> String? {
        let types = [
            "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
            "svg": "image/svg+xml", "json": "application/json",
        ]
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        return types[String(path[path.index(after: dot)...])]
    }

    /// Every file's path, sorted.
    public static var paths: [String] { files.keys.sorted() }
}
