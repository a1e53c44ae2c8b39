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
        .executable(name: "unotify-bench", targets: ["UnotifyBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // Codable value types shared by the engine, the store and (later) the wire protocol.
        .target(name: "NotificationModel"),
        // Pure scheduling: fire dates, the scheduler, delivery pipeline, store/clock/presenter protocols.
        .target(
            name: "NotificationEngine",
            dependencies: ["NotificationModel", .product(name: "Logging", package: "swift-log")]
        ),
        // The GRDB implementation of `NotificationStore`: the only module that imports GRDB.
        .target(
            name: "NotificationStoreSQLite",
            dependencies: ["NotificationEngine", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // Presenters: the terminal presenter (the D-Bus one arrives with desktop delivery).
        .target(name: "NotificationDelivery", dependencies: ["NotificationEngine"]),
        // Apple's UserNotifications API, backed by the engine in embedded mode.
        .target(
            name: "OpenUserNotifications",
            dependencies: ["NotificationModel", "NotificationEngine", "NotificationStoreSQLite", "NotificationDelivery"],
            exclude: ["RemainingInterface.swift.txt"]
        ),
        // Re-exports Apple's framework where it exists and ours elsewhere.
        .target(name: "OpenUserNotificationsShim", dependencies: ["OpenUserNotifications"]),
        // Deterministic testing support for apps: manual clock, recording presenter, constructible values.
        .target(name: "OpenUserNotificationsTesting", dependencies: ["OpenUserNotifications", "NotificationStoreSQLite"]),
        // The `unotify` commands, as a library so tests can run them in-process.
        .target(
            name: "UnotifyCLI",
            dependencies: [
                "OpenUserNotifications", "NotificationEngine", "NotificationStoreSQLite", "NotificationDelivery",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "unotify", dependencies: ["UnotifyCLI", .product(name: "Logging", package: "swift-log")]
        ),
        .executableTarget(
            name: "UnotifyBench",
            dependencies: ["OpenUserNotifications", "NotificationStoreSQLite", .product(name: "GRDB", package: "GRDB.swift")]
        ),

        .testTarget(
            name: "NotificationEngineTests",
            dependencies: ["NotificationEngine", "NotificationStoreSQLite", "OpenUserNotificationsTesting"]
        ),
        .testTarget(name: "NotificationStoreSQLiteTests", dependencies: ["NotificationStoreSQLite"]),
        .testTarget(name: "OpenUserNotificationsTests", dependencies: ["OpenUserNotificationsTesting", "NotificationDelivery"]),
        .testTarget(name: "SeedTranslationTests", dependencies: ["OpenUserNotificationsShim", "OpenUserNotificationsTesting"]),
        .testTarget(name: "UnotifyCLITests", dependencies: ["UnotifyCLI", "OpenUserNotificationsTesting"]),
    ]
)

// One place for the strict settings every target gets.
for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}
