import Foundation
import Hearth
import HearthCore

struct HearthSmartHome: SmartHomeService {
    let database: Database
    let functions: CloudFunctions

    func switches(of couchID: String) async throws(AppError) -> [SmartSwitch] {
        guard isKey(couchID) else { throw .notFound }
        return try await mapped {
            try decodedChildren(try await database.reference("switches").child(couchID).getSnapshot(), SmartSwitch.self, id: \.id)
                .sorted { $0.id < $1.id }
        }
    }

    func addSwitch(_ type: SmartSwitch.Kind, item: String, to couchID: String) async throws(AppError) -> SmartSwitch {
        struct Write: Encodable {
            var type: SmartSwitch.Kind
            var item: String
        }
        guard isKey(couchID) else { throw .notFound }
        let ref = database.reference("switches").child(couchID).childByAutoId()
        try await mapped { try await ref.setValue(Write(type: type, item: item)) }
        return SmartSwitch(id: ref.key ?? "", type: type, item: item)
    }

    func saveWatcher(_ watcher: Watcher, switchID: String, of couchID: String) async throws(AppError) {
        guard isKey(couchID), isKey(switchID) else { throw .notFound }
        // Only `watcher`: the rules keep `state` as openHAB reported it.
        try await mapped { try await database.reference("switches").child(couchID).child(switchID).child("watcher").setValue(watcher) }
    }

    func setSwitch(_ switchID: String, of couchID: String, on: Bool) async throws(AppError) -> String {
        struct Input: Encodable, Sendable {
            var couchId: String
            var switchId: String
            var state: String
        }
        struct Answer: Decodable, Sendable { var state: String }
        let input = Input(couchId: couchID, switchId: switchID, state: on ? "ON" : "OFF")
        return try await call(functions, "setSwitch", input, as: Answer.self, errors: CallableErrors.smartHome).state
    }

    func runWeatherWatcher(couchID: String) async throws(AppError) -> WatcherRun {
        struct Input: Encodable, Sendable { var couchId: String }
        return try await call(functions, "runWeatherWatcher", Input(couchId: couchID), as: WatcherRun.self, errors: CallableErrors.smartHome)
    }

    func log(of couchID: String, limit: Int) async throws(AppError) -> [SwitchLogEntry] {
        guard limit > 0 else { return [] }
        guard isKey(couchID) else { throw .notFound }
        return try await mapped {
            let query = database.reference("switchLog").child(couchID).queryOrdered(byChild: "at").queryLimited(toLast: limit)
            return try decodedChildren(try await query.getSnapshot(), SwitchLogEntry.self, id: \.id).sorted { ($0.at, $0.id) > ($1.at, $1.id) }
        }
    }
}
