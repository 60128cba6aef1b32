import HearthCore

extension DynamicLink {
    /// A `dynamicLinkInfo` object read into its domain prefix, long-link parameters and Hearth's
    /// `inviter` extension.
    struct Info: Equatable {
        /// `domainUriPrefix`, or `https://` + the deprecated `dynamicLinkDomain`.
        var prefix: String?
        var parameters: [String: String] = [:]
        var inviter: String?
    }

    /// Field → long-link parameter, per nested object of `dynamicLinkInfo` (the create API's table).
    static let infoFields: [String: [String: String]] = [
        "androidInfo": [
            "androidPackageName": "apn", "androidFallbackLink": "afl", "androidMinPackageVersionCode": "amv", "androidLink": "al",
        ],
        "iosInfo": [
            "iosBundleId": "ibi", "iosFallbackLink": "ifl", "iosCustomScheme": "ius", "iosIpadFallbackLink": "ipfl",
            "iosIpadBundleId": "ipbi", "iosAppStoreId": "isi", "iosMinimumVersion": "imv",
        ],
        "desktopInfo": ["desktopFallbackLink": "ofl"],
        "socialMetaTagInfo": ["socialTitle": "st", "socialDescription": "sd", "socialImageLink": "si"],
        "googlePlayAnalytics": [
            "utmSource": "utm_source", "utmMedium": "utm_medium", "utmCampaign": "utm_campaign", "utmTerm": "utm_term",
            "utmContent": "utm_content", "gclid": "gclid",
        ],
        "itunesConnectAnalytics": ["at": "at", "ct": "ct", "mt": "mt", "pt": "pt"],
    ]

    /// `dynamic_link_info` → `dynamicLinkInfo` (proto JSON accepts both spellings).
    static func camelCase(_ key: String) -> String {
        guard key.contains("_") else { return key }
        var out = ""
        var upper = false
        for c in key {
            if c == "_" { upper = true; continue }
            out += upper ? c.uppercased() : String(c)
            upper = false
        }
        return out
    }

    /// Reads a `dynamicLinkInfo` object.
    /// - Throws: ``LinkError`` for an unknown field or a value of the wrong type, as Google's JSON
    ///   parser does.
    static func info(_ value: JSONValue) throws(LinkError) -> Info {
        guard case .object(let members) = value else {
            throw LinkError(.invalidArgument, "Invalid value at 'dynamic_link_info': expected an object")
        }
        var info = Info()
        for m in members {
            let key = camelCase(m.key)
            if m.value == .null { continue }
            switch key {
            case "domainUriPrefix": info.prefix = try string(m.value, key)
            case "dynamicLinkDomain":
                let domain = try string(m.value, key)
                if info.prefix == nil { info.prefix = "https://" + domain }
            case "link": info.parameters["link"] = try string(m.value, key)
            case "inviter": info.inviter = try string(m.value, key)
            case "navigationInfo":
                try nested(m.value, key, fields: ["enableForcedRedirect"]) { field, v throws(LinkError) in
                    guard case .bool(let on) = v else {
                        throw LinkError(.invalidArgument, "Invalid value at 'dynamic_link_info.navigation_info.\(field)' (TYPE_BOOL)")
                    }
                    if on { info.parameters["efr"] = "1" }
                }
            case "analyticsInfo":
                try nested(m.value, key, fields: ["googlePlayAnalytics", "itunesConnectAnalytics"]) { field, v throws(LinkError) in
                    try mapped(v, field, into: &info.parameters)
                }
            default:
                guard infoFields[key] != nil, key != "googlePlayAnalytics", key != "itunesConnectAnalytics" else {
                    throw LinkError(.invalidArgument, "Invalid JSON payload received. Unknown name \"\(m.key)\" at 'dynamic_link_info': Cannot find field.")
                }
                try mapped(m.value, key, into: &info.parameters)
            }
        }
        return info
    }

    /// A string field; numbers are accepted and written in decimal (int64 fields arrive either way).
    private static func string(_ value: JSONValue, _ field: String) throws(LinkError) -> String {
        switch value {
        case .string(let s): return s
        case .int(let i): return String(i)
        default: throw LinkError(.invalidArgument, "Invalid value at '\(field)' (TYPE_STRING)")
        }
    }

    private static func nested(
        _ value: JSONValue, _ name: String, fields: Set<String>, _ each: (String, JSONValue) throws(LinkError) -> Void
    ) throws(LinkError) {
        guard case .object(let members) = value else { throw LinkError(.invalidArgument, "Invalid value at '\(name)': expected an object") }
        for m in members where m.value != .null {
            let key = camelCase(m.key)
            guard fields.contains(key) else {
                throw LinkError(.invalidArgument, "Invalid JSON payload received. Unknown name \"\(m.key)\" at '\(name)': Cannot find field.")
            }
            try each(key, m.value)
        }
    }

    /// An object whose string fields map one-to-one onto parameters (`infoFields[name]`).
    private static func mapped(_ value: JSONValue, _ name: String, into parameters: inout [String: String]) throws(LinkError) {
        let table = infoFields[name] ?? [:]
        var out = parameters
        try nested(value, name, fields: Set(table.keys)) { field, v throws(LinkError) in
            out[table[field]!] = try string(v, name + "." + field)
        }
        parameters = out
    }
}
