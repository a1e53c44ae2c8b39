import Foundation
import Logging
import NotificationEngine
import NotificationModel
import NotificationPush
import NotificationPushGateway
import OpenUserNotificationsTesting
import PushTestSupport
import TestPrograms
import Testing

@testable import NotificationDaemon

/// What reading the fault rules costs the push path: the daemon used to read and decode the stored rules for every
/// request; it now reads their stored text and decodes only when it changed (``APNsFaultRuleCache``). Both are
/// measured in the same run, on a file-backed store holding three rules that match none of the requests. Opt-in:
/// `OPENUN_BENCH=1 swift test --filter FaultRuleReadBenchmark` (figures in docs/benchmarks-apns.md).
@Suite(
    "APNs fault rule reads benchmark", .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["OPENUN_BENCH"] != nil))
struct FaultRuleReadBenchmark {
    @Test("rules read per request: decode every time vs decode on change; alone and on the push path")
    func compare() async throws {
        let folder = try temporaryFolder("gw-rules-bench")
        defer { try? FileManager.default.removeItem(at: folder) }
        let system = try NotificationTestSystem(storePath: folder.appendingPathComponent("store.sqlite").path)
        _ = try await system.center(for: testAppID)
        let token = try await system.scheduler.registerForRemoteNotifications(appID: testAppID).token
        let store = system.scheduler.store
        try await store.setAPNsFaultRules([
            try APNsFaultRule(
                id: "busy", reason: "TooManyRequests", topic: "com.example.busy", fraction: 0.25, seed: 7),
            try APNsFaultRule(id: "gone", reason: "Unregistered", token: String(repeating: "ab", count: 32)),
            try APNsFaultRule(id: "flaky", action: .close, count: 100, topic: "com.example.flaky"),
        ])
        let cache = APNsFaultRuleCache(store: store, logger: Logger(label: "bench"))
        let decodeEveryTime: @Sendable () async -> [APNsFaultRule] = { (try? await store.apnsFaultRules()) ?? [] }
        let decodeOnChange: @Sendable () async -> [APNsFaultRule] = { await cache.rules() }
        let count = Int(ProcessInfo.processInfo.environment["OPENUN_BENCH_COUNT"] ?? "") ?? 4_000

        func perCall(_ read: @Sendable () async -> [APNsFaultRule]) async -> Double {
            var read3 = 0
            for _ in 0..<200 { read3 += await read().count }
            let start = ContinuousClock.now
            for _ in 0..<(count * 5) { read3 += await read().count }
            precondition(read3 == 3 * (200 + count * 5), "the rules were not read")
            let elapsed = (ContinuousClock.now - start).components
            return (Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18) / Double(count * 5) * 1e6
        }
        let aloneBefore = await perCall(decodeEveryTime)
        let aloneAfter = await perCall(decodeOnChange)

        func pushPath(_ read: @escaping @Sendable () async -> [APNsFaultRule]) async throws -> EndpointLoad.Figures
        {
            var configuration = APNsEndpointConfiguration(address: APNsEndpointAddress(host: "127.0.0.1", port: 0))
            configuration.maximumRequestsPerTokenPerSecond = nil
            configuration.faultRules = read
            let endpoint = APNsEndpoint(configuration: configuration, gateway: PushGateway(scheduler: system.scheduler))
            let port = try await endpoint.start()
            _ = try await EndpointLoad.measure(
                port: port, path: "/3/device/\(token.hex)", topic: testAppID, count: 200, streams: 8, connections: 1)
            let figures = try await EndpointLoad.measure(
                port: port, path: "/3/device/\(token.hex)", topic: testAppID, count: count, streams: 8, connections: 1)
            await endpoint.stop()
            return figures
        }
        let pathBefore = try await pushPath(decodeEveryTime)
        let pathAfter = try await pushPath(decodeOnChange)
        func f(_ value: Double) -> String { String(format: "%.2f", value) }
        print("APNs fault rule reads: 3 stored rules, file-backed SQLite store, \(count) requests per push-path run")
        print("| reading the rules | per read µs | push path req/s | p50 ms | p99 ms |")
        print("|---|---|---|---|---|")
        print(
            "| read + decode per request (before) | \(f(aloneBefore)) | \(Int(pathBefore.perSecond)) | \(f(pathBefore.p50)) | \(f(pathBefore.p99)) |"
        )
        print(
            "| read text, decode on change (after) | \(f(aloneAfter)) | \(Int(pathAfter.perSecond)) | \(f(pathAfter.p50)) | \(f(pathAfter.p99)) |"
        )
    }
}
