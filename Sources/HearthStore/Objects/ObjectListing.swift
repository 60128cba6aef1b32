import Foundation

/// What to list in a bucket (Cloud Storage's list parameters).
public struct ObjectListQuery: Sendable {
    /// Only names starting with this.
    public var prefix: String
    /// When set, names with this after the prefix are rolled up into one prefix entry ("folder"); "" means none.
    public var delimiter: String?
    /// Only names at or after this (UTF-8 byte order).
    public var startOffset: String?
    /// Only names before this.
    public var endOffset: String?
    /// Continue after the page that returned this token (``ObjectListing/nextPageToken``).
    public var pageToken: String?
    /// Most objects plus prefixes in one page; at least 1.
    public var maxResults: Int
    /// Also list an object whose name is a prefix entry itself (`photos/` with delimiter `/`).
    public var includeTrailingDelimiter: Bool
    /// Only objects whose names match this glob (prefix entries are not filtered).
    public var matchGlob: ObjectGlob?

    /// A query; an empty `delimiter` counts as none and `maxResults` below 1 as 1.
    public init(
        prefix: String = "", delimiter: String? = nil, startOffset: String? = nil, endOffset: String? = nil, pageToken: String? = nil,
        maxResults: Int = 1000, includeTrailingDelimiter: Bool = false, matchGlob: ObjectGlob? = nil
    ) {
        self.prefix = prefix
        self.delimiter = delimiter?.isEmpty == true ? nil : delimiter
        self.startOffset = startOffset
        self.endOffset = endOffset
        self.pageToken = pageToken
        self.maxResults = max(1, maxResults)
        self.includeTrailingDelimiter = includeTrailingDelimiter
        self.matchGlob = matchGlob
    }
}

/// One page of a listing: objects and "folders" (prefixes up to the delimiter), in name order.
public struct ObjectListing: Sendable {
    /// The objects of the page, in name order.
    public var objects: [ObjectRecord]
    /// The prefix entries of the page, each ending with the delimiter.
    public var prefixes: [String]
    /// Set when more follows: pass it as ``ObjectListQuery/pageToken`` for the next page.
    public var nextPageToken: String?
}

/// A page token the server did not hand out.
public struct InvalidPageToken: Error, Sendable {}

extension ObjectTransaction {
    /// Lists objects and prefixes; both count towards `maxResults`. Reads only what the page
    /// shows: a folder is skipped over with one range read, however many objects it holds.
    public func list(bucket: String, _ query: ObjectListQuery) throws -> ObjectListing {
        var lower = query.prefix
        var inclusive = true
        if let start = query.startOffset, lower.utf8Precedes(start) { lower = start }
        if let token = query.pageToken {
            guard let (key, isPrefix) = Self.decodeToken(token) else { throw InvalidPageToken() }
            if isPrefix {
                let next = Self.successor(key)
                if lower.utf8Precedes(next) { (lower, inclusive) = (next, true) }
            } else if !key.utf8Precedes(lower) {
                (lower, inclusive) = (key, false)
            }
        }
        var upper = query.prefix.isEmpty ? nil : Self.successor(query.prefix)
        if let end = query.endOffset, upper.map({ end.utf8Precedes($0) }) ?? true { upper = end }

        var listing = ObjectListing(objects: [], prefixes: [], nextPageToken: nil)
        var last: (key: String, isPrefix: Bool)?
        var full: Bool { listing.objects.count + listing.prefixes.count >= query.maxResults }
        scanning: while !full {
            let batch = try objects(bucket: bucket, from: lower, inclusive: inclusive, before: upper, limit: 256)
            if batch.isEmpty { break }
            for object in batch {
                if full { break scanning }
                if let delimiter = query.delimiter, let folder = Self.folder(of: object.name, prefix: query.prefix, delimiter: delimiter) {
                    listing.prefixes.append(folder)
                    if query.includeTrailingDelimiter && object.name == folder { listing.objects.append(object) }
                    last = (folder, true)
                    (lower, inclusive) = (Self.successor(folder), true)
                    continue scanning
                }
                if query.matchGlob?.matches(object.name) ?? true {
                    listing.objects.append(object)
                    last = (object.name, false)
                }
                (lower, inclusive) = (object.name, false)
            }
            if batch.count < 256 { break }
        }
        if full, let last, !(try objects(bucket: bucket, from: lower, inclusive: inclusive, before: upper, limit: 1).isEmpty) {
            listing.nextPageToken = Self.encodeToken(last.key, isPrefix: last.isPrefix)
        }
        return listing
    }

    /// `prefix + …up to and including the first delimiter after prefix`, or nil.
    static func folder(of name: String, prefix: String, delimiter: String) -> String? {
        guard name.utf8.count > prefix.utf8.count else { return nil }
        let rest = name.utf8.dropFirst(prefix.utf8.count)
        guard let range = Substring(rest).range(of: delimiter) else { return nil }
        return String(name[..<range.upperBound])
    }

    /// The smallest string greater than every string that starts with `s`.
    static func successor(_ s: String) -> String {
        var scalars = Array(s.unicodeScalars)
        while let last = scalars.popLast() {
            var next = last.value + 1
            if next == 0xD800 { next = 0xE000 }
            if let scalar = Unicode.Scalar(next) {
                scalars.append(scalar)
                var out = String.UnicodeScalarView()
                out.append(contentsOf: scalars)
                return String(out)
            }
        }
        return String(repeating: "\u{10FFFF}", count: 4)
    }

    static func encodeToken(_ key: String, isPrefix: Bool) -> String {
        Data(((isPrefix ? "p:" : "n:") + key).utf8).base64EncodedString()
    }

    static func decodeToken(_ token: String) -> (String, Bool)? {
        guard let data = Data(base64Encoded: token), let text = String(data: data, encoding: .utf8), text.count >= 2 else { return nil }
        switch text.prefix(2) {
        case "p:": return (String(text.dropFirst(2)), true)
        case "n:": return (String(text.dropFirst(2)), false)
        default: return nil
        }
    }
}
