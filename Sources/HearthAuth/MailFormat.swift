public import Foundation

/// Renders an `OutgoingMessage` email as an RFC 5322 message ready for SMTP `DATA`: CRLF line
/// ends, a UTF-8 plain-text body (7bit when it is short-lined ASCII, base64 otherwise), encoded
/// words for a non-ASCII subject, and dot-stuffing. Addresses are checked so that no header or
/// recipient can be smuggled in through them.
public enum MailFormat {
    /// Thrown for an address that is not a bare `local@domain` (whitespace, controls, angle brackets, separators).
    public struct InvalidAddress: Error, CustomStringConvertible, Sendable {
        /// A fixed text that does not repeat the address.
        public var description: String { "not a deliverable email address" }
    }

    /// A bare `local@domain` address: no whitespace, controls, angle brackets or separators.
    public static func checkedAddress(_ address: String) throws -> String {
        guard AuthService.isValidEmail(address) else { throw InvalidAddress() }
        return address
    }

    /// `"Name <a@b>"` or `"a@b"` → the bare address and an optional display name.
    public static func parseMailbox(_ mailbox: String) throws -> (address: String, name: String?) {
        let trimmed = mailbox.trimmingCharacters(in: .whitespaces)
        guard let open = trimmed.lastIndex(of: "<"), trimmed.hasSuffix(">") else { return (try checkedAddress(trimmed), nil) }
        let address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
        let name = trimmed[..<open].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        guard !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { throw InvalidAddress() }
        return (try checkedAddress(address), name.isEmpty ? nil : name)
    }

    /// The message's bytes, with CRLF line ends and dot-stuffing, without the final `.` line.
    public static func render(
        from: String, to: String, subject: String, body: String, date: Date, messageID: String
    ) throws -> [UInt8] {
        let sender = try parseMailbox(from)
        let recipient = try checkedAddress(to)
        var headers = [
            "From: " + (sender.name.map { encodedWordIfNeeded($0, quoting: true) + " <\(sender.address)>" } ?? sender.address),
            "To: " + recipient,
            "Subject: " + encodedWordIfNeeded(subject.filter { !$0.isNewline }, quoting: false),
            "Date: " + rfc5322Date(date),
            "Message-ID: <\(messageID)@\(sender.address.split(separator: "@").last ?? "hearth")>",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
        ]
        let lines = body.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        var text: [String]
        if body.utf8.allSatisfy({ $0 < 0x80 }) && lines.allSatisfy({ $0.utf8.count <= 998 }) {
            headers.append("Content-Transfer-Encoding: 7bit")
            text = lines.map { $0.hasPrefix(".") ? "." + $0 : String($0) }
        } else {
            headers.append("Content-Transfer-Encoding: base64")
            let encoded = Data(body.utf8).base64EncodedString()
            text = stride(from: 0, to: encoded.count, by: 76).map { start in
                let from = encoded.index(encoded.startIndex, offsetBy: start)
                return String(encoded[from..<(encoded.index(from, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex)])
            }
        }
        return Array((headers + [""] + text).joined(separator: "\r\n").utf8) + Array("\r\n".utf8)
    }

    /// ASCII text as is (quoted if it holds specials and `quoting`), anything else as an RFC 2047 encoded word.
    static func encodedWordIfNeeded(_ text: String, quoting: Bool) -> String {
        if text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) {
            let specials = Set("()<>[]:;@\\,.\"".unicodeScalars)
            guard quoting, text.unicodeScalars.contains(where: specials.contains) else { return text }
            return "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        return "=?utf-8?B?" + Data(text.utf8).base64EncodedString() + "?="
    }

    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}
