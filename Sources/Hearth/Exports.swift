public import HearthCore

/// JSON values as the database hands them out (`DataSnapshot.value`, `setValue(json:)`), so an
/// app needs only `import Hearth`.
public typealias JSONValue = HearthCore.JSONValue
/// One member of a JSON object, in order.
public typealias JSONMember = HearthCore.JSONMember
