// swift-tools-version:6.2
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "hearth",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "hearth", targets: ["hearth"]),
        .executable(name: "hearth-bench", targets: ["hearth-bench"]),
        .library(name: "HearthCore", targets: ["HearthCore"]),
        .library(name: "HearthServer", targets: ["HearthServer", "HearthCommand", "HearthFunctions"]),
        .library(name: "HearthTesting", targets: ["HearthTesting"]),
        .library(name: "Hearth", targets: ["Hearth"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        .target(
            name: "HearthCore",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        // Geohashes and distances on the sphere (GeoFire's layout): shared by the SDK's geo queries and functions.
        .target(name: "HearthGeo", swiftSettings: strict),
        // Crypto only for the storage rules' hashing.md5/sha256 built-ins (pure, no I/O).
        .target(
            name: "HearthRules", dependencies: ["HearthCore", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict),
        // The system zlib, to serve gzip-encoded objects to clients that do not accept gzip.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        // The system's libxcrypt, to check bcrypt hashes of users imported from other backends.
        .systemLibrary(name: "CCrypt", path: "Sources/CCrypt", providers: [.apt(["libcrypt-dev"])]),
        .target(
            name: "HearthAuth",
            dependencies: [
                .target(name: "CCrypt", condition: .when(platforms: [.linux])), "HearthCore", "HearthStore", "HearthWire",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strict
        ),
        .target(name: "HearthWire", dependencies: ["HearthCore"], swiftSettings: strict),
        .target(name: "HearthStore", dependencies: ["HearthCore"], swiftSettings: strict),
        .target(
            name: "HearthSQLite",
            dependencies: [
                "HearthCore", "HearthStore", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        // The scale-out backend: every store in one PostgreSQL database that several nodes share,
        // and the change feed that carries each node's commits to the others' listeners.
        .target(
            name: "HearthPostgres",
            dependencies: [
                "HearthCore", "HearthStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "HearthFiles",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // Short links: making, resolving and counting them; no HTTP (the server's LinksController is the edge).
        .target(
            name: "HearthLinks",
            dependencies: [
                "HearthCore", "HearthRules", "HearthStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // Buckets and objects: the storage service, object fields, resumable sessions, the storage rules in force;
        // no HTTP (the server's StorageController is the edge of the Firebase v0 and Cloud Storage JSON APIs).
        .target(
            name: "HearthStorage",
            dependencies: ["HearthCore", "HearthFiles", "HearthRules", "HearthStore"],
            swiftSettings: strict
        ),
        // The database service: namespaces, parsing and committing writes under the rules, checked reads and
        // queries, listens and the realtime hub; domain errors, no HTTP (REST, SSE and the realtime protocol are
        // the server's edges).
        .target(
            name: "HearthDatabase",
            dependencies: [
                "HearthCore", "HearthRules", "HearthStore", "HearthWire",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // Push notifications: the notification model, the APNs and FCM HTTP v1 requests and what their answers
        // mean, the providers' credentials, and the clients that send (AsyncHTTPClient); no HTTP server types.
        .target(
            name: "HearthMessaging",
            dependencies: [
                "HearthAuth", "HearthCore", "HearthStore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // Server functions: the registry an app fills (triggers, callables, HTTP functions, cron jobs), the contexts
        // functions run with, the outbox dispatchers and the scheduler. A team's functions import this and
        // HearthCommand, never Hummingbird or NIO (the server's FunctionsHTTP is the HTTP edge).
        .target(
            name: "HearthFunctions",
            dependencies: [
                "HearthAuth", "HearthCore", "HearthDatabase", "HearthGeo", "HearthLinks", "HearthMessaging", "HearthStorage", "HearthStore",
                "HearthWire",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // The web console served at `/_/`: its pages and scripts (generated from web/ by scripts/console-assets) and
        // its signed session cookies.
        .target(
            name: "HearthConsole",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            exclude: ["web"],
            swiftSettings: strict
        ),
        .target(
            name: "HearthServer",
            dependencies: [
                "CZlib", "HearthConsole", "HearthCore", "HearthAuth", "HearthDatabase", "HearthFiles", "HearthFunctions", "HearthLinks", "HearthMessaging", "HearthRules", "HearthStorage", "HearthWire",
                "HearthStore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // The command line (`hearth serve` and the admin commands) as a library, so an app team's own
        // executable can register server functions and run with the same flags and data folder.
        .target(
            name: "HearthCommand",
            dependencies: [
                "HearthAuth", "HearthCore", "HearthDatabase", "HearthFiles", "HearthFunctions", "HearthLinks", "HearthMessaging", "HearthRules", "HearthServer",
                "HearthPostgres", "HearthSQLite",
                "HearthStorage", "HearthStore", "HearthWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(name: "hearth", dependencies: ["HearthCommand"], swiftSettings: strict),
        // An app team's server with functions for the reference apps (rewards, stays, wishlists).
        .executableTarget(
            name: "hearth-functions-example",
            dependencies: [
                "HearthAuth", "HearthCommand", "HearthCore", "HearthFunctions", "HearthGeo", "HearthMessaging", "HearthStore", "HearthWire",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/Functions",
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        // A server with functions made to be crashed and measured (process tests, trigger benchmark).
        .executableTarget(
            name: "hearth-functions-fixture",
            dependencies: ["HearthCommand", "HearthCore", "HearthFunctions", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Tests/Fixtures/FunctionsFixture",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "hearth-bench",
            dependencies: [
                "Hearth", "HearthAuth", "HearthCore", "HearthStore", "HearthTesting", "HearthWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "HearthTesting",
            dependencies: [
                "HearthAuth", "HearthCore", "HearthDatabase", "HearthFunctions", "HearthMessaging", "HearthServer", "HearthSQLite", "HearthStorage",
                "HearthStore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                // The push provider doubles: APNs speaks HTTP/2 over TLS from a test authority.
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // The client SDK: Core + Wire + Foundation. URLSession's WebSocket task on Apple platforms;
        // on Linux (where it is missing from libcurl-based Foundation) swift-websocket's WSClient.
        .target(
            name: "Hearth",
            dependencies: [
                "HearthCore", "HearthGeo", "HearthWire",
                .product(name: "WSClient", package: "swift-websocket", condition: .when(platforms: [.linux])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(platforms: [.linux])),
                .product(name: "Logging", package: "swift-log", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HearthSDKTests",
            dependencies: [
                "Hearth", "HearthAuth", "HearthCore", "HearthFiles", "HearthFunctions", "HearthMessaging", "HearthWire", "HearthServer", "HearthStorage", "HearthStore",
                "HearthSQLite", "HearthTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Reference app 1: Barcode Comments — its platform-independent core (entities, repositories,
        // use cases, view models) on the Hearth SDK, and its tests (in memory and against a live server).
        .target(
            name: "BarcodeCommentsCore", dependencies: ["Hearth", "HearthCore"], path: "Examples/BarcodeComments/Sources/BarcodeCommentsCore",
            swiftSettings: strict),
        .testTarget(
            name: "BarcodeCommentsTests",
            dependencies: [
                "BarcodeCommentsCore", "Hearth", "HearthCore", "HearthTesting", .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Examples/BarcodeComments/Tests/BarcodeCommentsTests",
            swiftSettings: strict),
        // Reference app 2: Rewards — its app core (entities, repositories, use cases, view models, deep links) on the
        // Hearth SDK, and its tests (in memory, and the whole story against `hearth-functions-example`).
        .target(name: "RewardsCore", dependencies: ["Hearth", "HearthCore", "HearthWire"], path: "Examples/Rewards/Sources/RewardsCore", swiftSettings: strict),
        .testTarget(
            name: "RewardsTests",
            dependencies: ["RewardsCore", "Hearth", "HearthCore", "HearthTesting", .product(name: "NIOHTTP1", package: "swift-nio")],
            path: "Examples/Rewards/Tests/RewardsTests",
            resources: [.copy("Fixtures")],
            swiftSettings: strict),
        // Reference app 3: Stays — couchsurfing with a map, reservations, chat, ratings and a smart home.
        .target(
            name: "StaysCore", dependencies: ["Hearth", "HearthCore", "HearthGeo", "HearthWire"], path: "Examples/Stays/Sources/StaysCore",
            swiftSettings: strict),
        .testTarget(
            name: "StaysTests",
            dependencies: [
                "StaysCore", "Hearth", "HearthCore", "HearthFunctions", "HearthGeo", "HearthTesting", .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Examples/Stays/Tests/StaysTests",
            swiftSettings: strict),
        .testTarget(name: "HearthGeoTests", dependencies: ["HearthGeo"], swiftSettings: strict),
        .testTarget(
            name: "HearthMessagingTests",
            dependencies: [
                "HearthAuth", "HearthCore", "HearthMessaging", "HearthStore", "HearthTesting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict),
        // Reference app 4: Gifts — wishlists, secret exclusive reservations, top gifts, and the original REST API.
        .target(
            name: "GiftsCore", dependencies: ["Hearth", "HearthCore", "HearthWire"], path: "Examples/Gifts/Sources/GiftsCore",
            swiftSettings: strict),
        .testTarget(
            name: "GiftsTests",
            dependencies: ["GiftsCore", "Hearth", "HearthCore", "HearthTesting", .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto")],
            path: "Examples/Gifts/Tests/GiftsTests",
            swiftSettings: strict),
        .target(name: "HearthTestSupport", path: "Tests/HearthTestSupport", swiftSettings: strict),
        .testTarget(name: "HearthCoreTests", dependencies: ["HearthCore", "HearthTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "HearthFilesTests",
            dependencies: [
                "HearthFiles",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HearthAuthTests",
            dependencies: [
                "HearthAuth", "HearthCore", "HearthPostgres", "HearthStore", "HearthSQLite", "HearthWire", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HearthRulesTests",
            dependencies: ["HearthCore", "HearthRules", "HearthTestSupport"],
            resources: [.copy("Corpus"), .copy("StorageCorpus")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HearthStoreTests",
            dependencies: [
                "HearthCore", "HearthStore", "HearthPostgres", "HearthSQLite", "HearthTesting", .product(name: "Logging", package: "swift-log"),
                // The PostgreSQL index tests look at the index rows themselves; the snapshot tests write SQLite directly.
                .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HearthServerTests",
            dependencies: [
                "Hearth", "HearthAuth", "HearthCommand", "HearthConsole", "HearthCore", "HearthDatabase", "HearthFiles", "HearthFunctions", "HearthMessaging",
                "HearthServer",
                "HearthStore", "HearthSQLite", "HearthLinks", "HearthPostgres", "HearthStorage", "HearthTestSupport", "HearthTesting", "HearthWire",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
    ]
)
