public import HearthCore

/// Firebase's REST error body: `{"error":"<message>"}`.
public enum ErrorBody {
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
    public static let permissionDenied = "Permission denied"
    public static let noData = "No data supplied."
    /// Production's text for every unparseable body, bad keys or not.
    public static let invalidJSON =
        "Invalid data; couldn't parse JSON object, array, or value. Perhaps you're using invalid characters in your key names."
    public static let priorityPath = "Invalid path: .priority can only be read, set with PUT or cleared with DELETE"
    public static let invalidPatch = "Invalid data; couldn't parse JSON object. Are you sending a JSON object with valid key names?"

    public static func indexNotDefined(_ index: String, path: Path) -> String {
        "Index not defined, add \".indexOn\": \"\(index)\", for path \"\(path)\", to the rules"
    }
}
