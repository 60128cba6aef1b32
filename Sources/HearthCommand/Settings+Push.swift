import ArgumentParser
import Foundation
import HearthCore

extension Settings {
    /// Push notifications: APNs token authentication (a `.p8` key with its key id and team id, for one app's bundle
    /// id) and an FCM service account; each provider is on when its settings are given. Config `push.*`,
    /// environment `HEARTH_APNS_*`, `HEARTH_FCM_*`, `HEARTH_PUSH_CA_FILE`.
    struct PushSettings: Equatable {
        /// The `.p8` key file from the Apple developer account.
        var apnsKey: String?
        /// Its key id (10 characters).
        var apnsKeyID: String?
        /// The team id (10 characters).
        var apnsTeamID: String?
        /// The app's bundle id, the `apns-topic`.
        var apnsBundleID: String?
        /// Another APNs base URL for both environments (a test double or a proxy).
        var apnsURL: String?
        /// The service account JSON file from the Firebase console.
        var fcmServiceAccount: String?
        /// Another FCM base URL (a test double or a proxy).
        var fcmURL: String?
        /// A PEM file of extra root certificates the push clients trust (a test authority, a corporate proxy).
        var caFile: String?

        /// The `push` object of the config file.
        mutating func apply(_ members: [JSONMember], file path: String) throws {
            for m in members {
                guard case .string(let v) = m.value else { throw Failure(description: "config file \(path): \"push.\(m.key)\" must be a string") }
                switch m.key {
                case "apnsKey": apnsKey = v
                case "apnsKeyId": apnsKeyID = v
                case "apnsTeamId": apnsTeamID = v
                case "apnsBundleId": apnsBundleID = v
                case "apnsUrl": apnsURL = v
                case "fcmServiceAccount": fcmServiceAccount = v
                case "fcmUrl": fcmURL = v
                case "caFile": caFile = v
                default: throw Failure(description: "config file \(path): unknown setting \"push.\(m.key)\"")
                }
            }
        }

        /// `HEARTH_APNS_KEY`, `HEARTH_APNS_KEY_ID`, `HEARTH_APNS_TEAM_ID`, `HEARTH_APNS_BUNDLE_ID`, `HEARTH_APNS_URL`,
        /// `HEARTH_FCM_SERVICE_ACCOUNT`, `HEARTH_FCM_URL`, `HEARTH_PUSH_CA_FILE`.
        mutating func apply(environment env: [String: String]) {
            func take(_ name: String, _ field: inout String?) { if let v = env[name], !v.isEmpty { field = v } }
            take("HEARTH_APNS_KEY", &apnsKey)
            take("HEARTH_APNS_KEY_ID", &apnsKeyID)
            take("HEARTH_APNS_TEAM_ID", &apnsTeamID)
            take("HEARTH_APNS_BUNDLE_ID", &apnsBundleID)
            take("HEARTH_APNS_URL", &apnsURL)
            take("HEARTH_FCM_SERVICE_ACCOUNT", &fcmServiceAccount)
            take("HEARTH_FCM_URL", &fcmURL)
            take("HEARTH_PUSH_CA_FILE", &caFile)
        }

        /// Whether APNs is configured: throws when only some of its four settings are given.
        func checkedAPNs() throws -> Bool {
            let given = [apnsKey, apnsKeyID, apnsTeamID, apnsBundleID].compactMap { $0 }
            if given.isEmpty { return false }
            guard given.count == 4 else {
                throw Failure(description: "APNs needs all of --apns-key, --apns-key-id, --apns-team-id and --apns-bundle-id (or none)")
            }
            return true
        }
    }
}

/// `hearth serve`'s push options (see ``Settings/PushSettings``).
struct PushOptions: ParsableArguments {
    @Option(help: "APNs auth key (.p8 file) for push notifications (HEARTH_APNS_KEY; config push.apnsKey).") var apnsKey: String?
    @Option(help: "The APNs key's id (HEARTH_APNS_KEY_ID; config push.apnsKeyId).") var apnsKeyId: String?
    @Option(help: "The Apple developer team id (HEARTH_APNS_TEAM_ID; config push.apnsTeamId).") var apnsTeamId: String?
    @Option(help: "The iOS app's bundle id, the APNs topic (HEARTH_APNS_BUNDLE_ID; config push.apnsBundleId).") var apnsBundleId: String?
    @Option(help: "Another APNs base URL, for both environments (HEARTH_APNS_URL; config push.apnsUrl).") var apnsUrl: String?
    @Option(help: "FCM service account JSON file for push notifications (HEARTH_FCM_SERVICE_ACCOUNT; config push.fcmServiceAccount).")
    var fcmServiceAccount: String?
    @Option(help: "Another FCM base URL (HEARTH_FCM_URL; config push.fcmUrl).") var fcmUrl: String?
    @Option(help: "PEM file of extra root certificates the push clients trust (HEARTH_PUSH_CA_FILE; config push.caFile).") var pushCaFile: String?

    /// Puts the options given over `settings`.
    func apply(to settings: inout Settings.PushSettings) {
        if let apnsKey { settings.apnsKey = apnsKey }
        if let apnsKeyId { settings.apnsKeyID = apnsKeyId }
        if let apnsTeamId { settings.apnsTeamID = apnsTeamId }
        if let apnsBundleId { settings.apnsBundleID = apnsBundleId }
        if let apnsUrl { settings.apnsURL = apnsUrl }
        if let fcmServiceAccount { settings.fcmServiceAccount = fcmServiceAccount }
        if let fcmUrl { settings.fcmURL = fcmUrl }
        if let pushCaFile { settings.caFile = pushCaFile }
    }
}
