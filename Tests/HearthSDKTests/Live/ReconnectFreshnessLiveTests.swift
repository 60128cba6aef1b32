import Foundation
import Hearth
import HearthCore
import Testing

/// What an observer holds after the socket drops and comes back: the server's current data, marked as such.
///
/// Hearth's server pushes a listen's data even when the client's hash matches, so against it these hold with or
/// without the SDK's side of the fix; they guard the whole path. The SDK's side (re-sent listens carry no stale
/// hash; every acknowledgement is an event) is pinned on the wire by
/// `PersistentConnectionReconnectTests.everyListenAcknowledgementIsAnEventInOrderWithPushesAndDisconnects`.
@Suite("Observed data after a reconnect (live)")
struct ReconnectFreshnessLiveTests {
    /// A smart-home switch flipped on and then back off while the app was offline. The listen was first made
    /// with the hash of the cached `false`; re-sending that hash after the reconnect would make the server
    /// (whose data hashes the same again) push nothing, and the app would keep showing `true`.
    @Test func aValueBackToWhatWasCachedWhenTheListenStartedIsSeenAfterAReconnect() async throws {
        try await withAuthStorageServer { live in
            let rest = AdminREST(port: live.port)
            try await rest.put(".settings/rules", #"{"rules":{".read":true,".write":true}}"#)
            try await rest.put("home/heater", "false")
            let app = HearthApp(name: "switch", options: live.options())
            defer { Task { await app.close() } }
            let heater = app.database.reference("home/heater")
            // A first observer caches `false`; the second listen on the same path is sent with its hash.
            let first = EventRecorder(heater.snapshots())
            #expect(await first.wait(for: 1).first?.value == .bool(false))
            first.stop()
            try await Task.sleep(for: .milliseconds(200))
            let observer = EventRecorder(heater.snapshots())
            await expectEventually { observer.all.last.map { $0.value == .bool(false) && !$0.isFromCache } ?? false }

            try await rest.put("home/heater", "true")
            await expectEventually { observer.all.last?.value == .bool(true) }
            await app.database.goOffline()
            try await rest.put("home/heater", "false")
            await app.database.goOnline()
            let current = await eventually(timeout: .seconds(10)) { observer.all.last?.value == .bool(false) }
            #expect(current, "the observer still shows \(String(describing: observer.all.last?.value)); server has false")
        }
    }

    /// Data that did not change while offline: the server pushes nothing for a matching hash, only its
    /// acknowledgement, and that alone makes the view current again.
    @Test func unchangedDataIsCurrentAgainAfterAReconnect() async throws {
        try await withAuthStorageServer { live in
            let rest = AdminREST(port: live.port)
            try await rest.put(".settings/rules", #"{"rules":{".read":true,".write":true}}"#)
            try await rest.put("listing/title", #""Cabin""#)
            let app = HearthApp(name: "unchanged", options: live.options())
            defer { Task { await app.close() } }
            let title = app.database.reference("listing/title")
            let observer = EventRecorder(title.snapshots())
            await expectEventually { observer.all.last.map { !$0.isFromCache } ?? false }
            await app.database.goOffline()
            await app.database.goOnline()
            try await Task.sleep(for: .milliseconds(500))
            // A second observer of the same location shares the listen: it sees the view's state.
            let second = EventRecorder(title.snapshots())
            let snapshot = await second.wait(for: 1).first
            #expect(snapshot?.value == .string("Cabin"))
            await expectEventually("still from cache after the reconnect") { second.all.last.map { !$0.isFromCache } ?? false }
            observer.stop()
            second.stop()
        }
    }
}
