import Foundation
import NotificationClient
import NotificationEngine
import NotificationWire
import Testing

/// Connections that do not behave: bounded on the daemon's side, and on the client's.
@Suite("unotifyd connection bounds", .serialized)
struct DaemonConnectionBoundsTests {
    @Test("connections that never say hello are closed at the deadline; past the per-process cap at once; others are served")
    func idleConnections() async throws {
        let daemon = DaemonProcess(arguments: ["--hello-deadline", "1", "--max-connections-per-peer", "40"])
        defer { Task { await daemon.stop() } }
        try await daemon.start()
        // This test process opens 50 silent connections: 40 are admitted, 10 refused.
        let silent = try (0..<50).map { _ in try RawSocket(path: daemon.socket) }
        let started = Date()
        var closedAt: [Double] = []
        await withTaskGroup(of: Double?.self) { group in
            for socket in silent {
                group.addTask {
                    let result = await socket.readUntilClosed(timeout: 10)
                    return result.closed ? Date().timeIntervalSince(started) : nil
                }
            }
            for await time in group { if let time { closedAt.append(time) } }
        }
        #expect(closedAt.count == 50, "closed: \(closedAt.count) of 50")
        // Ten refused at once (the daemon says so, one warning each); the forty admitted only at their deadline,
        // a second after they were accepted, so well after half a second even on a loaded machine.
        // One more may be refused: the readiness probe of `start()` (also this process) can still be counted when the
        // fifty arrive.
        let refusals = (daemon.command?.stderr.components(separatedBy: "refused a connection").count ?? 1) - 1
        #expect((10...11).contains(refusals), "\(daemon.command?.stderr ?? "")")
        #expect(closedAt.filter { $0 >= 0.5 }.count >= 50 - refusals, "closed at: \(closedAt.sorted())")
        // Another process is served while (and after) they hang around.
        _ = try await runToEnd(
            ["add", "--in", "1h", "--id", "served"], environment: daemon.environment.merging(["OPENUN_MODE": "daemon"]) { $1 })
        #expect(daemon.isRunning)
    }

    @Test("the daemon raises its descriptor soft limit to the hard limit")
    func descriptorLimit() async throws {
        let daemon = DaemonProcess()
        defer { Task { await daemon.stop() } }
        try await daemon.start()
        let pid = try #require(daemon.processID)
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        let numbers = line.split(separator: " ").compactMap { Int($0) }
        #expect(numbers.count == 2 && numbers[0] == numbers[1], "\(line)")
    }

    @Test("a daemon that accepts but never answers: the client reports it after its reply timeout, not never")
    func clientTimesOut() async throws {
        let folder = URL(fileURLWithPath: "/tmp/unotify-mute-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("mute.sock").path
        // A listening socket nobody reads: connect succeeds (the backlog), nothing ever answers.
        let listener = try listeningSocket(at: path, backlog: 8)
        defer { close(listener) }
        let connection = DaemonConnection(socketPath: path, appID: "com.example.mute", replyTimeout: .milliseconds(500))
        let started = ContinuousClock.now
        await #expect {
            _ = try await connection.request(.pendingRequests)
        } throws: { error in
            (error as? EngineError)?.code == .unavailable && "\(error)".contains("did not answer")
        }
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test(
        "a daemon that welcomes but never answers a request: each request fails after its reply timeout",
        .timeLimit(.minutes(1)))
    func unansweredRequests() async throws {
        let folder = URL(fileURLWithPath: "/tmp/unotify-deaf-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("deaf.sock").path
        let listener = try listeningSocket(at: path, backlog: 8)
        defer { close(listener) }
        let welcome = try WireProtocol.encode(ServerMessage.welcome(Welcome(daemonVersion: "test")))
        // Accepts one connection, welcomes its hello, then reads and answers nothing until the client closes.
        let served = Thread {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            defer { close(connection) }
            var byte: UInt8 = 0
            while read(connection, &byte, 1) == 1, byte != UInt8(ascii: "\n") {}
            _ = welcome.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            while read(connection, &byte, 1) == 1 {}
        }
        served.start()
        // The hello waits for its welcome as long as a request waits for its reply: 500 ms was too short for the thread
        // above to be scheduled under a fresh clone's whole suite (the hello timed out instead of the requests).
        let connection = DaemonConnection(socketPath: path, appID: "com.example.deaf", replyTimeout: .seconds(4))
        // Twice: the second request finds the first one's reply watch ended and starts another.
        for _ in 0..<2 {
            await #expect {
                _ = try await connection.request(.pendingRequests)
            } throws: { error in
                (error as? EngineError)?.code == .unavailable && "\(error)".contains("did not answer within")
            }
        }
        await connection.close()
    }
}
