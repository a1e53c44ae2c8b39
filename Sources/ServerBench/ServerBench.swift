import BenchSupport
import Foundation
import Logging
import NotificationEngine
import NotificationModel
import NotificationServer
import NotificationStorePostgres
import PostgresNIO
import PostgresTestServer
import PushTestSupport

/// One run of the bench: a throwaway PostgreSQL server with one database, the devices registered in it, our APNs
/// endpoint as the devices' side, and a store whose pool runs for the whole run; the figures run on them one after
/// the other.
///
/// The PostgreSQL server stops (and its folder goes) when the process exits: at the end, on error, and on SIGINT or
/// SIGTERM, which also remove the endpoint's keys and the push figure's SQLite files.
struct ServerBench: Sendable {
    let sizes: BenchSizes
    /// The database, the devices and their side, and the bench's own store (figures 1 to 3).
    let cluster: Cluster?
    /// Where the push figure keeps its SQLite store.
    let folder: String
    private let interruption: Interruption

    /// The PostgreSQL side of the run.
    struct Cluster: Sendable {
        let server: PostgresTestServer
        let configuration: PostgresClient.Configuration
        let side: DeviceSide
        let store: PostgresNotificationStore
        let pool: Task<Void, Never>
        /// The registered devices' identifiers, `bench-0` … (device `i` is in zone `i % zones`).
        let deviceIDs: [String]
        /// How long registering them took, in seconds.
        let registering: Double
    }

    /// The bench's APNs topic.
    static let topic = "com.example.bench"

    init(sizes: BenchSizes) async throws {
        self.sizes = sizes
        let folder = "/tmp/unotify-server-bench-\(getpid())"
        self.folder = folder
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        interruption = Interruption(removing: folder)
        say("unotify-server-bench — server mode (issue 12) and the push endpoint (issue 11, target 6)")
        say("date:    \(Date().formatted(.iso8601)); \(Self.build)")
        say("machine: \(BenchMachine.description); load average at start \(BenchMachine.loadAverage)")
        guard sizes.needsCluster else {
            cluster = nil
            return
        }
        let server = try await PostgresTestServer.shared(durable: sizes.durable)
        let configuration = PostgresClient.Configuration(
            unixSocketPath: server.socketPath, username: server.user, password: nil,
            database: try await server.makeDatabase())
        say(
            "postgres: throwaway server in \(server.folder) (\(server.binaries)), Unix socket, "
                + (sizes.durable
                    ? "fsync, synchronous_commit and full_page_writes ON (--fsync)"
                    : "fsync, synchronous_commit and full_page_writes OFF (no disk flush per commit, for the figures "
                        + "and their raw baselines alike; --fsync turns them on)"))
        let side = try await DeviceSide()
        interruption.remove(side.folder.path)
        let store = PostgresNotificationStore(configuration: configuration, owner: "bench-main")
        let pool = Task { await store.run() }
        try await store.migrate()
        let started = ContinuousClock.now
        let deviceIDs = try await Self.register(store: store, count: sizes.devices, zones: sizes.zones)
        cluster = Cluster(
            server: server, configuration: configuration, side: side, store: store, pool: pool, deviceIDs: deviceIDs,
            registering: (ContinuousClock.now - started).seconds)
    }

    /// Measures the chosen figures and prints the summary table.
    func run() async throws {
        let started = ContinuousClock.now
        var figures: [Figure] = []
        // Each row is printed as soon as it is measured too, so that an interrupted run keeps what it measured.
        func add(_ rows: [Figure]) {
            for row in rows { say("figure \(row.number): \(row.measure): \(row.result) | \(row.baseline) | \(row.ratio)") }
            figures += rows
        }
        if let cluster {
            add([registration(cluster)])
            if sizes.only.contains(1) { add(try await scheduleRates(cluster)) }
            if sizes.only.contains(2) { add(try await bursts(cluster)) }
            if sizes.only.contains(3) { add(try await lateness(cluster)) }
        }
        if sizes.only.contains(4) { add(try await pushEndpoint()) }
        say()
        say(
            "Figures (\(sizes.quick ? "--quick sizes" : "sizes as given"), \(Format.duration((ContinuousClock.now - started).seconds)) "
                + "after set-up; load average at end \(BenchMachine.loadAverage)):")
        say(Figure.table(figures))
    }

    /// Stops the store's pool and the endpoint, and removes the bench's files (the PostgreSQL server goes at exit).
    func stop() async {
        if let cluster {
            cluster.pool.cancel()
            await cluster.pool.value
            await cluster.side.stop()
        }
        try? FileManager.default.removeItem(atPath: folder)
        interruption.cancel()
    }

    /// Registers `count` devices, device `i` in the `i % zones`-th of the system's zones, 8 at a time.
    private static func register(store: PostgresNotificationStore, count: Int, zones: Int) async throws -> [String] {
        let names = Array(TimeZone.knownTimeZoneIdentifiers.prefix(zones))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<8 {
                group.addTask {
                    for index in stride(from: lane, to: count, by: 8) {
                        _ = try await store.registerDevice(
                            registration(index, zone: names[index % names.count]), at: Date())
                    }
                }
            }
            try await group.waitForAll()
        }
        progress("registered \(Format.count(count)) devices in \(names.count) zones")
        return (0..<count).map { "bench-\($0)" }
    }

    /// The registration of device `index`: a token derived from it, a development device of ``topic``.
    static func registration(_ index: Int, zone: String) -> DeviceRegistration {
        let digits = String(UInt64(index) &* 0x9E37_79B9_7F4A_7C15, radix: 16)
        return DeviceRegistration(
            id: "bench-\(index)", token: String((String(repeating: "0", count: 64) + digits).suffix(64)),
            topic: topic, environment: .development, timeZoneIdentifier: zone, localeIdentifier: "en_US")
    }

    private static var build: String {
        #if DEBUG
            "DEBUG build: figures are not meaningful, build with -c release"
        #else
            "release build"
        #endif
    }

    /// The devices' registration as a table row (issue 12 gives no target for it).
    private func registration(_ cluster: Cluster) -> Figure {
        Figure(
            number: "0",
            measure: "register \(Format.count(sizes.devices)) devices in \(sizes.zones) zones (store, 8 at a time)",
            result: Format.rate(rows: sizes.devices, seconds: cluster.registering), baseline: "–", ratio: "–",
            target: "–")
    }
}
