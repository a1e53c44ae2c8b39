import BenchSupport
import Foundation
import NotificationEngine
import NotificationModel
import NotificationPush
import NotificationPushGateway
import NotificationStoreSQLite
import PushTestSupport

extension ServerBench {
    /// Figure 4 (issue 11, target 6): pushes accepted by the APNs endpoint as `unotifyd` composes it (a
    /// ``PushGateway`` that answers once the push is durable in the SQLite store, `deliversImmediately: false`, the
    /// engine's loop delivering beside it, the request log on) over one h2c connection with `streams` concurrent
    /// streams, against the same endpoint's trivial route (answered at once by the responder, after the same transport,
    /// sniffer, HTTP/2 handler and checks). ``EndpointLoad`` sends both loads.
    func pushEndpoint() async throws -> [Figure] {
        let path = folder + "/push/store.sqlite"
        try FileManager.default.createDirectory(atPath: folder + "/push", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder + "/push") }
        let store = try SQLiteNotificationStore(path: path)
        let scheduler = NotificationScheduler(
            store: store, clock: SystemNotificationClock(), presenter: SilentPresenter())
        let appID = "com.example.pushbench"
        try await scheduler.setAuthorization(appID: appID, status: .authorized, options: [.alert, .sound, .badge])
        let token = try await scheduler.registerForRemoteNotifications(appID: appID).token
        let gateway = PushGateway(scheduler: scheduler, deliversImmediately: false)
        var configuration = APNsEndpointConfiguration(address: APNsEndpointAddress(host: "127.0.0.1", port: 0))
        configuration.maximumRequestsPerTokenPerSecond = nil
        // The daemon's default request log (`--apns-log-size 1000`): written in batches beside the pushes.
        configuration.requestLog = APNsRequestLog(keep: 1_000) { entries, keep in
            try await store.appendAPNsLog(entries, keep: keep)
        }
        // Both routes through the same transport: the endpoint hands over each read's requests together.
        let trivialAnswer = APNsResponse.success(apnsID: "00000000-0000-0000-0000-000000000000")
        let endpoint = APNsEndpoint(configuration: configuration) { request in
            if request.path == "/trivial" { return trivialAnswer }
            return await gateway.handle(request)
        } batchResponder: { requests in
            let pushes = requests.filter { $0.path != "/trivial" }
            guard !pushes.isEmpty else { return requests.map { _ in trivialAnswer } }
            var responses = await gateway.handle(batch: pushes)[...]
            return requests.map { $0.path == "/trivial" ? trivialAnswer : responses.removeFirst() }
        }
        let port = try await endpoint.start()
        let loop = Task { await scheduler.run() }
        let apnsPath = "/3/device/\(token.hex)"
        let measured: Result<(trivial: EndpointLoad.Figures, apns: EndpointLoad.Figures), any Error>
        do {
            progress(
                "4: warming up, then \(Format.count(sizes.pushes)) requests per route, \(sizes.streams) streams, one connection"
            )
            let streams = sizes.streams
            let warmUp = max(streams, min(2_000, sizes.pushes / 5))
            _ = try await EndpointLoad.measure(
                port: port, path: "/trivial", topic: appID, count: warmUp, streams: streams, connections: 1)
            _ = try await EndpointLoad.measure(
                port: port, path: apnsPath, topic: appID, count: warmUp, streams: streams, connections: 1)
            let trivial = try await EndpointLoad.measure(
                port: port, path: "/trivial", topic: appID, count: sizes.pushes, streams: streams, connections: 1)
            let apns = try await EndpointLoad.measure(
                port: port, path: apnsPath, topic: appID, count: sizes.pushes, streams: streams, connections: 1)
            measured = .success((trivial, apns))
        } catch {
            measured = .failure(error)
        }
        loop.cancel()
        await loop.value
        await endpoint.stop()
        let (trivial, apns) = try measured.get()
        func latency(_ figures: EndpointLoad.Figures) -> String {
            String(format: "p50 %.2f ms, p99 %.2f ms", figures.p50, figures.p99)
        }
        return [
            Figure(
                number: "4",
                measure: "push endpoint: durable pushes/s, one h2c connection, \(sizes.streams) streams, "
                    + "\(Format.count(sizes.pushes)) pushes, SQLite store on \(BenchMachine.fileSystem(of: path))",
                result: "\(Format.count(Int(apns.perSecond))) /s (\(latency(apns)))",
                baseline: "trivial route \(Format.count(Int(trivial.perSecond))) /s (\(latency(trivial)))",
                ratio: Format.ratio(apns.perSecond, trivial.perSecond),
                target: "issue 11 #6: ≥ 10,000 /s and ≥ ×0.5 of trivial")
        ]
    }
}
