/// Public: the type of ``HearthServer/logMetadataProvider``.
public import Logging

extension HearthServer {
    /// Give this to the log handler of the logger the server gets, and every record written while a request is
    /// answered carries the request's id (`hearth.request.id`, the same as its `X-Request-Id` response header).
    public static var logMetadataProvider: Logger.MetadataProvider { RequestID.metadataProvider }
}
