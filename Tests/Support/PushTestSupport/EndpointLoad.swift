import Foundation

/// A load on an APNs-shaped HTTP/2 route: `count` POSTs with an alert payload, `streams` at a time spread over
/// `connections` h2c connections, each stream sending its share one request after another. The opt-in
/// `EndpointBenchmark` and `unotify-server-bench` (figure 4) measure the APNs route and a trivial route of the same
/// endpoint with it.
///
/// ```swift
/// let figures = try await EndpointLoad.measure(
///     port: port, path: "/3/device/\(hex)", topic: "com.example.app", count: 4_000, streams: 100, connections: 1)
/// print(figures.perSecond, figures.p99)
/// ```
public enum EndpointLoad {
    /// Requests per second over the whole load, and the requests' latency percentiles in milliseconds.
    public struct Figures: Sendable {
        public var perSecond: Double
        public var p50: Double
        public var p99: Double
    }

    /// A request answered with another status than 200: the figures would not be of accepted requests.
    public struct UnexpectedStatus: Error, CustomStringConvertible {
        public let status: Int
        public let body: String
        public var description: String { "the endpoint answered \(status) (\(body)) instead of 200" }
    }

    /// The payload every request carries (70 bytes).
    public static let body = Data(#"{"aps":{"alert":{"title":"Bench","body":"push"},"sound":"default"}}"#.utf8)

    /// Sends `count` requests (rounded down to a multiple of `streams`) with `streams` concurrent streams spread over
    /// `connections` connections to 127.0.0.1:`port`, with `apns-topic: topic` and a collapse id among 50 per stream.
    ///
    /// - Throws: ``UnexpectedStatus`` when a request is answered anything but 200; connection errors.
    public static func measure(
        port: Int, path: String, topic: String, count: Int, streams: Int, connections: Int
    ) async throws -> Figures {
        var clients: [HTTP2TestClient] = []
        for _ in 0..<connections { clients.append(try await HTTP2TestClient.connect(port: port)) }
        let latencies = Shared<[Double]>([])
        let clock = ContinuousClock()
        let start = clock.now
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<streams {
                    let client = clients[worker % connections]
                    group.addTask {
                        let mine = try await send(
                            client: client, path: path, topic: topic, worker: worker, count: count / streams)
                        latencies.update { $0 += mine }
                    }
                }
                try await group.waitForAll()
            }
        } catch {
            for client in clients { await client.close() }
            throw error
        }
        let total = clock.now - start
        let seconds = Double(total.components.seconds) + Double(total.components.attoseconds) / 1e18
        for client in clients { await client.close() }
        let sorted = latencies.current.sorted()
        guard !sorted.isEmpty else { return Figures(perSecond: 0, p50: .nan, p99: .nan) }
        return Figures(
            perSecond: Double(sorted.count) / seconds, p50: sorted[sorted.count / 2],
            p99: sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))])
    }

    /// One stream's share: `count` requests one after another; their latencies in milliseconds.
    private static func send(
        client: HTTP2TestClient, path: String, topic: String, worker: Int, count: Int
    ) async throws -> [Double] {
        let clock = ContinuousClock()
        var mine: [Double] = []
        mine.reserveCapacity(count)
        for index in 0..<count {
            let began = clock.now
            let response = try await client.send(
                path: path, headers: [("apns-topic", topic), ("apns-collapse-id", "b\(worker)-\(index % 50)")],
                body: body)
            guard response.status == 200 else {
                throw UnexpectedStatus(status: response.status, body: String(decoding: response.body, as: UTF8.self))
            }
            let elapsed = clock.now - began
            mine.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1e3)
        }
        return mine
    }
}
