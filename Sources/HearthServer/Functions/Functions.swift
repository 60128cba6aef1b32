/// The server functions an app registers: database, auth and storage triggers, callable and
/// plain HTTP functions, and scheduled jobs. Run them with `HearthCommand.main(functions:)`.
public struct Functions: Sendable {
    public init() {}
}
