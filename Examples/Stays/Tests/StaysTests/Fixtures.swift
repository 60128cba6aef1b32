import Foundation
import StaysCore
import Synchronization
import Testing

/// A clock tests move by hand (ended stays, today, message times).
final class StepClock: Sendable {
    private let date: Mutex<Date>

    /// 2025-06-15 12:00 UTC: after `r-past` (June 1–4), before `r-upcoming` (June 20–23).
    init(_ start: Date = Date(timeIntervalSince1970: 1_749_988_800)) { date = Mutex(start) }

    var now: Date { date.withLock { $0 } }

    func advance(days: Int) { date.withLock { $0 += Double(days) * 86_400 } }
}

/// `YYYY-MM-DD` as a `Day` (a test failure when it is not one).
func day(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Day {
    guard let day = Day(text) else {
        Issue.record("not a day: \(text)", sourceLocation: sourceLocation)
        return Day(ordinal: 0)
    }
    return day
}

/// The stay `from..<to`.
func stay(_ from: String, _ to: String) -> DayRange { DayRange(from: day(from), to: day(to)) }

/// The `AppError` `body` threw (nil if it returned); any other error is a test failure.
func caught<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async -> AppError? {
    do {
        _ = try await body()
        return nil
    } catch let error as AppError {
        return error
    } catch {
        Issue.record("not an AppError: \(error)")
        return .failed("\(error)")
    }
}

/// The world the tests start from, in the database's layout (times in milliseconds since 1970).
///
/// - hugo hosts `berlin-loft` (2 guests, one photo) and `berlin-kreuzberg` (4 guests, ~2.3 km south);
///   hana hosts `potsdam-villa` (~26 km south-west of Berlin's center) and `munich-flat`.
/// - ann stayed at the loft June 1–4 (`r-past`, ended, not rated) and cancelled June 25–27 (`r-cancelled`) and a
///   Potsdam stay in May (`r-potsdam-cancelled`); bob holds June 20–23 at the loft (`r-upcoming`) and rated his May
///   stay in Kreuzberg (`r-rated`, 4 stars); carl gave Kreuzberg 5 stars.
/// - `v-past` is ann and hugo's conversation; the loft has a heater and an air conditioner, both watched 18–26 °C.
enum Fixtures {
    static let world = #"""
    {
      "accounts": {
        "hugo": {"email": "hugo@example.com", "password": "hugo-pass"},
        "hana": {"email": "hana@example.com", "password": "hana-pass"},
        "ann": {"email": "ann@example.com", "password": "ann-pass1"},
        "bob": {"email": "bob@example.com", "password": "bob-pass1"}
      },
      "couches": {
        "berlin-loft": {
          "hostId": "hugo", "title": "Loft at Alexanderplatz", "description": "A sofa bed under the roof.",
          "address": "Alexanderplatz 1, Berlin", "city": "Berlin", "location": {"lat": 52.5219, "lng": 13.4132}, "capacity": 2,
          "photos": {"p-1": {"path": "couches/berlin-loft/p-1.jpg", "url": "https://storage.stays.example.com/couches/berlin-loft/p-1.jpg"}},
          "createdAt": 1736496000000
        },
        "berlin-kreuzberg": {
          "hostId": "hugo", "title": "Kreuzberg futon", "address": "Oranienstraße 10, Berlin", "city": "Berlin",
          "location": {"lat": 52.4990, "lng": 13.4030}, "capacity": 4, "createdAt": 1747735200000
        },
        "potsdam-villa": {
          "hostId": "hana", "title": "Villa couch", "description": "", "address": "Am Neuen Garten 1, Potsdam", "city": "Potsdam",
          "location": {"lat": 52.3906, "lng": 13.0645}, "capacity": 3, "createdAt": 1736496000000
        },
        "munich-flat": {
          "hostId": "hana", "title": "Munich flat", "address": "Marienplatz 1, Munich", "city": "Munich",
          "location": {"lat": 48.1374, "lng": 11.5755}, "capacity": 1, "createdAt": 1736496000000
        }
      },
      "reservations": {
        "r-past": {"couchId": "berlin-loft", "guestId": "ann", "hostId": "hugo", "from": "2025-06-01", "to": "2025-06-04", "guests": 2,
                   "status": "confirmed", "createdAt": 1747735200000, "endsAt": 1748995200000},
        "r-upcoming": {"couchId": "berlin-loft", "guestId": "bob", "hostId": "hugo", "from": "2025-06-20", "to": "2025-06-23", "guests": 1,
                       "status": "confirmed", "createdAt": 1747735200000, "endsAt": 1750636800000},
        "r-cancelled": {"couchId": "berlin-loft", "guestId": "ann", "hostId": "hugo", "from": "2025-06-25", "to": "2025-06-27", "guests": 1,
                        "status": "cancelled", "createdAt": 1747735200000, "endsAt": 1750982400000},
        "r-potsdam-cancelled": {"couchId": "potsdam-villa", "guestId": "ann", "hostId": "hana", "from": "2025-05-01", "to": "2025-05-03",
                                "guests": 1, "status": "cancelled", "createdAt": 1736496000000, "endsAt": 1746230400000},
        "r-rated": {"couchId": "berlin-kreuzberg", "guestId": "bob", "hostId": "hugo", "from": "2025-05-10", "to": "2025-05-12", "guests": 2,
                    "status": "confirmed", "createdAt": 1736496000000, "endsAt": 1747008000000, "ratedAt": 1747051200000}
      },
      "conversations": {
        "v-past": {"members": {"ann": true, "hugo": true}, "couchId": "berlin-loft", "reservationId": "r-past",
                   "lastMessage": {"from": "hugo", "text": "Thanks for staying!", "at": 1749031200000}}
      },
      "messages": {
        "v-past": {
          "m-1": {"from": "ann", "text": "Hi! I'd like to stay from 2025-06-01 to 2025-06-04 (2 guests).", "at": 1747735200000},
          "m-2": {"from": "hugo", "text": "Thanks for staying!", "at": 1749031200000}
        }
      },
      "ratings": {
        "berlin-kreuzberg": {
          "bob": {"stars": 4, "text": "Comfy futon", "at": 1747051200000, "reservationId": "r-rated"},
          "carl": {"stars": 5, "at": 1747008000000, "reservationId": "r-carl"}
        }
      },
      "switches": {
        "berlin-loft": {
          "heater": {"type": "heating", "item": "Loft_Heater", "state": "OFF", "watcher": {"enabled": true, "minC": 18, "maxC": 26}},
          "aircon": {"type": "cooling", "item": "Loft_AC", "state": "OFF", "watcher": {"enabled": true, "minC": 18, "maxC": 26}}
        }
      },
      "geocoder": {
        "Berlin": {"lat": 52.5200, "lng": 13.4050, "city": "Berlin"},
        "Alexanderplatz 1, Berlin": {"lat": 52.5219, "lng": 13.4132, "city": "Berlin"},
        "Potsdam": {"lat": 52.3906, "lng": 13.0645, "city": "Potsdam"},
        "Munich": {"lat": 48.1351, "lng": 11.5820, "city": "Munich"},
        "Hamburg": {"lat": 53.5511, "lng": 9.9937, "city": "Hamburg"}
      },
      "weather": {"Berlin": 12.5, "Munich": 30},
      "openHAB": {"Loft_Heater": "OFF", "Loft_AC": "OFF"}
    }
    """#

    /// A world from ``world`` on `clock`.
    static func makeWorld(clock: StepClock) throws -> InMemoryWorld {
        try InMemoryWorld(fixture: Data(world.utf8), clock: { clock.now })
    }

    /// Passwords of the fixture's accounts.
    static let passwords = ["hugo": "hugo-pass", "hana": "hana-pass", "ann": "ann-pass1", "bob": "bob-pass1"]

    /// A JPEG's first bytes and some more.
    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0x42, count: 64))
}

/// A world, a clock and signed-in phones of the fixture's users, for one test.
struct TestWorld {
    let clock = StepClock()
    let world: InMemoryWorld
    let notifier = RecordingNotifier()

    init() throws { world = try Fixtures.makeWorld(clock: clock) }

    /// Use cases on a phone named `device` (nobody signed in).
    func app(_ device: String) -> UseCases {
        UseCases(world.repositories(device: device), notifier: notifier, now: { [clock] in clock.now })
    }

    /// Use cases on the phone of fixture user `name`, signed in.
    func signedIn(_ name: String) async throws -> UseCases {
        let app = app(name)
        let uid = try await app.signIn(email: "\(name)@example.com", password: try #require(Fixtures.passwords[name]))
        #expect(uid == name)
        return app
    }
}
