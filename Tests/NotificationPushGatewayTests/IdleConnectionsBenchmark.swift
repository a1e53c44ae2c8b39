import Foundation
import TestPrograms
import Testing

/// Opens `count` HTTP/2 connections to 127.0.0.1:`port` (TLS when `cafile` is given), each sending the connection
/// preface and an empty SETTINGS frame, and prints `ready` once the endpoint answered every one with its own
/// SETTINGS (so it configured HTTP/2 on all of them); then holds them until its standard input closes.
private let holderScript = #"""
    import socket, ssl, sys
    port, count, cafile = int(sys.argv[1]), int(sys.argv[2]), (sys.argv[3] if len(sys.argv) > 3 else None)
    context = None
    if cafile:
        context = ssl.create_default_context(cafile=cafile)
        context.set_alpn_protocols(["h2"])
    preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
    held = []
    for _ in range(count):
        connection = socket.create_connection(("127.0.0.1", port), timeout=60)
        if context:
            connection = context.wrap_socket(connection, server_hostname="localhost")
        connection.sendall(preface)
        header = b""
        while len(header) < 9:
            chunk = connection.recv(9 - len(header))
            if not chunk:
                sys.exit("the endpoint closed a connection")
            header += chunk
        if header[3] != 4:
            sys.exit("the endpoint's first frame is not SETTINGS")
        held.append(connection)
    print("ready", len(held), flush=True)
    sys.stdin.read()
    """#

/// What 1,000 idle HTTP/2 connections cost a real `unotifyd`: its VmRSS before and while they are held open, h2c
/// and TLS, in the same run. Opt-in: `OPENUN_BENCH=1 swift test --filter IdleConnectionsBenchmark` (figures in
/// docs/benchmarks-apns.md). The issue's target: under 50 MB for 1,000 connections.
@Suite(
    "APNs idle connections benchmark", .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["OPENUN_BENCH"] != nil))
struct IdleConnectionsBenchmark {
    static func residentKilobytes(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try #require(Int(line.split(separator: " ").dropFirst().first ?? ""))
    }

    /// Runs the holder for `count` connections; returns it once they are all open (with its stdin to close).
    static func hold(_ count: Int, port: Int, cafile: String?, python: String) async throws -> (TestProcess, Pipe) {
        let folder = try temporaryFolder("gw-idle-script")
        let script = folder.appendingPathComponent("hold.py")
        try Data(holderScript.utf8).write(to: script)
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script.path, "\(port)", "\(count)"] + (cafile.map { [$0] } ?? [])
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        let watch = OutputWatch(output)
        try process.run()
        let ready = await watch.wait(for: "ready \(count)", upTo: 300)
        try? FileManager.default.removeItem(at: folder)
        try #require(ready, "the holder did not open \(count) connections: \(watch.text)")
        return (process, input)
    }

    @Test("VmRSS of unotifyd with 1,000 idle HTTP/2 connections open, h2c and TLS, against the same daemon before")
    func idleConnections() async throws {
        let python = try #require(
            testPython ?? ["/usr/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) })
        let folder = try temporaryFolder("gw-idle")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (certificate, key) = try await makeCertificate(in: folder)
        let count = Int(ProcessInfo.processInfo.environment["OPENUN_BENCH_COUNT"] ?? "") ?? 1_000
        var rows: [String] = []
        for tls in [false, true] {
            let daemon = TestProcess()
            daemon.executableURL = URL(fileURLWithPath: try builtExecutable("unotifyd"))
            daemon.arguments =
                [
                    "--presenter", "terminal", "--apns-address", "127.0.0.1:0", "--apns-production-address", "off",
                    "--web-address", "off", "--log-level", "info", "--socket", folder.appendingPathComponent("d\(tls).sock").path,
                    "--store", folder.appendingPathComponent("s\(tls).sqlite").path,
                ] + (tls ? ["--apns-certificate", certificate, "--apns-key", key] : [])
            let pipe = Pipe()
            daemon.standardOutput = pipe
            daemon.standardError = pipe
            let output = OutputWatch(pipe)
            try daemon.run()
            defer { kill(daemon.processIdentifier, SIGKILL) }
            try #require(await output.wait(for: "APNs endpoint listening", upTo: 60), "\(output.text)")
            let line = try #require(output.text.split(separator: "\n").first { $0.contains("APNs endpoint listening") })
            let port = try #require(line.firstMatch(of: /address=127\.0\.0\.1:(\d+)/).flatMap { Int($0.1) })
            // Warm up: a few connections opened and closed, so the baseline holds the event loops and buffers.
            let (warm, warmInput) = try await Self.hold(20, port: port, cafile: tls ? certificate : nil, python: python)
            try warmInput.fileHandleForWriting.close()
            await killAndWait(warm)
            let before = try Self.residentKilobytes(daemon.processIdentifier)
            let (holder, input) = try await Self.hold(
                count, port: port, cafile: tls ? certificate : nil, python: python)
            let during = try Self.residentKilobytes(daemon.processIdentifier)
            try input.fileHandleForWriting.close()
            await killAndWait(holder)
            await killAndWait(daemon)
            let delta = Double(during - before) / 1_024
            rows.append(
                "| \(tls ? "TLS (h2 by ALPN)" : "h2c") | \(count) | \(before / 1_024) | \(during / 1_024) | "
                    + String(format: "%.1f | %.1f |", delta, Double(during - before) / Double(count)))
            #expect(delta < 50 * Double(count) / 1_000, "\(delta) MB for \(count) connections")
        }
        print("APNs endpoint: VmRSS of a spawned unotifyd holding idle HTTP/2 connections")
        print("| transport | connections | RSS before MB | RSS with them MB | delta MB | KB per connection |")
        print("|---|---|---|---|---|---|")
        for row in rows { print(row) }
    }
}
