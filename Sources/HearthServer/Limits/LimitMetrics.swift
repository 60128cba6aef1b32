import Synchronization

/// The limits' lines of `/metrics`: what was refused, and the limits configured.
enum LimitMetrics {
    /// Adds the limits of `metrics`' server to `page` (nothing when the server set none).
    static func render(_ metrics: ServerMetrics, into page: inout PrometheusText) {
        guard let (limits, openDatabases) = metrics.limits.withLock({ $0 }) else { return }
        render(limits, openDatabases: openDatabases, into: &page)
    }

    /// Adds the limits' counters and gauges to `page` (`openDatabases`: the server's `maxOpenNamespaces`, for the
    /// derived connection limit).
    static func render(_ limits: RequestLimits, openDatabases: Int, into page: inout PrometheusText) {
        let state = limits.state
        page.family("hearth_rate_limited_total", "Requests refused with 429 (or a realtime failure) for being over a rate limit, by bucket.", type: "counter")
        page.sample("hearth_rate_limited_total", ["scope": "ip"], Double(state.limitedByAddress.load(ordering: .relaxed)))
        page.sample("hearth_rate_limited_total", ["scope": "user"], Double(state.limitedByUser.load(ordering: .relaxed)))
        page.single(
            "hearth_connections_refused_total", "Connections closed at accept because the maximum were open.", type: "counter",
            Double(state.refusedConnections.load(ordering: .relaxed)))
        page.single(
            "hearth_listens_refused_total", "Realtime listens refused because their connection held the maximum.", type: "counter",
            Double(state.refusedListens.load(ordering: .relaxed)))
        page.single("hearth_connections_open", "Connections (HTTP and WebSocket) open now.", type: "gauge", Double(state.openConnections.load(ordering: .relaxed)))
        page.family("hearth_limit_requests_per_second", "Configured request rate limit, by bucket (0: unlimited).", type: "gauge")
        page.sample("hearth_limit_requests_per_second", ["scope": "ip"], limits.ip.perSecond)
        page.sample("hearth_limit_requests_per_second", ["scope": "user"], limits.user.perSecond)
        page.family("hearth_limit_request_burst", "Configured burst of the request rate limit, by bucket (0: unlimited).", type: "gauge")
        page.sample("hearth_limit_request_burst", ["scope": "ip"], Double(limits.ip.isLimited ? limits.ip.burst : 0))
        page.sample("hearth_limit_request_burst", ["scope": "user"], Double(limits.user.isLimited ? limits.user.burst : 0))
        let maxConnections = limits.resolvedMaxConnections(openDatabases: openDatabases)
        page.single(
            "hearth_limit_max_connections", "Most connections open at once (derived from the descriptor limit unless configured).", type: "gauge",
            maxConnections == Int.max ? 0 : Double(maxConnections))
        page.single(
            "hearth_limit_max_listeners_per_connection", "Most listens one realtime connection may hold.", type: "gauge",
            Double(limits.maxListenersPerConnection))
    }
}
