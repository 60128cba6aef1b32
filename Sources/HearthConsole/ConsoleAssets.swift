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

    /// Every file's path, sorted.
    public static var paths: [String] { files.keys.sorted() }
}
