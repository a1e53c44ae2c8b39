import AsyncHTTPClient
import BenchSupport
import Foundation
import NIOCore
import NotificationEngine
import NotificationModel
import NotificationServer
import NotificationStorePostgres

extension ServerBench {
    /// The API token of the bench's worker API.
    static let apiToken = "bench-token-0123456789abcdef"

    /// Figure 1: `requests` requests over the devices, scheduled through the Swift API in batches and through the HTTP
    /// API, against a raw `INSERT ... SELECT` of as many rows.
    ///
    /// Every request is a yearly floating calendar trigger at 9:00 on the 15th of the month six months ahead, pinned to
    /// its device's zone and planned there, as a daily 9:00 would be (the same work per request), but not due while
    /// the other figures run.
    func scheduleRates(_ cluster: Cluster) async throws -> [Figure] {
        let store = cluster.store
        let scheduler = NotificationScheduler(store: store, clock: ServerWorker.utcClock, presenter: SilentPresenter())
        let api = DeviceScheduler(store: store, scheduler: scheduler)
        let trigger = Self.farTrigger
        let count = sizes.requests
        let ids = cluster.deviceIDs

        progress(
            "1: scheduling \(Format.count(count)) requests through DeviceScheduler.schedule(_:), \(Format.count(sizes.swiftBatch)) per call"
        )
        var started = ContinuousClock.now
        var failed = 0
        for start in stride(from: 0, to: count, by: sizes.swiftBatch) {
            let batch = (start..<min(count, start + sizes.swiftBatch)).map { index in
                DeviceRequest(
                    deviceID: ids[index % ids.count],
                    spec: RequestSpec(
                        identifier: "swift-\(index)", content: Self.content("yearly \(index)"), trigger: trigger))
            }
            failed += await api.schedule(batch).count
        }
        let swiftSeconds = (ContinuousClock.now - started).seconds
        if failed > 0 { progress("1: \(failed) requests were refused through the Swift API") }

        progress(
            "1: scheduling \(Format.count(count)) requests through POST /v1/request-batches, \(Format.count(sizes.httpBatch)) per call"
        )
        let server = ServerAPI(
            devices: api, token: Self.apiToken,
            configuration: ServerAPIConfiguration(host: "127.0.0.1", port: 0, maximumBatchCount: 5_000))
        let (addresses, announce) = AsyncStream<String>.makeStream()
        let serving = Task {
            try await server.run { address in announce.yield(address) }
        }
        var iterator = addresses.makeAsyncIterator()
        guard let base = await iterator.next() else { throw BenchFailure("the worker's HTTP API did not start") }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let httpResult: Result<(seconds: Double, failed: Int), any Error>
        do {
            started = ContinuousClock.now
            var httpFailed = 0
            for start in stride(from: 0, to: count, by: sizes.httpBatch) {
                httpFailed += try await Self.postBatch(
                    client: client, base: base, range: start..<min(count, start + sizes.httpBatch), ids: ids)
            }
            httpResult = .success(((ContinuousClock.now - started).seconds, httpFailed))
        } catch {
            httpResult = .failure(error)
        }
        try? await client.shutdown()
        serving.cancel()
        _ = await serving.result
        let (httpSeconds, httpFailed) = try httpResult.get()
        if httpFailed > 0 { progress("1: \(httpFailed) requests were refused through the HTTP API") }

        progress("1: the raw INSERT ... SELECT of \(Format.count(count)) rows")
        let raw = try await RawPending.insert(
            cluster.configuration, rows: count, devices: ids.count, prefix: "raw-",
            spec: RequestSpec(identifier: "raw", content: Self.content("yearly 0"), trigger: trigger), copy: true)
        let pending = try await store.pendingCount()
        let rawRate = "\(Format.rate(rows: count, seconds: raw))"
        let scope =
            "\(Format.count(count)) yearly floating requests over \(Format.count(ids.count)) devices in \(sizes.zones) zones"
        return [
            Figure(
                number: "1a",
                measure:
                    "schedule, Swift API: DeviceScheduler.schedule(_:), \(Format.count(sizes.swiftBatch)) per call, \(scope)"
                    + (failed > 0 ? " (\(failed) refused)" : ""),
                result: Format.rate(rows: count, seconds: swiftSeconds), baseline: "raw INSERT ... SELECT \(rawRate)",
                ratio: Format.ratio(swiftSeconds, raw) + " the time", target: "issue 12: a rate, no figure"),
            Figure(
                number: "1b",
                measure:
                    "schedule, HTTP API: POST /v1/request-batches, \(Format.count(sizes.httpBatch)) per call, one after "
                    + "the other, AsyncHTTPClient over TCP, \(scope)"
                    + (httpFailed > 0 ? " (\(httpFailed) refused)" : ""),
                result: Format.rate(rows: count, seconds: httpSeconds), baseline: "raw INSERT ... SELECT \(rawRate)",
                ratio: Format.ratio(httpSeconds, raw) + " the time", target: "issue 12: a rate, no figure"),
            Figure(
                number: "1c", measure: "pending after figure 1", result: Format.count(pending), baseline: "–",
                ratio: "–",
                target: "–"),
        ]
    }

    /// Sends one `POST /v1/request-batches` and returns how many of its requests were refused.
    private static func postBatch(client: HTTPClient, base: String, range: Range<Int>, ids: [String]) async throws
        -> Int
    {
        let items = range.map { index in
            #"{"device":"\#(ids[index % ids.count])","request":{"identifier":"http-\#(index)","title":"yearly \#(index)","trigger":{"calendar":\#(farTriggerJSON),"repeats":true}}}"#
        }
        var request = HTTPClientRequest(url: base + "v1/request-batches")
        request.method = .POST
        request.headers.add(name: "authorization", value: "Bearer \(apiToken)")
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: #"{"requests":[\#(items.joined(separator: ","))]}"#))
        let response = try await client.execute(request, timeout: .seconds(600))
        let body = try await response.body.collect(upTo: 16 << 20)
        guard response.status == .ok || response.status.code == 207 else {
            throw BenchFailure("POST /v1/request-batches answered \(response.status.code): \(String(buffer: body))")
        }
        let answer = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
        return (answer?["failed"] as? [Any])?.count ?? 0
    }

    /// The month six months from now: far enough that no request of figure 1 falls due during the run.
    static var farMonth: Int {
        (Calendar(identifier: .gregorian).component(.month, from: Date()) + 5) % 12 + 1
    }

    /// Yearly, 9:00 on the 15th of ``farMonth``, floating (each device's zone).
    static var farTrigger: TriggerSpec {
        var components = CalendarComponents()
        (components.month, components.day, components.hour) = (farMonth, 15, 9)
        return .calendar(components, repeats: true, matching: .apple)
    }

    /// ``farTrigger``'s components as the HTTP API takes them.
    static var farTriggerJSON: String { #"{"month":\#(farMonth),"day":15,"hour":9}"# }

    /// Content with a title (the endpoint's record of each request) and a body.
    static func content(_ title: String) -> NotificationPayload {
        var content = NotificationPayload()
        content.title = title
        content.body = "server bench"
        return content
    }
}
