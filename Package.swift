// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "OpenUserNotifications",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "OpenUserNotifications", targets: ["OpenUserNotifications"]),
        .library(name: "OpenUserNotificationsShim", targets: ["OpenUserNotificationsShim"]),
        .library(name: "OpenUserNotificationsTesting", targets: ["OpenUserNotificationsTesting"]),
        .executable(name: "unotify", targets: ["unotify"]),
        .executable(name: "unotifyd", targets: ["unotifyd"]),
        .executable(name: "unotify-bench", targets: ["UnotifyBench"]),
        .executable(name: "unotifyd-bench", targets: ["UnotifydBench"]),
        .executable(name: "unotify-server-bench", targets: ["ServerBench"]),
        .library(name: "OpenUserNotificationsLegacy", targets: ["OpenUserNotificationsLegacy"]),
        .library(name: "OpenIntents", targets: ["OpenIntents"]),
        .library(name: "PushServiceClient", targets: ["PushServiceClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The PostgreSQL store's pool figures (ConnectionLease), to any swift-metrics backend (the worker's
        // Prometheus registry).
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    ],
    targets: [
        // Codable value types shared by the engine, the store and (later) the wire protocol.
        .target(name: "NotificationModel"),
        // Pure scheduling: fire dates, the scheduler, delivery pipeline, store/clock/presenter protocols.
        .target(
            name: "NotificationEngine",
            dependencies: [
                "NotificationModel", "NotificationLocalization", "NotificationLocation", "CNotificationPlatform",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Localized strings resolved at delivery time: .strings / .xcstrings tables, the user's languages, formatting.
        .target(name: "NotificationLocalization", dependencies: ["NotificationModel"]),
        // Location triggers: great-circle geometry, region crossings with hysteresis, location sources.
        .target(name: "NotificationLocation", dependencies: ["NotificationModel"]),
        // Remote notifications: APNs payloads into requests, device tokens, `.apns` files.
        .target(name: "NotificationPush", dependencies: ["NotificationModel", "NotificationEngine"]),
        // The APNs provider API on loopback: HTTP/2 (h2c and TLS) and HTTP/1.1, ES256 provider tokens, client
        // certificates as Apple issues them (X509 reads them).
        .target(
            name: "NotificationPushGateway",
            dependencies: [
                "NotificationPush", "NotificationEngine", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "JWTKit", package: "jwt-kit"), .product(name: "Logging", package: "swift-log"),
                .product(name: "X509", package: "swift-certificates"), .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        // The APNs provider client: sends notifications to Apple's hosts or any APNs-compatible endpoint over HTTP/2,
        // with ES256 provider tokens, Apple's answers classified and retried with backoff.
        .target(
            name: "NotificationAPNsProvider",
            dependencies: [
                "NotificationModel", "NotificationEngine",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Location fixes from GeoClue2 on the system bus (a `LocationSource`).
        .target(
            name: "NotificationGeoClue",
            dependencies: ["NotificationLocation", "DBusKit", .product(name: "Logging", package: "swift-log")]
        ),
        // Attachments by Apple's rules: type by content and extension, size limits, the attachment data store.
        .target(name: "NotificationAttachments", dependencies: ["NotificationModel"]),
        // The GRDB implementation of `NotificationStore`: the only module that imports GRDB.
        .target(
            name: "NotificationStoreSQLite",
            dependencies: ["NotificationEngine", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // The PostgreSQL implementation of `NotificationStore`, for server mode (issue 12): the only module that imports
        // PostgresNIO, and nothing but its tests and server mode depends on it.
        .target(
            name: "NotificationStorePostgres",
            dependencies: [
                "NotificationEngine", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        // Server mode (issue 12): the device API and the worker that delivers devices' requests through APNs from
        // the PostgreSQL store.
        .target(
            name: "NotificationServer",
            dependencies: [
                "NotificationEngine", "NotificationStorePostgres", "NotificationAPNsProvider",
                .product(name: "Logging", package: "swift-log"),
                // The worker's HTTP JSON API: the same HTTP stack as the web center.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // The API over TLS (`--api-tls-certificate`, `--api-tls-key`); HummingbirdCore names its server builder.
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // `/metrics`: each worker's figures in Prometheus's text format.
                .product(name: "Prometheus", package: "swift-prometheus"),
                // `/center`: the push statistics pages, in the web center's frame and behind its access rules.
                "NotificationWebCenter", "NotificationWebCenterFiles",
            ]
        ),
        // The app's side of the push service's receipts (issue 20): one call in the delegate, queued on disk, retried.
        .target(
            name: "PushServiceClient",
            dependencies: [
                "NotificationEngine", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The versioned messages between apps and the daemon (JSON lines).
        .target(name: "NotificationWire", dependencies: ["NotificationModel", "NotificationLocation"]),
        // Newline framing on SwiftNIO channels, shared by the daemon and its clients.
        .target(
            name: "NotificationSocket",
            dependencies: ["NotificationWire", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")]
        ),
        // The app side of the daemon protocol: a `NotificationBackend`-shaped client.
        .target(name: "NotificationClient", dependencies: ["NotificationEngine", "NotificationSocket"]),
        // The per-user daemon: socket server, app sessions, launcher; the composition root of system mode.
        .target(
            name: "NotificationDaemon",
            dependencies: [
                "NotificationEngine", "NotificationStoreSQLite", "NotificationDelivery", "NotificationDesktop",
                "NotificationSocket", "NotificationPlatform", "NotificationPushGateway", "NotificationGeoClue",
                "NotificationWebCenter", "NotificationServer", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The web center's secret and the files that publish it, and its error type: Foundation only, so that
        // `unotify center` reads them without linking the HTTP server.
        .target(name: "NotificationWebCenterFiles"),
        // The web notification center (issue 14): routes, server-rendered HTML, the access rules; composed by the daemon.
        .target(
            name: "NotificationWebCenter",
            dependencies: [
                "NotificationWebCenterFiles", "NotificationEngine", "NotificationModel", "NotificationPlatform",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "unotifyd",
            dependencies: [
                "NotificationDaemon", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The terminal presenter and the launcher of apps' launch commands.
        .target(name: "NotificationDelivery", dependencies: ["NotificationEngine", "NotificationPlatform"]),
        // Apple's UserNotifications API, backed by the engine in embedded mode.
        .target(
            name: "OpenUserNotifications",
            dependencies: [
                "NotificationModel", "NotificationEngine", "NotificationStoreSQLite", "NotificationDelivery",
                "NotificationDesktop", "NotificationClient", "NotificationWire", "NotificationAttachments",
            ],
            exclude: ["RemainingInterface.swift.txt"]
        ),
        // Re-exports Apple's framework where it exists and ours elsewhere.
        .target(name: "OpenUserNotificationsShim", dependencies: ["OpenUserNotifications"]),
        // Deterministic testing support for apps: manual clock, recording presenter, constructible values.
        .target(
            name: "OpenUserNotificationsTesting",
            dependencies: ["OpenUserNotifications", "NotificationStoreSQLite", "NotificationDaemon", "NotificationClient"]
        ),
        // The `unotify` commands, as a library so tests can run them in-process.
        .target(
            name: "UnotifyCLI",
            dependencies: [
                "OpenUserNotifications", "NotificationEngine", "NotificationStoreSQLite", "NotificationDelivery",
                "NotificationDesktop", "NotificationClient", "NotificationWire", "NotificationPlatform",
                "NotificationWebCenterFiles", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // `unotify server`: the worker's HTTP API (URLSession's FoundationNetworking does not link statically
                // into the .deb's binary).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                // `unotify server --trust-roots`: the certificate authorities of a worker's API over TLS.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .executableTarget(
            name: "unotify", dependencies: ["UnotifyCLI", .product(name: "Logging", package: "swift-log")]
        ),
        // Linux facilities a per-user daemon needs: wall-clock jumps, system zone changes, peer credentials, child
        // processes with a clean signal mask (also the test fixtures' Xvfb, dbus-daemon, geoclue and PulseAudio).
        .target(name: "CNotificationPlatform"),
        .target(name: "NotificationPlatform", dependencies: ["CNotificationPlatform"]),
        // libdbus-1's declarations and a loader that opens the system's libdbus-1.so.3 at run time: building needs
        // no libdbus development package, and a machine without the library still runs (in the terminal).
        .target(name: "CDBus", linkerSettings: [.linkedLibrary("dl")]),
        // A small typed Swift wrapper around libdbus-1.
        .target(name: "DBusKit", dependencies: ["CDBus"]),
        // Desktop delivery through the freedesktop notification server (org.freedesktop.Notifications).
        .target(
            name: "NotificationDesktop",
            dependencies: [
                "NotificationEngine", "NotificationDelivery", "NotificationSound", "DBusKit",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Notification sounds: header validation by Apple's rules, lookup, and playback through a desktop player.
        .target(
            name: "NotificationSound",
            dependencies: ["NotificationPlatform", .product(name: "Logging", package: "swift-log")]
        ),
        // The pre-iOS 10 local-notification API (UILocalNotification, UIApplication's scheduling calls) over ours.
        .target(name: "OpenUserNotificationsLegacy", dependencies: ["OpenUserNotifications"]),
        // The few Intents types communication notifications need (INSendMessageIntent, INPerson, INImage, …), with
        // Apple's names: Intents does not exist on Linux. Its own product, so the core library does not grow.
        .target(name: "OpenIntents", dependencies: ["OpenUserNotifications", "NotificationModel"]),
        // The seed's re-engagement reminders through the legacy API.
        // Seed 002's to-do app: tasks that nag every 60 s until Cancel is pressed on a notification.
        .executableTarget(name: "NagMe", dependencies: ["OpenUserNotifications"], path: "Examples/NagMe"),
        .executableTarget(name: "ReEngagement", dependencies: ["OpenUserNotificationsLegacy"], path: "Examples/ReEngagement"),
        .executableTarget(
            name: "UnotifyBench",
            dependencies: [
                "BenchSupport", "OpenUserNotifications", "NotificationStoreSQLite",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // Statistics, table formatting and the bare-sleep lateness baseline shared by the bench executables.
        .target(name: "BenchSupport", dependencies: ["NotificationEngine"]),
        .executableTarget(name: "UnotifydBench", dependencies: ["BenchSupport", "NotificationDaemon", "NotificationClient", "NotificationStoreSQLite", "NotificationEngine"]),
        // Server mode's and the push endpoint's figures in a release build (issues 12 and 11): its own throwaway
        // PostgreSQL server, our APNs endpoint as the devices' side, workers and their HTTP API in the process.
        .executableTarget(
            name: "ServerBench",
            dependencies: [
                "BenchSupport", "NotificationServer", "NotificationStorePostgres", "NotificationStoreSQLite",
                "NotificationEngine", "NotificationModel", "NotificationAPNsProvider", "NotificationPush",
                "NotificationPushGateway", "PostgresTestServer", "PushTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        .testTarget(
            name: "NotificationEngineTests",
            dependencies: ["NotificationEngine", "NotificationStoreSQLite", "OpenUserNotificationsTesting"]
        ),
        .testTarget(
            name: "UnotifyBenchTests",
            dependencies: ["UnotifyBench", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "NotificationStoreSQLiteTests",
            dependencies: [
                "NotificationStoreSQLite", "PowerCutFixture", "TestPrograms", .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The store conformance suite: the same behavioural tests against the SQLite and the PostgreSQL store.
        .testTarget(
            name: "NotificationStoreConformanceTests",
            dependencies: [
                "NotificationStoreSQLite", "NotificationStorePostgres", "PostgresTestServer", "NotificationEngine",
                .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // What only the PostgreSQL store has to show: concurrent workers' claims, migrations, the scheduler on it.
        .testTarget(
            name: "NotificationStorePostgresTests",
            dependencies: [
                "NotificationStorePostgres", "PostgresTestServer", "NotificationEngine", "OpenUserNotificationsTesting",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // Server mode: per-device zones, and workers delivering through APNs to our own endpoint.
        .testTarget(
            name: "NotificationServerTests",
            dependencies: [
                "NotificationServer", "NotificationStorePostgres", "PostgresTestServer", "NotificationEngine",
                "NotificationAPNsProvider", "NotificationPushGateway", "OpenUserNotificationsTesting",
                "NotificationDaemon", "TestPrograms", "BenchSupport", "PushServiceClient", "PushTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                // A real TLS client for the API over TLS (ServerAPITLSTests).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(name: "OpenUserNotificationsTests", dependencies: ["OpenUserNotificationsTesting", "NotificationDelivery"]),
        .testTarget(name: "SeedTranslationTests", dependencies: ["OpenUserNotificationsShim", "OpenUserNotificationsTesting"]),
        .testTarget(
            name: "UnotifyCLITests",
            dependencies: [
                "UnotifyCLI", "NotificationClient", "NotificationDaemon", "OpenUserNotificationsTesting", "TestPrograms",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]),
        .testTarget(
            name: "NotificationWebCenterTests",
            dependencies: [
                "NotificationWebCenter", "NotificationDaemon", "OpenUserNotificationsTesting", "NotificationStoreSQLite",
                "TestPrograms",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(name: "NotificationPlatformTests", dependencies: ["NotificationPlatform"]),
        .testTarget(
            name: "NotificationDesktopTests",
            dependencies: [
                "NotificationDesktop", "DBusKit", "NotificationSound", "OpenUserNotificationsTesting",
                "NotificationStoreSQLite", "NotificationPlatform", "MessageServiceFixture", "RichNotificationFixture",
                "TestImageServer", "TestPrograms",
            ]
        ),
        .testTarget(name: "NotificationSoundTests", dependencies: ["NotificationSound", "NotificationPlatform"]),
        .testTarget(name: "NotificationLocalizationTests", dependencies: ["NotificationLocalization"]),
        .testTarget(name: "NotificationLocationTests", dependencies: ["NotificationLocation"]),
        .testTarget(
            name: "NotificationGeoClueTests", dependencies: ["NotificationGeoClue", "DBusKit", "NotificationPlatform"]
        ),
        .testTarget(
            name: "NotificationPushGatewayTests",
            dependencies: [
                "NotificationPushGateway", "OpenUserNotificationsTesting", "TestPrograms", "PushTestSupport",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ]
        ),
        .testTarget(
            name: "NotificationAPNsProviderTests",
            dependencies: [
                "NotificationAPNsProvider", "NotificationPushGateway", "OpenUserNotificationsTesting", "TestPrograms",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(
            name: "NotificationPushTests",
            dependencies: [
                "NotificationPush", "OpenUserNotificationsTesting", "OpenIntents", "ServiceExtensionFixture",
                "RichNotificationFixture", "MessageServiceFixture", "TestImageServer", "TestPrograms",
            ]
        ),
        // An HTTP server on 127.0.0.1 serving Tests/Fixtures/Images, for the push and desktop download tests.
        .target(
            name: "TestImageServer",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/Support/ImageServer"
        ),
        // A throwaway PostgreSQL server for tests (initdb and pg_ctl from Debian's packages, in a temporary folder, as an
        // unprivileged user when the tests run as root); Foundation only, so suites reuse it without PostgresNIO.
        .target(name: "PostgresTestServer", dependencies: ["NotificationPlatform"], path: "Tests/Support/PostgresServer"),
        // Child processes for tests (run off the concurrency pool, killed after a timeout), temporary folders, and
        // openssl's test certificates and provider keys: shared by the push gateway's and the provider client's tests.
        .target(
            name: "TestPrograms", dependencies: ["CNotificationPlatform", .product(name: "Logging", package: "swift-log")],
            path: "Tests/Support/TestPrograms"),
        // The devices' side of server-mode tests (our APNs endpoint over TLS, recording what it answered), an h2c
        // client, and the endpoint load the push benchmarks run: shared by tests and `unotify-server-bench`.
        .target(
            name: "PushTestSupport",
            dependencies: [
                "NotificationAPNsProvider", "NotificationModel", "NotificationPush", "NotificationPushGateway",
                "TestPrograms", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ],
            path: "Tests/Support/PushTestSupport"
        ),
        // A service extension executable the push tests declare for their apps.
        .executableTarget(
            name: "ServiceExtensionFixture", dependencies: ["OpenUserNotifications"],
            path: "Tests/Fixtures/ServiceExtensionFixture"
        ),
        // A rich-notification extension as iOS apps write it (URLSession download, main-queue hand-off), only its
        // import changed; Swift 5 language mode, as such extensions are written.
        .executableTarget(
            name: "RichNotificationFixture", dependencies: ["OpenUserNotifications"],
            path: "Tests/Fixtures/RichNotificationFixture", swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // A messaging app's communication-notification extension (INSendMessageIntent), only its imports changed.
        .executableTarget(
            name: "MessageServiceFixture", dependencies: ["OpenUserNotifications", "OpenIntents"],
            path: "Tests/Fixtures/MessageServiceFixture"
        ),
        // A SQLite VFS that loses unsynced writes at a power cut, and the program that cuts the power under the store.
        .target(
            name: "CPowerCutVFS", path: "Tests/Support/CPowerCutVFS", linkerSettings: [.linkedLibrary("sqlite3")]),
        .executableTarget(
            name: "PowerCutFixture",
            dependencies: [
                "CPowerCutVFS", "NotificationStoreSQLite", "NotificationEngine", "OpenUserNotificationsTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Tests/Fixtures/PowerCutFixture"
        ),
        .testTarget(name: "NotificationAttachmentsTests", dependencies: ["NotificationAttachments"]),
        // README.md's and docs/'s samples: Swift ones compiled, commands parsed by the commands' own parsers.
        .testTarget(
            name: "DocumentationTests",
            dependencies: [
                "UnotifyCLI", "NotificationDaemon", "OpenUserNotificationsTesting", "OpenUserNotificationsLegacy",
                "NotificationGeoClue", "NotificationPush", "NotificationEngine", "OpenIntents", "NotificationAPNsProvider",
                "TestPrograms", "PushServiceClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "LegacyAPITests", dependencies: ["OpenUserNotificationsLegacy", "OpenUserNotificationsTesting"]
        ),
    ]
)

// One place for the strict settings every target gets.
for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}

