import Foundation
import NotificationAPNsProvider
import NotificationEngine
import NotificationPush
import NotificationPushGateway
import OpenUserNotificationsTesting
import Testing

/// The provider client's throughput over one HTTP/2 connection (TLS on loopback) with 100 notifications in flight,
/// against the endpoint's trivial route (answers 200 at once: the cost of client, TLS, HTTP/2 and the endpoint's
/// token check) and its APNs route (the gateway delivering into an in-memory store), in the same run. Opt-in:
/// `OPENUN_BENCH=1 swift test --filter ProviderClientBenchmark` (figures in docs/benchmarks-apns.md).
@Suite(
    "APNs provider client benchmark", .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["OPENUN_BENCH"] != nil))
struct ProviderClientBenchmark {
    /// The token the trivial route answers.
    static let trivialToken = String(repeating: "0", count: 63) + "1"

    struct Figures {
        var perSecond: Double
        var p50: Double
        var p99: Double
    }

    /// Sends `count` notifications from `concurrency` tasks sharing one client.
    static func measure(
        client: APNsClient, count: Int, concurrency: Int, make: @escaping @Sendable (Int) -> APNsNotification
    )
        async throws -> Figures
    {
        let clock = ContinuousClock()
        let start = clock.now
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    var mine: [Double] = []
                    for index in stride(from: worker, to: count, by: concurrency) {
                        let began = clock.now
                        let delivery = try await client.send(make(index))
                        precondition(delivery.isDelivered && delivery.attempts == 1, "\(delivery.outcome)")
                        let elapsed = (clock.now - began).components
                        mine.append(Double(elapsed.seconds) * 1e3 + Double(elapsed.attoseconds) / 1e15)
                    }
                    return mine
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }.sorted()
        }
        let total = (clock.now - start).components
        let seconds = Double(total.seconds) + Double(total.attoseconds) / 1e18
        return Figures(
            perSecond: Double(latencies.count) / seconds, p50: latencies[latencies.count / 2],
            p99: latencies[min(latencies.count - 1, Int(Double(latencies.count) * 0.99))])
    }

    @Test("pushes per second over one connection, 100 in flight: trivial route vs APNs route, same run")
    func compare() async throws {
        let count = Int(ProcessInfo.processInfo.environment["OPENUN_BENCH_COUNT"] ?? "") ?? 4_000
        let body = Data(#"{"aps":{"alert":{"title":"Bench","body":"push"},"sound":"default"}}"#.utf8)
        let trivial: @Sendable (Int) -> APNsNotification = { _ in
            APNsNotification(deviceToken: Self.trivialToken, topic: testAppID, payload: body)
        }
        print("APNs provider client benchmark: \(count) notifications per row, 100 in flight, one client, one HTTP/2")
        print("connection, TLS on 127.0.0.1, in-memory store")
        print("| route | endpoint checks provider tokens | pushes/s | p50 ms | p99 ms |")
        print("|---|---|---|---|---|")
        var rates: [String: Double] = [:]
        for checksTokens in [false, true] {
            let live = try await LiveEndpoint(recordsRequests: false) { configuration in
                configuration.maximumRequestsPerTokenPerSecond = nil
                configuration.requestLog = nil
                if !checksTokens { configuration.providerTokens = nil }
            }
            let client = try live.client { $0.clock = SystemNotificationClock() }
            let token = live.token
            let apns: @Sendable (Int) -> APNsNotification = { index in
                APNsNotification(deviceToken: token, topic: testAppID, payload: body)
            }
            // Warm up: the connection and the first provider token.
            _ = try await Self.measure(client: client, count: 200, concurrency: 100, make: trivial)
            for (name, make) in [("trivial", trivial), ("APNs", apns)] {
                let figures = try await Self.measure(client: client, count: count, concurrency: 100, make: make)
                rates["\(name) \(checksTokens)"] = figures.perSecond
                print(
                    "| \(name) | \(checksTokens ? "yes" : "no") | \(Int(figures.perSecond)) | "
                        + "\(String(format: "%.1f", figures.p50)) | \(String(format: "%.1f", figures.p99)) |")
            }
            #expect(live.shown.count == count)
            try await client.shutdown()
            await live.stop()
        }
        for checksTokens in [false, true] {
            let ratio = (rates["APNs \(checksTokens)"] ?? 0) / (rates["trivial \(checksTokens)"] ?? 1)
            print("APNs/trivial, tokens checked \(checksTokens ? "yes" : "no"): \(String(format: "%.2f", ratio))")
        }
    }
}
