import Foundation
import HearthCore
import HearthFunctions
import HearthWire

extension Rewards {
    struct RedeemInput: Decodable, Sendable {
        var itemId: String
    }

    struct RedeemResult: Encodable, Sendable {
        var redemptionId: String
        var balance: Int64
    }

    static func registerWallet(in functions: inout Functions) throws {
        // The item's stock and the caller's coins change together or not at all: two redeems at once with money
        // (or stock) for one succeed once.
        try functions.callable("redeem") { (input: RedeemInput, request, context) -> RedeemResult in
            let uid = try signedIn(request)
            let itemId = try key(input.itemId, "itemId")
            let redemptionId = ids.next(millis: Int64(Date().timeIntervalSince1970 * 1000))
            return try await context.database.atomically { data, writes in
                let item = try data.value("catalog/\(itemId)")
                guard item != .null, let price = item["price"]?.int64, price >= 0 else {
                    throw CallableError(.notFound, "There is no catalogue item \(itemId)")
                }
                let stock = item["stock"]?.int64 ?? 0
                guard stock > 0 else { throw refused(.failedPrecondition, "Out of stock", reason: "outOfStock") }
                let balance = try move(-price, of: uid, kind: "redeem", ref: itemId, id: redemptionId, in: data, &writes)
                writes["catalog/\(itemId)/stock"] = .int(stock - 1)
                writes["redemptions/\(uid)/\(redemptionId)"] = .object([
                    JSONMember("itemId", .string(itemId)), JSONMember("title", item["title"] ?? .string(itemId)),
                    JSONMember("price", .int(price)), JSONMember("at", .int(data.now)),
                ])
                return RedeemResult(redemptionId: redemptionId, balance: balance)
            }
        }
    }
}
