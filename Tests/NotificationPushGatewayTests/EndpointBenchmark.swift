import Foundation
import NotificationPush
import NotificationPushGateway
import OpenUserNotificationsTesting
import PushTestSupport
import TestPrograms
import Testing

/// The APNs route against a trivial route on the same server stack, in the same run: sustained requests per
/// second and latency percentiles over h2c on loopback with several concurrent streams. Opt-in:
/// `OPENUN_BENCH=1 swift test --filter EndpointBenchmark` (figures in docs/benchmarks-apns.md). The load itself is
/// ``EndpointLoad`` (Tests/Support/PushTestSupport), which `unotify-server-bench` runs too.
@Suite("APNs endpoint benchmark", .serialized, .enabled(if: ProcessInfo.processInfo.environment["OPENUN_BENCH"] != nil))
struct EndpointBenchmark {
    @Test("pushes per second and p99: APNs route vs trivial route, same stack, same run")
    func compare() async throws {
        let folder = try temporaryFolder("gw-bench")
        defer { try? FileManager.default.removeItem(at: folder) }
        let system = try NotificationTestSystem(storePath: folder.appendingPathComponent("store.sqlite").path)
        _ = try await system.center(for: testAppID)
        let token = try await system.scheduler.registerForRemoteNotifications(appID: testAppID).token
        let gateway = PushGateway(scheduler: system.scheduler)
        var configuration = APNsEndpointConfiguration(address: APNsEndpointAddress(host: "127.0.0.1", port: 0))
        configuration.maximumRequestsPerTokenPerSecond = nil
        let endpoint = APNsEndpoint(configuration: configuration) { request in
            if request.path.hasPrefix("/trivial") { return .success(apnsID: "00000000-0000-0000-0000-000000000000") }
            return await gateway.handle(request)
        }
        let port = try await endpoint.start()
        let count = Int(ProcessInfo.processInfo.environment["OPENUN_BENCH_COUNT"] ?? "") ?? 4_000
        print("APNs endpoint benchmark: \(count) requests per route, h2c on 127.0.0.1, file-backed SQLite store")
        print(
            "| streams | connections | trivial req/s | trivial p50 ms | trivial p99 ms | APNs req/s | APNs p50 ms | APNs p99 ms | APNs/trivial |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        for (streams, connections) in [(1, 1), (8, 1), (32, 2), (100, 1)] {
            _ = try await EndpointLoad.measure(
                port: port, path: "/trivial", topic: testAppID,
                count: 200, streams: streams, connections: connections)
            _ = try await EndpointLoad.measure(
                port: port, path: "/3/device/\(token.hex)", topic: testAppID,
                count: 200, streams: streams, connections: connections)
            let trivial = try await EndpointLoad.measure(
                port: port, path: "/trivial", topic: testAppID,
                count: count, streams: streams, connections: connections)
            let apns = try await EndpointLoad.measure(
                port: port, path: "/3/device/\(token.hex)", topic: testAppID,
                count: count, streams: streams, connections: connections)
            func f(_ value: Double) -> String { String(format: "%.2f", value) }
            print(
                "| \(streams) | \(connections) | \(Int(trivial.perSecond)) | \(f(trivial.p50)) | \(f(trivial.p99)) | "
                    + "\(Int(apns.perSecond)) | \(f(apns.p50)) | \(f(apns.p99)) | \(f(apns.perSecond / trivial.perSecond)) |"
            )
        }
        await endpoint.stop()
    }
}
