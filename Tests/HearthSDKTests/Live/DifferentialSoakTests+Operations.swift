// The random operations for DifferentialSoakTests (split from it by aspect).

import Foundation
import Hearth
import HearthCore
import Testing
import FoundationNetworking

// MARK: - Operations

enum Action: Sendable {
    case set(String, JSONValue)
    case remove(String)
    case update([JSONMember])
    case push(JSONValue)
    case incrementScore(String, Int)
    case transaction
    case incrementCounter(Int)
    case replaceAll(JSONValue)
    /// Sets `/own/c<client>` to the next number (with a set, an update of `/own`, or a root update also
    /// touching items).
    case own(Int64, via: Int, items: [JSONMember])
    case itemTransaction(String)
    case admin(String, JSONValue)
    case offline, online
    case churn(Int)
    /// The app is closed and made again on the same persistence folder: its cache and its queued writes come back
    /// from disk, and its observers are made again.
    case restart
    case pause(Int)
}

struct Op: CustomStringConvertible {
    var index: Int
    /// The app, or nil for the admin REST client and pauses.
    var client: Int?
    var action: Action

    var description: String {
        let who = client.map { "c\($0)" } ?? "--"
        let what: String
        switch action {
        case .set(let path, let value): what = "set \(path) \(value.jsonString)"
        case .remove(let path): what = "remove \(path)"
        case .update(let members): what = "update items \(JSONValue.object(members).jsonString)"
        case .push(let value): what = "push items \(value.jsonString)"
        case .incrementScore(let key, let d): what = "set items/\(key)/score increment(\(d))"
        case .transaction: what = "transaction counters/a += 1"
        case .incrementCounter(let d): what = "set counters/b increment(\(d))"
        case .replaceAll(let value): what = "set items \(value.jsonString)"
        case .own(let n, let via, let items):
            let c = client ?? -1
            switch via {
            case 0: what = "set own/c\(c) \(n)"
            case 1: what = "update own {c\(c): \(n)}"
            default: what = "update / \(JSONValue.object([JSONMember("own/c\(c)", .int(n))] + items).jsonString)"
            }
        case .itemTransaction(let key): what = "transaction items/\(key)/score += 1 (abort unless a number or missing)"
        case .admin(let path, let value): what = "REST PUT \(path) \(value.jsonString)"
        case .offline: what = "goOffline"
        case .online: what = "goOnline"
        case .churn(let slot): what = "re-observe slot \(slot)"
        case .pause(let ms): what = "pause \(ms) ms"
        case .restart: what = "restart (same persistence folder)"
        }
        return "#\(index) \(who) \(what)"
    }
}

enum Outcome: Sendable {
    case done
    case committed
    case notCommitted
    case incremented(Int)
    /// Refused by the rules (a score of "bad").
    case rejected
    case failed(String)
}

/// Random data and operations from a seed.
struct Generator {
    var rng: SplitMix64
    let keys = (1...8).map { "k\($0)" }
    /// The last number each app wrote to `/own/c<app>`.
    var ownNext = [Int64](repeating: 0, count: 3)

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }
    mutating func key() -> String { keys[int(0...keys.count - 1)] }

    mutating func score(allowBad: Bool = true) -> JSONValue {
        if allowBad, chance(0.03) { return .string("bad") }   // refused by the rules
        switch int(0...99) {
        case 0..<10: return .null
        case 10..<55: return .int(Int64(int(0...9)))
        case 55..<70: return [.double(2.5), .double(3.5), .double(-1.5), .double(7.25)][int(0...3)]
        case 70..<85: return [.string("a"), .string("m"), .string("z"), .string("5")][int(0...3)]
        case 85..<95: return .bool(chance(0.5))
        default: return .object([JSONMember("n", .int(1))])
        }
    }

    mutating func item(allowBad: Bool = true) -> JSONValue {
        if chance(0.04) { return .int(Int64(int(0...9))) }   // a child that is not an object: no score
        var members = [JSONMember("name", .string("n\(int(0...99))"))]
        let s = score(allowBad: allowBad)
        if s != .null { members.append(JSONMember("score", s)) }
        return .object(members)
    }

    mutating func items(count: Int) -> JSONValue {
        var chosen = keys
        chosen.shuffle(using: &rng)
        return .object(chosen.prefix(count).sorted().map { JSONMember($0, item(allowBad: false)) })
    }

    /// The operations of one batch, for `clients` apps with `slots[c]` observers each.
    mutating func batch(from start: Int, count: Int, clients: Int, slots: [Int]) -> [Op] {
        var ops: [Op] = []
        var offline = Set<Int>()
        for i in start..<start + count {
            let c = int(0...clients - 1)
            var op = Op(index: i, client: c, action: .pause(1))
            switch int(0...119) {
            case 0..<18: op.action = .set("items/\(key())", item())
            case 18..<32: op.action = .set("items/\(key())/score", score())
            case 32..<36: op.action = .set("items/\(key())/name", .string("n\(int(0...99))"))
            case 36..<46:
                var chosen = keys
                chosen.shuffle(using: &rng)
                var members: [JSONMember] = []
                for k in chosen.prefix(int(1...3)) {
                    switch int(0...3) {
                    case 0: members.append(JSONMember(k, item()))
                    case 1: members.append(JSONMember(k, .null))
                    case 2: members.append(JSONMember("\(k)/score", score()))
                    default: members.append(JSONMember("\(k)/name", .string("n\(int(0...99))")))
                    }
                }
                op.action = .update(members)
            case 46..<51: op.action = .remove("items/\(key())")
            case 51..<53: op.action = .push(item())
            case 53..<58: op.action = .incrementScore(key(), int(-2...3))
            case 58..<64: op.action = .transaction
            case 64..<69: op.action = .incrementCounter(int(1...5))
            case 69: op.action = .replaceAll(items(count: int(2...7)))
            case 70..<75:
                op.client = nil
                op.action = .admin("items/\(key())", chance(0.2) ? .null : item(allowBad: false))
            case 75..<79:
                op.action = offline.contains(c) ? .online : .offline
                if offline.contains(c) { offline.remove(c) } else { offline.insert(c) }
            case 79..<83: op.action = .churn(int(0...slots[c] - 1))
            case 83..<98:
                ownNext[c] += 1
                let via = int(0...2)
                var extra: [JSONMember] = []
                if via == 2 {
                    var chosen = keys
                    chosen.shuffle(using: &rng)
                    for k in chosen.prefix(int(1...2)) {
                        extra.append(chance(0.5) ? JSONMember("items/\(k)/score", score(allowBad: false)) : JSONMember("items/\(k)", item(allowBad: false)))
                    }
                }
                op.action = .own(ownNext[c], via: via, items: extra)
            case 98..<102: op.action = .itemTransaction(key())
            case 102..<104:
                _ = int(1...25)  // as a pause would draw: the rest of the sequence stays the same
                op.action = .restart
                offline.remove(c)
            default:
                op.client = nil
                op.action = .pause(int(1...25))
            }
            ops.append(op)
        }
        return ops
    }
}

