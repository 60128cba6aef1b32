import Foundation
import HearthCore

/// What the phone offers as proof that the user was in a campaign's context; the server checks it against the
/// campaign's secret proof (`/campaignProofs`).
///
/// ```swift
/// ShakeProof.video(videoId: "v42", watchedSeconds: 31).json   // {"videoId": "v42", "watchedSeconds": 31}
/// ```
public enum ShakeProof: Sendable, Hashable {
    /// `tv` and `stadium`: the watermark code heard: `{"watermark"}`.
    case watermark(String)
    /// `read`: the quiz answers by question id: `{"answers": {questionId: answer}}`.
    case answers([String: String])
    /// `video`: which video and how long it played: `{"videoId", "watchedSeconds"}`.
    case video(videoId: String, watchedSeconds: Double)
    /// `scan`: the product's EAN-13: `{"barcode"}`.
    case barcode(String)
    /// `receipt`: the receipt's id, its merchant and the EAN-13s on it: `{"receiptId", "merchant", "products"}`.
    case receipt(receiptId: String, merchant: String, products: [String])

    /// The `proof` the `shake` callable takes (object members in a fixed order; answers sorted by question id).
    public var json: JSONValue {
        switch self {
        case .watermark(let code):
            .object([JSONMember("watermark", .string(code))])
        case .answers(let answers):
            .object([JSONMember("answers", .object(answers.sorted { $0.key < $1.key }.map { JSONMember($0.key, .string($0.value)) }))])
        case .video(let videoId, let watchedSeconds):
            .object([JSONMember("videoId", .string(videoId)), JSONMember("watchedSeconds", Self.number(watchedSeconds))])
        case .barcode(let code):
            .object([JSONMember("barcode", .string(code))])
        case .receipt(let receiptId, let merchant, let products):
            .object([
                JSONMember("receiptId", .string(receiptId)), JSONMember("merchant", .string(merchant)),
                JSONMember("products", .array(products.map { .string($0) })),
            ])
        }
    }

    /// A whole number as an integer (`31`, not `31.0`), anything else as a double.
    static func number(_ value: Double) -> JSONValue {
        value.rounded() == value && abs(value) < 9e15 ? .int(Int64(value)) : .double(value)
    }

    /// The contexts this kind of proof is for.
    public var contexts: Set<Context> {
        switch self {
        case .watermark: [.tv, .stadium]
        case .answers: [.read]
        case .video: [.video]
        case .barcode: [.scan]
        case .receipt: [.receipt]
        }
    }

    /// Checks what the client can check before calling the server: the kind fits `context`, nothing is blank,
    /// barcodes are EAN-13 with a correct check digit, a receipt id can be a database key. Throws
    /// ``ShakeRefusal/invalidProof(_:)`` saying what is wrong.
    public func validate(for context: Context) throws(ShakeRefusal) {
        guard contexts.contains(context) else { throw .invalidProof("This proof is not for a \(context.rawValue) campaign.") }
        switch self {
        case .watermark(let code):
            guard !code.isEmpty else { throw .invalidProof("No watermark was heard.") }
        case .answers(let answers):
            guard !answers.isEmpty, answers.allSatisfy({ !$0.key.isEmpty && !$0.value.isEmpty }) else {
                throw .invalidProof("Answer every question first.")
            }
        case .video(let videoId, let watchedSeconds):
            guard !videoId.isEmpty, watchedSeconds >= 0, watchedSeconds.isFinite else { throw .invalidProof("The video was not recognised.") }
        case .barcode(let code):
            guard EAN13.isValid(code) else { throw .invalidProof("\(code) is not a valid EAN-13 barcode.") }
        case .receipt(let receiptId, let merchant, let products):
            guard (try? Key.validated(receiptId)) != nil else { throw .invalidProof("The receipt's id cannot be read.") }
            guard !merchant.isEmpty else { throw .invalidProof("The receipt's merchant cannot be read.") }
            guard !products.isEmpty else { throw .invalidProof("No products were read from the receipt.") }
            if let bad = products.first(where: { !EAN13.isValid($0) }) { throw .invalidProof("\(bad) is not a valid EAN-13 barcode.") }
        }
    }
}

/// Why the server did not pay a shake (the `shake` callable's errors, see Examples/Rewards/README.md).
public enum ShakeRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// Too soon after the last paid shake of this campaign; try again after this many seconds.
    case cooldown(retryAfterSeconds: Int)
    /// The user's paid shakes of this campaign for today are used up.
    case dailyLimit
    /// The campaign has not started or has ended.
    case notRunning
    /// The campaign's budget cannot pay another shake.
    case budgetSpent
    /// This receipt was paid for already (a receipt pays once, ever).
    case receiptUsed
    /// The campaign pays this tier and above only.
    case tierTooLow(minTier: Tier)
    /// The proof was refused (`invalid-argument`), with the reason.
    case invalidProof(String)
    /// No such campaign.
    case notFound

    /// What to tell the user.
    public var description: String {
        switch self {
        case .cooldown(let seconds): "Shake again in \(seconds) second\(seconds == 1 ? "" : "s")."
        case .dailyLimit: "That's all for today on this one. Come back tomorrow!"
        case .notRunning: "This campaign is not running right now."
        case .budgetSpent: "This campaign has given away all its coins."
        case .receiptUsed: "This receipt has already earned its coins."
        case .tierTooLow(let tier): tier == .pro ? "Complete your profile to earn here." : "Verify your phone number to earn here."
        case .invalidProof(let message): message
        case .notFound: "This campaign no longer exists."
        }
    }
}

/// EAN-13 barcodes: 13 digits, the last a check digit over the first 12 (weights 1, 3, 1, 3, … from the left).
///
/// ```swift
/// EAN13.isValid("4006381333931")  // true
/// EAN13.isValid("4006381333932")  // false: wrong check digit
/// ```
public enum EAN13 {
    /// Whether `code` is exactly 13 ASCII digits whose last is the check digit of the others.
    public static func isValid(_ code: String) -> Bool {
        let digits = Array(code.utf8)
        guard digits.count == 13, let check = checkDigit(String(decoding: digits.prefix(12), as: UTF8.self)) else { return false }
        return Int(digits[12]) - 0x30 == check
    }

    /// The check digit of 12 ASCII digits, nil for anything else.
    public static func checkDigit(_ first12: String) -> Int? {
        let digits = Array(first12.utf8)
        guard digits.count == 12, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var sum = 0
        for (i, d) in digits.enumerated() { sum += Int(d - 0x30) * (i % 2 == 0 ? 1 : 3) }
        return (10 - sum % 10) % 10
    }
}
