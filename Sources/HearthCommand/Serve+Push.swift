import AsyncHTTPClient
import Foundation
import HearthMessaging
import HearthPostgres
import HearthSQLite
import HearthStore
import Logging
import NIOCore
import NIOSSL

extension Serve {
    /// The messaging service when APNs or FCM is configured (nil otherwise), with its device store and the HTTP
    /// client its providers share (shut it down after the server). Reads and checks the key files at start: a bad
    /// key stops the start with a clear message.
    static func messagingService(
        _ settings: Settings, folder: String, durable: Bool, postgres: PostgresServer?, logger: Logger
    ) throws -> (service: MessagingService, http: HTTPClient)? {
        let push = settings.push
        let apns: Bool
        do { apns = try push.checkedAPNs() } catch { throw fail("\(error)", .badConfiguration) }
        guard apns || push.fcmServiceAccount != nil else { return nil }
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile = push.caFile {
            do {
                let extra = try NIOSSLCertificate.fromPEMFile(caFile)
                tls.additionalTrustRoots = [.certificates(extra)]
            } catch {
                throw fail("cannot read the push CA file \(caFile): \(error)", .badConfiguration)
            }
        }
        let http = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(tlsConfiguration: tls, redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(30))))
        do {
            var providers = PushProviders()
            if apns, let keyFile = push.apnsKey, let keyID = push.apnsKeyID, let teamID = push.apnsTeamID, let bundleID = push.apnsBundleID {
                guard let p8 = try? String(contentsOfFile: keyFile, encoding: .utf8) else { throw PushError("cannot read the APNs key file \(keyFile)") }
                let credentials = try APNsCredentials(keyID: keyID, teamID: teamID, p8: p8)
                let custom = push.apnsURL.map(APNsClient.Endpoint.custom)
                providers.apns = APNsClient(endpoint: custom ?? .production, bundleID: bundleID, credentials: credentials, http: http)
                providers.apnsSandbox = APNsClient(endpoint: custom ?? .sandbox, bundleID: bundleID, credentials: credentials, http: http)
            }
            if let accountFile = push.fcmServiceAccount {
                guard let data = FileManager.default.contents(atPath: accountFile) else { throw PushError("cannot read the FCM service account file \(accountFile)") }
                let account = try ServiceAccount(json: Array(data))
                providers.fcm = FCMClient(account: account, http: http, baseURL: push.fcmURL ?? "https://fcm.googleapis.com")
            }
            let store: any DeviceStore =
                try postgres.map { PostgresDeviceStore(server: $0, project: settings.project) }
                ?? SQLiteDeviceStore(path: "\(folder)/\(settings.project).devices.sqlite", durable: durable)
            let on = [providers.apns.map { "APNs for \($0.bundleID)" }, providers.fcm.map { "FCM for project \($0.account.projectID)" }].compactMap { $0 }
            logger.info("push notifications through \(on.joined(separator: " and "))")
            return (MessagingService(devices: store, providers: providers, logger: logger), http)
        } catch let error as PushError {
            try? http.syncShutdown()
            throw fail(error.message, .badConfiguration)
        } catch {
            try? http.syncShutdown()
            throw fail("cannot open \(folder)/\(settings.project).devices.sqlite (\(error))", .corruptDatabase)
        }
    }
}
