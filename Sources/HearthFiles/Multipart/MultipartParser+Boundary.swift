extension MultipartParser {
    /// The boundary of a multipart `Content-Type` header, quoted or not:
    /// `multipart/related; boundary="===============7330845974216740156=="` gives
    /// `===============7330845974216740156==`.
    ///
    /// Throws ``MultipartError/Code-swift.struct/invalidContentType`` if the type is not
    /// `multipart/*` or the boundary is missing or invalid.
    public static func boundary(contentType: String) throws(MultipartError) -> String {
        let parsed = MIMEHeaderValue(parsing: contentType)
        guard parsed.value.hasPrefix("multipart/") else {
            throw MultipartError(.invalidContentType, "the content type is not multipart/*")
        }
        guard let boundary = parsed["boundary"] else {
            throw MultipartError(.invalidContentType, "the content type has no boundary parameter")
        }
        try validate(boundary: boundary)
        return boundary
    }

    /// RFC 2046 allows 1 to 70 characters from a small set, not ending in a space. Any visible
    /// ASCII is accepted here (only CR and LF could confuse the parser), length and trailing
    /// space are enforced.
    static func validate(boundary: String) throws(MultipartError) {
        let bytes = Array(boundary.utf8)
        guard (1...70).contains(bytes.count) else {
            throw MultipartError(.invalidContentType, "a boundary must have 1 to 70 characters")
        }
        guard bytes.allSatisfy({ (0x20...0x7E).contains($0) }), bytes.last != .space else {
            throw MultipartError(.invalidContentType, "a boundary must be visible ASCII and not end in a space")
        }
    }
}
