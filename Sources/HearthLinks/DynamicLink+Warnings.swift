extension DynamicLink {
    /// Longest parameter value before `TOO_LONG_PARAM`, and longest long link before `LINK_LENGTH_TOO_LONG`.
    static let maxParameterLength = 2048
    static let maxLongLinkLength = 7168

    /// What looks wrong in the parameters (Firebase's create-time warnings): values that are not
    /// URIs or numbers where those are expected, and parameters that have no effect without another.
    var warnings: [LinkWarning] {
        var out: [LinkWarning] = []
        let p = parameters
        if let amv = p["amv"] {
            if Int64(amv) == nil { out.append(LinkWarning(.notIntegerAndroidPackageMinVersion, "amv must be an integer version code")) }
            if p["apn"] == nil { out.append(LinkWarning(.unnecessaryAndroidPackageMinVersion, "amv has no effect without apn")) }
        }
        if let al = p["al"] {
            if LinkURL(al) == nil { out.append(LinkWarning(.notURIAndroidLink, "al is not a URI")) }
            if p["apn"] == nil { out.append(LinkWarning(.unnecessaryAndroidLink, "al has no effect without apn")) }
        }
        Self.checkWebLink(p["afl"], "afl", .notURIAndroidFallbackLink, .badURISchemeAndroidFallbackLink, into: &out)
        if p["ius"] != nil && p["ibi"] == nil { out.append(LinkWarning(.unnecessaryIOSURLScheme, "ius has no effect without ibi")) }
        if let isi = p["isi"] {
            if isi.isEmpty || !isi.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                out.append(LinkWarning(.notNumericIOSAppStoreID, "isi must be the numeric App Store id"))
            }
            if p["ibi"] == nil { out.append(LinkWarning(.unnecessaryIOSAppStoreID, "isi has no effect without ibi")) }
        }
        Self.checkWebLink(p["ifl"], "ifl", .notURIIOSFallbackLink, .badURISchemeIOSFallbackLink, into: &out)
        Self.checkWebLink(p["ipfl"], "ipfl", .notURIIPadFallbackLink, .badURISchemeIPadFallbackLink, into: &out)
        Self.checkWebLink(p["si"], "si", .notURISocialImageLink, .badURISchemeSocialImageLink, into: &out)
        for name in Self.parameterNames {
            if let v = p[name], v.utf8.count > Self.maxParameterLength {
                out.append(LinkWarning(.tooLongParam, "\(name) is longer than \(Self.maxParameterLength) bytes"))
            }
        }
        if longLink.utf8.count > Self.maxLongLinkLength {
            out.append(LinkWarning(.linkLengthTooLong, "The long link is longer than \(Self.maxLongLinkLength) bytes"))
        }
        return out
    }

    /// A fallback or image link must be an http(s) URI.
    private static func checkWebLink(
        _ value: String?, _ name: String, _ notURI: LinkWarning.Code, _ badScheme: LinkWarning.Code, into out: inout [LinkWarning]
    ) {
        guard let value else { return }
        guard let url = LinkURL(value) else { return out.append(LinkWarning(notURI, "\(name) is not a URI")) }
        if !url.isHTTP { out.append(LinkWarning(badScheme, "\(name) must use http or https")) }
    }
}
