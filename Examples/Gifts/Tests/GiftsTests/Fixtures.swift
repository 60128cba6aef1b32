import Foundation
import GiftsCore
import Synchronization
import Testing

/// A clock tests move by hand (creation and reservation times).
final class StepClock: Sendable {
    private let date: Mutex<Date>

    /// 2025-06-15 12:00 UTC, after every time in the fixture.
    init(_ start: Date = Date(timeIntervalSince1970: 1_749_988_800)) { date = Mutex(start) }

    var now: Date { date.withLock { $0 } }

    func advance(seconds: Double) { date.withLock { $0 += seconds } }
}

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

/// The first value of a live stream (the state when it started).
func firstValue<T>(_ stream: AsyncThrowingStream<T, any Error>) async throws -> T? {
    for try await value in stream { return value }
    return nil
}

/// The world the tests start from, in the database's layout (times in milliseconds since 1970).
///
/// - ann (Ann Lee) wishes for a Bike (`a-bike`, reserved by bob), a Book (`a-book`), a Lamp (`a-lamp`, received) and
///   a Kite (`a-kite`, with description, link and price).
/// - bob (Bob Brown) wishes for a Book (`b-book`) and Headphones (`b-phones`); József Kovács (`jozsef`) for a Book
///   (`j-book`); Jozsef Nagy (`jozsef2`), Joanna Smith (`joanna`) and carl (Carl Jung) wish for nothing.
/// - So the top gifts are book 3, then bike, headphones, kite and lamp at 1.
enum Fixtures {
    static let world = #"""
    {
      "accounts": {
        "ann": {"email": "ann@example.com", "password": "ann-pass1"},
        "bob": {"email": "bob@example.com", "password": "bob-pass1"},
        "carl": {"email": "carl@example.com", "password": "carl-pass1"},
        "jozsef": {"email": "jozsef@example.com", "password": "jozsef-pass1"}
      },
      "users": {
        "ann": {"displayName": "Ann Lee", "firstName": "Ann", "lastName": "Lee", "searchKey": "ann lee"},
        "bob": {"displayName": "Bob Brown", "firstName": "Bob", "lastName": "Brown"},
        "carl": {"displayName": "Carl Jung", "firstName": "Carl", "lastName": "Jung"},
        "jozsef": {"displayName": "József Kovács", "firstName": "József", "lastName": "Kovács"},
        "jozsef2": {"displayName": "Jozsef  Nagy", "firstName": "Jozsef", "lastName": "Nagy"},
        "joanna": {"displayName": "Joanna Smith"}
      },
      "wishes": {
        "ann": {
          "a-bike": {"name": "Bike", "createdAt": 1736496000000, "received": false, "reserved": true},
          "a-book": {"name": "Book", "createdAt": 1736496001000, "received": false, "reserved": false},
          "a-lamp": {"name": "Lamp", "createdAt": 1736496002000, "received": true, "reserved": false},
          "a-kite": {"name": "Kite", "description": "A red one", "link": "https://kites.example.com/red", "price": 25.5,
                     "createdAt": 1736496003000, "received": false}
        },
        "bob": {
          "b-book": {"name": "book", "createdAt": 1736496000000, "received": false, "reserved": false},
          "b-phones": {"name": "Headphones", "createdAt": 1736496001000, "received": false, "reserved": false}
        },
        "jozsef": {
          "j-book": {"name": "Böok", "createdAt": 1736496000000, "received": false, "reserved": false}
        }
      },
      "reservations": {
        "ann": {"a-bike": {"reserverId": "bob", "at": 1740000000000}}
      }
    }
    """#

    /// Passwords of the fixture's accounts.
    static let passwords = ["ann": "ann-pass1", "bob": "bob-pass1", "carl": "carl-pass1", "jozsef": "jozsef-pass1"]
}

/// A world, a clock and signed-in phones of the fixture's users, for one test.
struct TestWorld {
    let clock = StepClock()
    let world: InMemoryWorld

    init() throws { world = try InMemoryWorld(fixture: Data(Fixtures.world.utf8), clock: { [clock] in clock.now }) }

    /// Use cases on a phone named `device` (nobody signed in).
    func app(_ device: String) -> UseCases { UseCases(world.repositories(device: device)) }

    /// Use cases on the phone of fixture user `name`, signed in.
    func signedIn(_ name: String) async throws -> UseCases {
        let app = app(name)
        let uid = try await app.signIn(email: "\(name)@example.com", password: try #require(Fixtures.passwords[name]))
        #expect(uid == name)
        return app
    }

    /// `uid`'s wishes as anyone signed in on `app` reads them now, by id.
    func wishes(of uid: String, on app: UseCases) async throws -> [String: Wish] {
        let list = try #require(try await firstValue(app.wishes(of: uid)))
        return Dictionary(uniqueKeysWithValues: list.map { ($0.id, $0) })
    }

    /// `/topGifts` as stored: key → count.
    func topCounts() async -> [String: Int] { await world.storedTopGifts().mapValues(\.count) }
}

/// Waits (up to two seconds) until `check` holds, then expects it.
@MainActor
func eventually(_ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ check: () -> Bool) async throws {
    for _ in 0..<200 where !check() { try await Task.sleep(for: .milliseconds(10)) }
    #expect(check(), "\(what)", sourceLocation: sourceLocation)
}
