import Foundation
import Logging
import Testing

@testable import HearthCommand

@Suite("Line log handler")
struct LineLogHandlerTests {
    /// Logs through a handler writing into a pipe and returns what came out.
    func output(_ body: (inout Logger) -> Void) throws -> String {
        let pipe = Pipe()
        var logger = Logger(label: "hearth-test") { LineLogHandler(label: $0, descriptor: pipe.fileHandleForWriting.fileDescriptor) }
        body(&logger)
        try pipe.fileHandleForWriting.close()
        return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    @Test("one line per record: time, level, label, sorted metadata (logger's, then the call's on top), source, message")
    func lineShape() throws {
        let text = try output { logger in
            logger[metadataKey: "hb.request.id"] = "r1"
            logger[metadataKey: "b"] = "logger"
            logger.warning("disk low", metadata: ["b": "call", "a": "1"])
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty)
        let line = String(lines[0])
        #expect(line.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} "#, options: .regularExpression) != nil, "\(line)")
        #expect(line.hasSuffix(" warning hearth-test : a=1 b=call hb.request.id=r1 [HearthServerTests] disk low"), "\(line)")
    }

    @Test("setting metadata writes nothing; records below the level are dropped")
    func quietUntilARecordIsWritten() throws {
        let text = try output { logger in
            logger.logLevel = .info
            for i in 0..<100 { logger[metadataKey: "hb.request.id"] = "\(i)" }
            logger.debug("not shown")
            logger.info("shown")
        }
        #expect(text.split(separator: "\n").count == 1)
        #expect(text.contains("hb.request.id=99 [HearthServerTests] shown"))
        #expect(!text.contains("not shown"))
    }
}
