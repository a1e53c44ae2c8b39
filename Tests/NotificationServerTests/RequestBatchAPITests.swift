import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NotificationEngine
import NotificationModel
import NotificationServer
import NotificationStorePostgres
import Testing

/// `POST /v1/request-batches`: many requests, each for its device, in one call, in-process on a fresh database each.
@Suite("Server API: request batches", .timeLimit(.minutes(3)))
struct RequestBatchAPITests {
    /// Runs `body` with a client of an API with these limits, over a new database with devices `d1`, `d2` (Paris) and
    /// `gone` (inactive).
    func withAPI(
        _ configuration: ServerAPIConfiguration = ServerAPIConfiguration(),
        _ body: @escaping @Sendable (any TestClientProtocol, DeviceScheduler) async throws -> Void
    ) async throws {
        try await withDeviceScheduler { store, devices in
            for id in ["d1", "d2", "gone"] { try await devices.register(registration(id, zone: "Europe/Paris")) }
            try await store.deactivateDevice(id: "gone", at: devices.scheduler.clock.now)
            let api = ServerAPI(devices: devices, token: ServerAPITests.token, configuration: configuration)
            try await Application(router: api.router()).test(.router) { client in try await body(client, devices) }
        }
    }

    static func item(_ device: String, _ request: String) -> String {
        #"{"device":"\#(device)","request":\#(request)}"#
    }

    @Test("200 when every request is scheduled; each device's pending requests as one at a time would list them")
    func allScheduled() async throws {
        try await withAPI { client, devices in
            let items = [
                Self.item("d1", #"{"identifier":"nine","title":"t","trigger":{"calendar":{"hour":9},"repeats":true}}"#),
                Self.item("d2", #"{"identifier":"soon","trigger":{"timeInterval":600}}"#),
                Self.item("d1", #"{"identifier":"tokyo","trigger":{"calendar":{"hour":18,"timeZone":"Asia/Tokyo"}}}"#),
                // The same device and identifier again: the last wins.
                Self.item("d2", #"{"identifier":"soon","trigger":{"timeInterval":900}}"#),
            ]
            let (status, answer) = try await ServerAPITests.send(
                client, .post, "/v1/request-batches", #"{"requests":[\#(items.joined(separator: ","))]}"#)
            #expect(status == .ok)
            #expect(answer["scheduled"] as? Int == 4)
            #expect((answer["failed"] as? [Any])?.isEmpty == true)
            let d1 = try await devices.pendingRequests(forDevice: "d1")
            #expect(d1.map(\.identifier).sorted() == ["nine", "tokyo"])
            // 9:00 in Paris is 08:00 UTC, passed at 12:00 UTC; 18:00 in Tokyo is 09:00 UTC, passed too.
            #expect(d1.first { $0.identifier == "nine" }?.nextFireDate == instant("2026-11-27T08:00:00Z"))
            #expect(d1.first { $0.identifier == "tokyo" }?.nextFireDate == instant("2026-11-27T09:00:00Z"))
            let d2 = try await devices.pendingRequests(forDevice: "d2")
            #expect(d2.map(\.nextFireDate) == [instant("2026-11-26T12:15:00Z")])
        }
    }

    @Test(
        "207 naming each failed request by index, device and identifier, with one at a time's reason; the rest is stored"
    )
    func someFail() async throws {
        try await withAPI { client, devices in
            let items = [
                Self.item("d1", #"{"identifier":"ok","trigger":{"timeInterval":600}}"#),
                Self.item("ghost", #"{"identifier":"x","trigger":{"timeInterval":600}}"#),
                Self.item("gone", #"{"identifier":"x","trigger":{"timeInterval":600}}"#),
                Self.item("d2", #"{"identifier":"bad","trigger":{"timeInterval":30,"repeats":true}}"#),
                Self.item("d2", #"{"identifier":"ok2","trigger":{"calendar":{"hour":9}}}"#),
            ]
            let (status, answer) = try await ServerAPITests.send(
                client, .post, "/v1/request-batches", #"{"requests":[\#(items.joined(separator: ","))]}"#)
            #expect(status.code == 207)
            #expect(answer["scheduled"] as? Int == 2)
            let failed = try #require(answer["failed"] as? [[String: Any]])
            #expect(failed.map { $0["index"] as? Int } == [1, 2, 3])
            #expect(failed.map { $0["device"] as? String } == ["ghost", "gone", "d2"])
            #expect(failed.map { $0["identifier"] as? String } == ["x", "x", "bad"])
            #expect(failed.map { $0["reason"] as? String } == ["UnknownDevice", "InactiveDevice", "InvalidTrigger"])
            #expect(failed.allSatisfy { ($0["detail"] as? String)?.isEmpty == false })
            #expect(try await devices.pendingRequests(forDevice: "d1").map(\.identifier) == ["ok"])
            #expect(try await devices.pendingRequests(forDevice: "d2").map(\.identifier) == ["ok2"])
        }
    }

    @Test(
        "a malformed batch is 400 naming the field and schedules nothing",
        arguments: [
            (#"{"requests":[]}"#, "requests must be"),
            (#"{"requests":{"device":"d1"}}"#, "requests must be"),
            (#"{"requests":[1]}"#, "requests[0] must be an object"),
            (
                #"{"requests":[{"device":"d1","request":{"identifier":"a"}}, {"request":{"identifier":"b"}}]}"#,
                "requests[1].device"
            ),
            (#"{"requests":[{"device":"d1","request":{"identifier":"a","badge":"x"}}]}"#, "requests[0].request.badge"),
            (#"{"requests":[{"device":"d1","request":{"identifier":"a"},"extra":1}]}"#, "requests[0].extra"),
            (#"{"requests":[{"device":"d1","request":{"identifier":"a"}}],"more":true}"#, "more"),
            (#"{"requests":[{"device":"d1","request":[]}]}"#, "requests[0].request must be an object"),
        ])
    func malformed(json: String, detail: String) async throws {
        try await withAPI { client, devices in
            let (status, answer) = try await ServerAPITests.send(client, .post, "/v1/request-batches", json)
            #expect(status == .badRequest, "\(json)")
            #expect(answer["reason"] as? String == "BadRequest")
            #expect((answer["detail"] as? String)?.hasPrefix(detail) == true, "\(answer)")
            #expect(try await devices.pendingRequests(forDevice: "d1").isEmpty)
        }
    }

    @Test(
        "more requests than the limit, or a body over the batch limit, is 413 and schedules nothing; 100 KB fits by default"
    )
    func limits() async throws {
        let small = ServerAPIConfiguration(maximumBatchBodySize: 2_000, maximumBatchCount: 3)
        try await withAPI(small) { client, devices in
            let four = (0..<4).map { Self.item("d1", #"{"identifier":"r\#($0)","trigger":{"timeInterval":600}}"#) }
            let (status, answer) = try await ServerAPITests.send(
                client, .post, "/v1/request-batches", #"{"requests":[\#(four.joined(separator: ","))]}"#)
            #expect(status == .contentTooLarge)
            #expect(answer["reason"] as? String == "BatchTooLarge")
            let big = Self.item("d1", #"{"identifier":"big","body":"\#(String(repeating: "x", count: 2_000))"}"#)
            let (bigStatus, bigAnswer) = try await ServerAPITests.send(
                client, .post, "/v1/request-batches", #"{"requests":[\#(big)]}"#)
            #expect(bigStatus == .contentTooLarge)
            #expect(bigAnswer["reason"] as? String == "PayloadTooLarge")
            #expect(try await devices.pendingRequests(forDevice: "d1").isEmpty)
        }
        try await withAPI { client, devices in
            // 500 requests of about 200 bytes: over the 64 KiB of the other routes, within the batch's 4 MiB.
            let items = (0..<500).map { index in
                Self.item(
                    index % 2 == 0 ? "d1" : "d2",
                    #"{"identifier":"r\#(index)","title":"\#(String(repeating: "t", count: 120))","trigger":{"timeInterval":\#(600 + index)}}"#
                )
            }
            let body = #"{"requests":[\#(items.joined(separator: ","))]}"#
            #expect(body.utf8.count > 65_536)
            let (status, answer) = try await ServerAPITests.send(client, .post, "/v1/request-batches", body)
            #expect(status == .ok)
            #expect(answer["scheduled"] as? Int == 500)
            // The pending cap (64 by default) keeps each device's soonest 64.
            let d1 = try await devices.pendingRequests(forDevice: "d1")
            #expect(d1.count == 64)
            #expect(Set(d1.map(\.identifier)) == Set((0..<64).map { "r\($0 * 2)" }))
        }
    }

    @Test("\"atomic\": true stores every request, 200 saying so; one refused request is 422 BatchRefused naming it, nothing stored")
    func atomic() async throws {
        try await withAPI { client, devices in
            try await devices.schedule(spec("keep", .timeInterval(3_600, repeats: false)), forDevice: "d1")
            let refused = [
                Self.item("d1", #"{"identifier":"keep","trigger":{"timeInterval":60}}"#),
                Self.item("d2", #"{"identifier":"ok","trigger":{"calendar":{"hour":9}}}"#),
                Self.item("gone", #"{"identifier":"x","trigger":{"timeInterval":600}}"#),
                Self.item("d2", #"{"identifier":"bad","trigger":{"timeInterval":30,"repeats":true}}"#),
            ]
            let (status, answer) = try await ServerAPITests.send(
                client, .post, "/v1/request-batches",
                #"{"atomic":true,"requests":[\#(refused.joined(separator: ","))]}"#)
            #expect(status == .unprocessableContent)
            #expect(answer["reason"] as? String == "BatchRefused")
            #expect(answer["detail"] as? String == "2 of 4 requests refused: nothing was stored")
            #expect(answer["atomic"] as? Bool == true)
            #expect(answer["scheduled"] as? Int == 0)
            let failed = try #require(answer["failed"] as? [[String: Any]])
            #expect(failed.map { $0["index"] as? Int } == [2, 3])
            #expect(failed.map { $0["device"] as? String } == ["gone", "d2"])
            #expect(failed.map { $0["identifier"] as? String } == ["x", "bad"])
            #expect(failed.map { $0["reason"] as? String } == ["InactiveDevice", "InvalidTrigger"])
            #expect(try await devices.pendingRequests(forDevice: "d1").map(\.nextFireDate) == [instant("2026-11-26T13:00:00Z")])
            #expect(try await devices.pendingRequests(forDevice: "d2").isEmpty)

            let good = Array(refused.prefix(2))
            let (goodStatus, goodAnswer) = try await ServerAPITests.send(
                client, .post, "/v1/request-batches", #"{"requests":[\#(good.joined(separator: ","))],"atomic":true}"#)
            #expect(goodStatus == .ok)
            #expect(goodAnswer["atomic"] as? Bool == true)
            #expect(goodAnswer["scheduled"] as? Int == 2)
            #expect((goodAnswer["failed"] as? [Any])?.isEmpty == true)
            #expect(try await devices.pendingRequests(forDevice: "d1").map(\.nextFireDate) == [instant("2026-11-26T12:01:00Z")])
            #expect(try await devices.pendingRequests(forDevice: "d2").map(\.nextFireDate) == [instant("2026-11-27T08:00:00Z")])

            // "atomic": false is the default (item by item); anything but a boolean is a 400.
            let (plainStatus, plainAnswer) = try await ServerAPITests.send(
                client, .post, "/v1/request-batches", #"{"requests":[\#(refused[2])],"atomic":false}"#)
            #expect(plainStatus.code == 207 && plainAnswer["atomic"] == nil)
            let (badStatus, badAnswer) = try await ServerAPITests.send(
                client, .post, "/v1/request-batches", #"{"requests":[\#(good[0])],"atomic":"yes"}"#)
            #expect(badStatus == .badRequest)
            #expect(badAnswer["detail"] as? String == "atomic must be true or false")
        }
    }

    @Test("POST /v1/requests with \"atomic\": true: for every device or none; 422 BatchRefused names each refused device")
    func atomicForDevices() async throws {
        try await withAPI { client, devices in
            let request = #"{"identifier":"nine","trigger":{"calendar":{"hour":9},"repeats":true}}"#
            let (status, answer) = try await ServerAPITests.send(
                client, .post, "/v1/requests", #"{"devices":["d1","ghost","gone","d2"],"request":\#(request),"atomic":true}"#)
            #expect(status == .unprocessableContent)
            #expect(answer["reason"] as? String == "BatchRefused")
            #expect(answer["detail"] as? String == "refused for 2 of 4 devices: nothing was stored")
            #expect(answer["atomic"] as? Bool == true && (answer["scheduled"] as? [String])?.isEmpty == true)
            let failed = try #require(answer["failed"] as? [String: [String: String]])
            #expect(failed.keys.sorted() == ["ghost", "gone"])
            #expect(failed["ghost"]?["reason"] == "UnknownDevice" && failed["gone"]?["reason"] == "InactiveDevice")
            #expect(try await devices.pendingRequests(forDevice: "d1").isEmpty)
            #expect(try await devices.pendingRequests(forDevice: "d2").isEmpty)

            let (goodStatus, good) = try await ServerAPITests.send(
                client, .post, "/v1/requests", #"{"devices":["d2","d1","d2"],"request":\#(request),"atomic":true}"#)
            #expect(goodStatus == .ok)
            #expect(good["atomic"] as? Bool == true && good["scheduled"] as? [String] == ["d1", "d2"])
            #expect((good["failed"] as? [String: Any])?.isEmpty == true)
            for id in ["d1", "d2"] {
                #expect(
                    try await devices.pendingRequests(forDevice: id).map(\.nextFireDate) == [instant("2026-11-27T08:00:00Z")])
            }
            let (badStatus, bad) = try await ServerAPITests.send(
                client, .post, "/v1/requests", #"{"devices":["d1"],"request":\#(request),"atomic":1}"#)
            #expect(badStatus == .badRequest && bad["detail"] as? String == "atomic must be true or false")
        }
    }
}
