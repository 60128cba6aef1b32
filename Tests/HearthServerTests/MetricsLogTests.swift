import Foundation
import Logging
import Testing

@testable import HearthCommand

/// `--log-format json`: one JSON object per line (docs/operations.md).
@Suite("JSON log handler")
struct MetricsLogTests {
    /// Logs through a JSON handler writing into a pipe and returns the lines that came out.
    func lines(provider: Logger.MetadataProvider? = nil, _ body: (inout Logger) -> Void) throws -> [String] {
        let pipe = Pipe()
        var logger = Logger(label: "hearth-test") {
            LineLogHandler(label: $0, format: .json, descriptor: pipe.fileHandleForWriting.fileDescriptor, metadataProvider: provider)
        }
        body(&logger)
        try pipe.fileHandleForWriting.close()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.hasSuffix("\n"))
        return text.split(separator: "\n").map(String.init)
    }

    @Test("one object per record: time (UTC, ms), level, label, message, metadata (nested kept), source")
    func shape() throws {
        let provider = Logger.MetadataProvider { ["hearth.request.id": "r-9"] }
        let out = try lines(provider: provider) { logger in
            logger[metadataKey: "b"] = "logger"
            logger.warning("disk \"low\"\n\u{1}", metadata: ["b": "call", "list": ["x", "2"], "map": ["k": "v"]])
            logger.debug("dropped")
        }
        #expect(out.count == 1)
        let parsed = try JSONSerialization.jsonObject(with: Data(out[0].utf8))
        let object = try #require(parsed as? [String: Any])
        #expect(Set(object.keys) == ["time", "level", "label", "message", "metadata", "source"])
        let time = try #require(object["time"] as? String)
        #expect(time.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression) != nil, "\(time)")
        #expect(object["level"] as? String == "warning")
        #expect(object["label"] as? String == "hearth-test")
        #expect(object["message"] as? String == "disk \"low\"\n\u{1}")
        #expect(object["source"] as? String == "HearthServerTests")
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["b"] as? String == "call")
        #expect(metadata["hearth.request.id"] as? String == "r-9")
        #expect(metadata["list"] as? [String] == ["x", "2"])
        #expect(metadata["map"] as? [String: String] == ["k": "v"])
    }

    @Test("--log-format accepts text and json only")
    func formats() {
        #expect(LogFormat(rawValue: "json") == .json)
        #expect(LogFormat(rawValue: "text") == .text)
        #expect(LogFormat(rawValue: "JSON") == nil)
    }
}
