import HTTPTypes
import HearthFunctions
import Hummingbird
import NIOCore
import NIOPosix

extension HearthServer {
    /// The routing table: which protocol edge answers which requests, first claim wins.
    ///
    /// 1. the console (`/_/…`, `/.hearth/console/session`), so no function's route can take its pages;
    /// 2. functions: callable and HTTP functions' routes and the dead-letter API;
    /// 3. push (`/.hearth/messaging/…`: users' devices, the admin's sends), then Hearth's other admin endpoints (`/.hearth/…`);
    /// 4. `/.well-known/…` and Google's key paths: Hummingbird's router (`wellKnown`);
    /// 5. auth: Identity Toolkit, Secure Token, the emulator's and the action page's paths;
    /// 6. storage: the Firebase and Cloud Storage APIs;
    /// 7. links: the Dynamic Links API, then link redirects (`/{suffix}`, `/?link=…`);
    /// 8. storage's public object URLs (`/{bucket}/{object}`), after the links so a redirect costs no bucket lookup;
    /// 9. the database (REST, SSE): everything else.
    func routes(wellKnown: some HTTPResponder<HearthRequestContext>) -> [Route] {
        var routes: [Route] = []
        let controller = self.controller
        let console = self.console
        let trustedProxies = configuration.trustedProxies
        routes.append(
            Route("console", claim: { _, path in ConsoleController.handles(path) ? .certain : .none }) { request, context in
                let peer = context.channel.remoteAddress?.ipAddress
                let client = peer.flatMap { trustedProxies.clientAddress(peer: $0, forwardedFor: request.headers[values: AuthController.forwardedFor]) }
                return await console.respond(to: request, clientAddress: client)
            })
        if let functions {
            routes.append(
                Route("functions", claim: { functions.mayRespond(path: $1, method: $0) ? .possible : .none }) { request, _ in
                    await functions.respond(to: request, controller: controller)
                })
        }
        if let messaging {
            routes.append(
                Route("messaging", claim: { _, path in MessagingController.handles(path) ? .certain : .none }) { request, _ in
                    await messaging.respond(to: request)
                })
        }
        let admin = self.admin
        routes.append(
            Route("admin", claim: { _, path in AdminController.handles(path) ? .certain : .none }) { request, _ in
                await admin.respond(to: request)
            })
        routes.append(
            Route("well-known", claim: { _, path in Self.isWellKnown(path) ? .certain : .none }) { request, context in
                try await wellKnown.respond(to: request, context: context)
            })
        let auth = self.auth
        routes.append(
            Route(
                "auth", claim: { _, path in AuthController.handles(path) ? .certain : .none },
                inline: Route.Inline(method: .post) { head, uri in
                    guard let auth, uri.path == AuthController.tokenPath else { return nil }
                    // Off the event loop: the RSA signature (~0.25 ms) on the loop held up every other request of the
                    // loop's connections (GET p99 under a refresh load: 4-5 ms → 14-15 ms; docs/benchmarks.md).
                    return .afterBody { body, loop in
                        NIOThreadPool.singleton.runIfActive(eventLoop: loop) { auth.respondNow(to: head, uri: uri, body: body) }
                    }
                }
            ) { request, context in
                guard let auth else {
                    return AuthController.error(status: 404, message: "Auth is not enabled", reason: "notFound", rpcStatus: "NOT_FOUND")
                }
                return await auth.respond(to: request, clientAddress: context.channel.remoteAddress?.ipAddress)
            })
        if let storage {
            routes.append(
                Route("storage", claim: { _, path in StorageController.handles(path) ? .certain : .none }) { request, _ in
                    await storage.respond(to: request)
                })
        }
        if let links {
            routes.append(
                Route("links API", claim: { _, path in LinksController.handles(path) ? .certain : .none }) { request, _ in
                    await links.respond(to: request)
                })
            routes.append(
                Route("links", claim: { method, path in links.mayServe(method, path) ? .possible : .none }) { request, _ in
                    await links.serve(request)
                })
        }
        if let storage {
            routes.append(
                Route("public objects", claim: { method, path in
                    [.get, .head, .put].contains(method) && StorageController.mayBePublicObject(path) ? .possible : .none
                }) { request, _ in
                    await storage.publicObject(request)
                })
        }
        routes.append(
            Route(
                "database", claim: { _, _ in .certain },
                inline: Route.Inline(method: .get) { head, uri in
                    guard uri.path.hasUTF8Suffix(".json") else { return nil }
                    return controller.respondNow(to: head, uri: uri).map(InlinePlan.reply)
                }
            ) { request, context in
                await controller.respond(to: request, channel: context.channel)
            })
        return routes
    }

    /// Paths Hummingbird's router answers: Hearth's health and keys, Google's key documents.
    static func isWellKnown(_ path: String) -> Bool {
        path.hasPrefix("/.well-known/") || path.hasPrefix("/service_accounts/") || path.hasPrefix("/robot/")
    }
}
