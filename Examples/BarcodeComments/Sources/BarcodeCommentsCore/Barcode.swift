import Foundation

/// A scanned code, validated and turned into the key of its topic (`/topics/{key}`).
///
/// - EAN-13, EAN-8, UPC-A and UPC-E: digits only, check digit verified. UPC-A and UPC-E name the same
///   products as EAN-13 with a leading 0, so they are stored in that 13-digit form: one product, one
///   topic, whichever way the camera read it. An 8-digit code is EAN-8 when its EAN-8 check digit
///   holds, otherwise UPC-E.
/// - Anything else (Code 128, QR text): trimmed, 1–80 characters, stored as `t-` plus its UTF-8
///   with every byte outside `A–Z a–z 0–9 _ -` percent-encoded (database keys cannot hold `. / # $ [ ]`).
///
/// ```swift
/// let code = try Barcode(scanned: " 4006381333931 ")   // .ean13, key "4006381333931"
/// try Barcode(scanned: "4006381333932")                // BarcodeError.wrongCheckDigit
/// ```
public struct Barcode: Sendable, Hashable, CustomStringConvertible {
    public enum Symbology: String, Sendable, Hashable {
        case ean13, ean8, upcA, upcE, text
    }

    public let symbology: Symbology
    /// The key of the topic: 13 or 8 digits, or `t-…` for text.
    public let key: String
    /// What to show: the digits as scanned (UPC-A/E unexpanded) or the text.
    public let displayText: String

    public static let maxTextLength = 80

    public init(scanned: String) throws(BarcodeError) {
        let trimmed = scanned.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .empty }
        if trimmed.allSatisfy({ $0.isASCII && $0.isNumber }) {
            let digits = trimmed.utf8.map { Int($0 - 0x30) }
            switch digits.count {
            case 13:
                guard Self.checkDigitHolds(digits) else { throw .wrongCheckDigit(.ean13) }
                self.init(.ean13, key: trimmed, display: trimmed)
            case 12:
                guard Self.checkDigitHolds(digits) else { throw .wrongCheckDigit(.upcA) }
                self.init(.upcA, key: "0" + trimmed, display: trimmed)
            case 8:
                if Self.checkDigitHolds(digits) {
                    self.init(.ean8, key: trimmed, display: trimmed)
                } else if let upcA = Self.expandUPCE(digits), Self.checkDigitHolds(upcA) {
                    self.init(.upcE, key: "0" + upcA.map(String.init).joined(), display: trimmed)
                } else {
                    throw .wrongCheckDigit(.ean8)
                }
            default:
                // Other digit strings (ITF, Code 128 numbers, …) are kept as text.
                try self.init(text: trimmed)
            }
            return
        }
        try self.init(text: trimmed)
    }

    /// A topic key read back from the database.
    public init?(key: String) {
        if key.hasPrefix("t-") {
            guard let text = Self.decode(String(key.dropFirst(2))) else { return nil }
            self.init(.text, key: key, display: text)
        } else if let code = try? Barcode(scanned: key), code.key == key {
            self = code
        } else {
            return nil
        }
    }

    private init(_ symbology: Symbology, key: String, display: String) {
        self.symbology = symbology
        self.key = key
        self.displayText = display
    }

    private init(text: String) throws(BarcodeError) {
        guard text.count <= Self.maxTextLength else { throw .tooLong(max: Self.maxTextLength) }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { throw .invalidCharacters }
        let key = "t-" + Self.encode(text)
        // The rules accept keys of up to 242 characters; non-ASCII text takes up to 12 per character.
        guard key.utf8.count <= 242 else { throw .tooLong(max: Self.maxTextLength) }
        self.init(.text, key: key, display: text)
    }

    public var description: String { displayText }

    /// GTIN check: from the right, the digits before the check digit weigh 3, 1, 3, …
    static func checkDigitHolds(_ digits: [Int]) -> Bool {
        guard let check = digits.last else { return false }
        var sum = 0
        for (i, d) in digits.dropLast().reversed().enumerated() { sum += d * (i % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10 == check
    }

    /// UPC-E (number system 0 or 1, six digits, check digit) as the 12 UPC-A digits it stands for.
    static func expandUPCE(_ d: [Int]) -> [Int]? {
        guard d.count == 8, d[0] == 0 || d[0] == 1 else { return nil }
        let (ns, x, check) = (d[0], Array(d[1...6]), d[7])
        let body: [Int]
        switch x[5] {
        case 0, 1, 2: body = [x[0], x[1], x[5], 0, 0, 0, 0, x[2], x[3], x[4]]
        case 3: body = [x[0], x[1], x[2], 0, 0, 0, 0, 0, x[3], x[4]]
        case 4: body = [x[0], x[1], x[2], x[3], 0, 0, 0, 0, 0, x[4]]
        default: body = [x[0], x[1], x[2], x[3], x[4], 0, 0, 0, 0, x[5]]
        }
        return [ns] + body + [check]
    }

    private static func isKeySafe(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b == 0x2D
    }

    static func encode(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for b in text.utf8 {
            if isKeySafe(b) {
                out.append(b)
            } else {
                out += [0x25, hex[Int(b >> 4)], hex[Int(b & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ key: String) -> String? {
        var bytes: [UInt8] = []
        var it = Array(key.utf8)[...]
        while let b = it.popFirst() {
            if b == 0x25 {
                guard let h = it.popFirst(), let l = it.popFirst(), let hi = hexValue(h), let lo = hexValue(l) else { return nil }
                bytes.append(hi << 4 | lo)
            } else {
                guard isKeySafe(b) else { return nil }
                bytes.append(b)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        default: nil
        }
    }
}

/// Why a scanned code was refused, in words for the user.
public enum BarcodeError: Error, Sendable, Hashable, CustomStringConvertible {
    case empty
    case wrongCheckDigit(Barcode.Symbology)
    case tooLong(max: Int)
    case invalidCharacters

    public var description: String {
        switch self {
        case .empty: "No code was read. Try scanning again."
        case .wrongCheckDigit(let s):
            "This \(s == .ean13 ? "EAN-13" : s == .ean8 ? "EAN-8 or UPC-E" : "UPC-A") code's check digit is wrong: it was probably misread or mistyped."
        case .tooLong(let max): "This code is too long to store (at most \(max) characters, fewer for accented letters and emoji)."
        case .invalidCharacters: "This code contains characters that cannot be stored."
        }
    }
}
