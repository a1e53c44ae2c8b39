import Foundation
import NotificationModel
import NotificationPush
import TestPrograms
import Testing

@testable import NotificationPushGateway

/// A client that ignores the stream limit: raw frames (the preface, SETTINGS and its ACK, then two HEADERS
/// frames without END_STREAM, literal HPACK), then it reports the frames it gets until the endpoint closes.
private let streamLimitViolatorScript = #"""
    import socket, struct, sys
    port = int(sys.argv[1])
    def frame(kind, flags, stream, payload=b""):
        return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload
    def literal(name, value):
        return b"\x00" + bytes([len(name)]) + name + bytes([len(value)]) + value
    headers = b"".join(literal(n, v) for n, v in [(b":method", b"POST"), (b":scheme", b"http"),
                       (b":authority", b"localhost"), (b":path", b"/3/device/" + b"00" * 32), (b"apns-topic", b"a")])
    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0))
    received = b""
    def read_frames(until):
        global received
        kinds = []
        while True:
            while len(received) >= 9 and len(received) >= 9 + int.from_bytes(received[:3], "big"):
                length = int.from_bytes(received[:3], "big")
                kind, payload = received[3], received[9:9 + length]
                kinds.append((kind, payload))
                received = received[9 + length:]
                if until(kind, payload):
                    return kinds, False
            chunk = s.recv(65535)
            if not chunk:
                return kinds, True
            received += chunk
    # The endpoint's SETTINGS (one stream allowed); ACK them, so they apply.
    read_frames(lambda kind, payload: kind == 4 and len(payload) > 0)
    s.sendall(frame(4, 1, 0) + frame(1, 4, 1, headers) + frame(1, 4, 3, headers))
    kinds, closed = read_frames(lambda kind, payload: False)
    goaway = [payload for kind, payload in kinds if kind == 7]
    print("goaway" if goaway else "no-goaway", "closed" if closed else "open")
    """#

/// Connection behaviour as APNs documents it, read frame by frame with Python's h2: the stream limit before and after
/// the first valid provider token, one team per connection.
@Suite(
    "APNs endpoint connection behaviour", .serialized, .timeLimit(.minutes(2)),
    .enabled(if: testPython != nil, "run scripts/test once (it makes a python with h2 and pyjwt) or set OPENUN_PYTHON"))
struct ConnectionBehaviourTests {
    @Test(
        "with provider tokens a connection starts with one stream; its first valid token raises the limit by SETTINGS before the answer"
    )
    func streamLimit() async throws {
        let folder = try temporaryFolder("gw-streams")
        defer { try? FileManager.default.removeItem(at: folder) }
        let authKey = try await makeAuthKey(keyID: "KEY1234567", in: folder)
        let verifier = try await ProviderTokenVerifier(authKeys: folder.path, teamID: nil)
        let fixture = try await EndpointFixture {
            $0.providerTokens = verifier
            $0.maximumConcurrentStreams = 500
        }
        let path = "/3/device/\(fixture.token.hex)"
        let reports = try await runFrameClient(
            port: fixture.port,
            steps: [
                FrameStep(label: "no-token", path: path, headers: ["apns-topic": testAppID]),
                FrameStep(
                    label: "bad-token", path: path,
                    headers: ["apns-topic": testAppID, "authorization": "bearer x.y.z"]),
                FrameStep(
                    label: "first", path: path,
                    headers: ["apns-topic": testAppID, "authorization": "jwt:TEAMAAAAAA:KEY1234567"]),
                FrameStep(
                    label: "same", path: path,
                    headers: ["apns-topic": testAppID, "authorization": "jwt:TEAMAAAAAA:KEY1234567"]),
                FrameStep(
                    label: "other-team", path: path,
                    headers: ["apns-topic": testAppID, "authorization": "jwt:TEAMBBBBBB:KEY1234567"]),
            ], keyfile: authKey)
        #expect(reports["connected"]?.settings == [1])
        #expect(reports["no-token"]?.status == 403 && reports["no-token"]?.reason == "MissingProviderToken")
        #expect(reports["bad-token"]?.status == 403 && reports["bad-token"]?.reason == "InvalidProviderToken")
        #expect(reports["no-token"]?.settings == [] && reports["bad-token"]?.settings == [])
        // The SETTINGS frame arrived before the answer to the request that carried the token.
        #expect(reports["first"]?.status == 200 && reports["first"]?.settings == [500])
        #expect(reports["same"]?.status == 200 && reports["same"]?.settings == [])
        // One connection carries one team: another team's valid token is refused, the connection stays.
        #expect(reports["other-team"]?.status == 403 && reports["other-team"]?.reason == "InvalidProviderToken")
        #expect(reports["other-team"]?.goaway == nil && reports["other-team"]?.ended == nil)
        await fixture.endpoint.stop()
    }

    @Test("without provider tokens a connection may open the configured number of streams from the start")
    func streamLimitWithoutTokens() async throws {
        let fixture = try await EndpointFixture { $0.maximumConcurrentStreams = 321 }
        let reports = try await runFrameClient(
            port: fixture.port,
            steps: [FrameStep(label: "ok", path: "/3/device/\(fixture.token.hex)", headers: ["apns-topic": testAppID])])
        #expect(reports["connected"]?.settings == [321])
        #expect(reports["ok"]?.status == 200 && reports["ok"]?.settings == [])
        await fixture.endpoint.stop()
    }

    @Test(
        "a fatal answer goes out, then GOAWAY (NO_ERROR, last stream the one answered) with the reason's JSON, then close"
    )
    func fatalGoAway() async throws {
        let rule = try APNsFaultRule(id: "flaky", action: .close, reason: "InternalServerError", count: 2)
        let fixture = try await EndpointFixture { $0.faultRules = { [rule] } }
        let path = "/3/device/\(fixture.token.hex)"
        let reports = try await runFrameClient(
            port: fixture.port,
            steps: [
                FrameStep(label: "first", path: path, headers: ["apns-topic": testAppID]),
                FrameStep(label: "second", path: path, headers: ["apns-topic": testAppID], thenWaitForGoAway: true),
                FrameStep(label: "third", path: path, headers: ["apns-topic": testAppID]),
            ])
        #expect(reports["first"]?.status == 200 && reports["first"]?.goaway == nil)
        #expect(reports["second"]?.status == 200)
        #expect(reports["second"]?.goaway == #"{"reason":"InternalServerError"}"#)
        #expect(reports["second"]?.last_stream == 3)
        #expect(reports["third"]?.ended == "closed-before")
        await fixture.endpoint.stop()
    }

    @Test("a client that opens a second stream while one is allowed gets a GOAWAY and the connection is closed")
    func streamLimitViolation() async throws {
        let folder = try temporaryFolder("gw-violator")
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try await makeAuthKey(keyID: "KEY1234567", in: folder)
        let verifier = try await ProviderTokenVerifier(authKeys: folder.path, teamID: nil)
        let fixture = try await EndpointFixture { $0.providerTokens = verifier }
        let script = folder.appendingPathComponent("violate.py")
        try Data(streamLimitViolatorScript.utf8).write(to: script)
        let result = try await runProgram(try #require(testPython), [script.path, "\(fixture.port)"], timeout: 60)
        #expect(result.stdout == "goaway closed\n", "\(result.stdout) \(result.stderr)")
        await fixture.endpoint.stop()
    }
}
