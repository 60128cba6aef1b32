import HearthStore

/// The `/metrics` page: every metric Hearth exports, read at the moment of the request.
enum MetricsPage {
    /// The page for `metrics`' server, in Prometheus' text format.
    static func render(_ metrics: ServerMetrics) -> String {
        var page = PrometheusText()
        requests(metrics.http, into: &page)
        let reading = metrics.reading(now: 0)
        page.single("hearth_realtime_connections", "Realtime (WebSocket) connections open now.", type: "gauge", Double(metrics.connections()))
        page.single("hearth_database_listeners", "Database listeners (realtime and SSE) open now.", type: "gauge", Double(metrics.listeners()))
        page.single(
            "hearth_database_writes_total", "Database writes committed since the server started (a write that changed nothing is not counted).",
            type: "counter", Double(reading.writes))
        if let bytes = ProcessStats.residentBytes() {
            page.single("process_resident_memory_bytes", "Resident memory size in bytes.", type: "gauge", Double(bytes))
        }
        if let open = ProcessStats.openDescriptors() {
            page.single("process_open_fds", "Number of open file descriptors.", type: "gauge", Double(open))
        }
        if let limit = ProcessStats.descriptorLimit() {
            page.single("process_max_fds", "Maximum number of open file descriptors.", type: "gauge", Double(limit))
        }
        page.single(
            "process_start_time_seconds", "Start time of the server since 1970, in seconds.", type: "gauge", Double(metrics.startedAt) / 1000)
        LimitMetrics.render(metrics, into: &page)
        return page.text
    }

    /// `hearth_http_requests_total` by route and status class, and `hearth_http_request_duration_seconds` by route.
    private static func requests(_ http: HTTPMetrics, into page: inout PrometheusText) {
        let routes = http.all
        page.family("hearth_http_requests_total", "HTTP requests answered, by route of the routing table and status class.", type: "counter")
        for route in routes {
            for (statusClass, count) in route.byClass {
                page.sample("hearth_http_requests_total", ["route": route.name, "status": statusClass], Double(count))
            }
        }
        page.family(
            "hearth_http_request_duration_seconds",
            "Time from the request head to the response head (streams: until the stream starts), by route.", type: "histogram")
        for route in routes {
            let (cumulative, sum, count) = route.histogram
            if count == 0 { continue }
            for (i, bound) in (HTTPMetrics.bucketBounds + [.infinity]).enumerated() {
                page.sample("hearth_http_request_duration_seconds_bucket", ["route": route.name, "le": PrometheusText.number(bound)], Double(cumulative[i]))
            }
            page.sample("hearth_http_request_duration_seconds_sum", ["route": route.name], sum)
            page.sample("hearth_http_request_duration_seconds_count", ["route": route.name], Double(count))
        }
    }
}
