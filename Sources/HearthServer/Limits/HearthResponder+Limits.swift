import Hummingbird
import Synchronization

extension HearthResponder {
    /// The rate-limit check for a request that no ``RateLimitHandler`` saw: one on an HTTP/2 stream (over TLS), whose
    /// channel is a child of its connection's. HTTP/1.1 requests, whose channel is the connection itself, were checked
    /// (and marked) in the pipeline already, so for them this is two property reads.
    static func unmarkedRefusal(_ request: Request, context: HearthRequestContext, metrics: ServerMetrics?) -> RequestLimiter.Refusal? {
        guard let connection = context.channel.parent, connection.parent != nil, let metrics,
            let limiter = metrics.requestLimiter.withLock({ $0 })
        else { return nil }
        return limiter.check(request.headers, target: request.uri.description, peer: connection.remoteAddress?.ipAddress)
    }
}
