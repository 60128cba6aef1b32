import HearthDatabase
/// Everything the HTTP server needs to know; built by the executable from flags, environment and file.
public struct ServerConfiguration: Sendable {
    /// The address to listen on (`127.0.0.1`; `0.0.0.0` for every interface).
    public var host: String
    /// The port to listen on (0: any free one, reported when the server runs).
    public var port: Int
    /// Namespace used when a request names none (the project id).
    public var defaultNamespace: String
    /// The admin credential; `owner` in `--dev`.
    public var adminToken: String
    /// Largest accepted request body, in bytes.
    public var maxBodyBytes: Int
    /// What a query without a matching `.indexOn` gets: refused (Firebase's way) or a logged scan.
    public var indexPolicy: IndexPolicy
    /// Seconds of silence before an SSE keep-alive is sent.
    public var keepAliveSeconds: Int
    /// Development mode: any namespace is created on first use and starts with open rules (as the
    /// Firebase emulator; otherwise an admin creates namespaces, and they start locked), unsigned
    /// ID tokens are accepted, and a denial names the rule that decided (`X-Hearth-Rule`).
    public var dev: Bool
    /// How the outside world reaches this server (`https://api.example.com`): the base of links in
    /// auth emails. Without it, `--dev` uses the address each request came to (as the emulator
    /// does) and otherwise `http://host:port` — never a request's `Host` header, which a caller
    /// could point at their own site to harvest reset codes.
    public var publicURL: String?
    /// Answer small database reads and token refreshes on the connection's event loop (see `InlineResponseHandler`);
    /// off, every request goes through Hummingbird's responder. On by default; tests turn it off
    /// to compare the two paths.
    public var inlineAnswers: Bool
    /// Proxies whose `X-Forwarded-For` names the client (`--trusted-proxies`); none by default.
    public var trustedProxies: TrustedProxies
    /// Most databases (namespaces) open at once; opening one more closes the least recently used
    /// idle one, and when every open one is in use the request is answered 503.
    public var maxOpenNamespaces: Int
    /// Seconds a database may go unused (no request, no listener, no connection) before it is closed.
    public var namespaceIdleSeconds: Int
    /// Let anyone with an API key make short links, as Firebase did. Off, outside `--dev` only the
    /// admin and signed-in users (a valid ID token) may (`--links-public-create`).
    public var linksPublicCreate: Bool

    // Limits on what one connection may make the server hold or wait for.

    /// How long a client has to send a complete request head, from the moment the connection
    /// opens or the previous response ended; the connection is closed after it.
    public var requestHeadTimeout: Duration = .seconds(60)
    /// How long a connection may stay silent while a request body is being read, or between
    /// requests; the connection is closed after it. Server-sent event streams and realtime
    /// WebSockets are not idle while they are open (they have their own keep-alives).
    public var idleTimeout: Duration = .seconds(60)
    /// Longest request target (path and query) accepted; longer ones get 414.
    public var maxURLBytes = 16 * 1024
    /// Longest request head (request line and header fields) accepted; longer ones get 431.
    public var maxHeadBytes = 64 * 1024
    /// Bytes of events a server-sent event stream may have waiting for a slow client before it is
    /// closed (as Firebase drops a consumer that cannot keep up).
    public var streamBufferBytes = 8 << 20
    /// Bytes all realtime connections together may hold of messages still arriving.
    public var realtimePartialBytes = defaultRealtimePartialBytes
    /// A credential that reads `/metrics` and nothing else (`--metrics-token-file`); the admin credential always may.
    public var metricsToken: String?
    /// Request rate limits, the connection limit and the listens one realtime connection may hold (`limits` in the
    /// config file; see ``RequestLimits``).
    public var limits = RequestLimits()
    /// A second address serving only `/metrics`, `/healthz` and `/readyz`, without a credential (`--metrics-listen`).
    public var metricsListen: MetricsListenAddress?
    /// Serve HTTPS (HTTP/2 and HTTP/1.1) with this certificate and key instead of plain HTTP/1.1 (`--tls-cert`,
    /// `--tls-key`); it also says whether responses carry HSTS. Nil: plain HTTP.
    public var tls: TLSCertificates?
    /// The default for ``realtimePartialBytes``: 128 MiB.
    public static let defaultRealtimePartialBytes = 128 << 20

    /// The configuration, each setting defaulting as documented on its property.
    public init(
        host: String = "127.0.0.1",
        port: Int = 9000,
        defaultNamespace: String = "demo",
        adminToken: String,
        maxBodyBytes: Int = 16 * 1024 * 1024,
        indexPolicy: IndexPolicy = .enforce,
        keepAliveSeconds: Int = 30,
        dev: Bool = false,
        publicURL: String? = nil,
        inlineAnswers: Bool = true,
        trustedProxies: TrustedProxies = TrustedProxies(),
        maxOpenNamespaces: Int = 64,
        namespaceIdleSeconds: Int = 120,
        linksPublicCreate: Bool = false
    ) {
        self.linksPublicCreate = linksPublicCreate
        self.maxOpenNamespaces = maxOpenNamespaces
        self.namespaceIdleSeconds = namespaceIdleSeconds
        self.inlineAnswers = inlineAnswers
        self.trustedProxies = trustedProxies
        self.dev = dev
        self.publicURL = publicURL
        self.host = host
        self.port = port
        self.defaultNamespace = defaultNamespace
        self.adminToken = adminToken
        self.maxBodyBytes = maxBodyBytes
        self.indexPolicy = indexPolicy
        self.keepAliveSeconds = keepAliveSeconds
    }
}
