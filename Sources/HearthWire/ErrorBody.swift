public import HearthCore

/// Firebase's REST error body: `{"error":"<message>"}`.
public enum ErrorBody {
    /// `{"error":"<message>"}` as bytes, indented when `pretty` (`print=pretty`); `message` is escaped, not trusted.
    public static func bytes(_ message: String, pretty: Bool = false) -> [UInt8] {
        var w = JSONWriter(pretty: pretty)
        w.beginObject()
        w.separator(first: true)
        w.key("error")
        w.write(message)
        w.endObject()
        return w.bytes
    }
}

/// Firebase's fixed REST error messages.
public enum ErrorMessage {
    /// A request the security rules refused.
    public static let permissionDenied = "Permission denied"
    /// A write whose body is empty.
    public static let noData = "No data supplied."
    /// Production's text for every unparseable body, bad keys or not.
    public static let invalidJSON =
        "Invalid data; couldn't parse JSON object, array, or value. Perhaps you're using invalid characters in your key names."
    /// A `.priority` path used with a method other than GET, PUT or DELETE.
    public static let priorityPath = "Invalid path: .priority can only be read, set with PUT or cleared with DELETE"
    /// A PATCH (or realtime merge) whose body is not a JSON object with valid keys.
    public static let invalidPatch = "Invalid data; couldn't parse JSON object. Are you sending a JSON object with valid key names?"

    /// A query ordered by `index` at `path`, which the rules declare no `.indexOn` for (with `--index-policy enforce`).
    public static func indexNotDefined(_ index: String, path: Path) -> String {
        "Index not defined, add \".indexOn\": \"\(index)\", for path \"\(path)\", to the rules"
    }
}
