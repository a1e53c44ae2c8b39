import Foundation
import TestPrograms
import Testing

/// A raw HTTP/2 client in Python (the `h2` library, under httpx): it sends requests one after another on one
/// connection and reports, frame by frame, what the endpoint sent: the SETTINGS it advertised
/// (`SETTINGS_MAX_CONCURRENT_STREAMS`), each response, and a GOAWAY with its debug data and last stream. httpx and
/// curl hide these frames; a provider's connection handling depends on them.
private let frameClientScript = #"""
    import json, socket, ssl, sys, time
    import h2.config, h2.connection, h2.events, h2.settings
    spec = json.loads(sys.argv[1])

    def out(**fields):
        print(json.dumps(fields), flush=True)

    minted = {}

    def bearer(team, kid, offset=0):
        """One token per (team, kid, offset): a step that names the same one sends the same token again."""
        import jwt
        if (team, kid, offset) in minted:
            return minted[(team, kid, offset)]
        minted[(team, kid, offset)] = "bearer " + jwt.encode({"iss": team, "iat": int(time.time()) + offset}, open(spec["keyfile"]).read(),
                                      algorithm="ES256", headers={"kid": kid})
        return minted[(team, kid, offset)]

    raw = socket.create_connection(("127.0.0.1", spec["port"]), timeout=20)
    if spec.get("cafile"):
        context = ssl.create_default_context(cafile=spec["cafile"])
        context.set_alpn_protocols(["h2"])
        if spec.get("certfile"):
            context.load_cert_chain(spec["certfile"], spec["certkey"])
        raw = context.wrap_socket(raw, server_hostname="localhost")
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.initiate_connection()
    raw.sendall(conn.data_to_send())
    pending = []   # events not yet reported
    closed = False

    def pump(until):
        """Reads frames until `until(event)` is true for one event; every event is kept in `pending`."""
        global closed
        while not closed:
            try:
                data = raw.recv(65535)
            except (ConnectionResetError, ssl.SSLError, OSError) as error:
                pending.append(("reset", str(error)))
                closed = True
                return
            if not data:
                pending.append(("eof", None))
                closed = True
                return
            # Every event of what arrived is kept (a GOAWAY may come in the same read as the answer it follows).
            matched = False
            for event in conn.receive_data(data):
                pending.append(("event", event))
                if isinstance(event, h2.events.ConnectionTerminated):
                    closed = True
                matched = matched or until(event)
            try:
                raw.sendall(conn.data_to_send())
            except OSError:
                pass  # the endpoint closed the connection; what it sent before is in `pending`
            if matched:
                return

    def report(label, status=None, reason=None):
        settings, goaway, last_stream, ended = [], None, None, None
        for kind, event in pending:
            if kind == "event" and isinstance(event, h2.events.RemoteSettingsChanged):
                changed = event.changed_settings.get(h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS)
                if changed is not None:
                    settings.append(changed.new_value)
            elif kind == "event" and isinstance(event, h2.events.ConnectionTerminated):
                goaway = (event.additional_data or b"").decode()
                last_stream = event.last_stream_id
            elif kind in ("eof", "reset"):
                ended = kind
        pending.clear()
        out(label=label, status=status, reason=reason, settings=settings, goaway=goaway, last_stream=last_stream,
            ended=ended)

    pump(lambda event: isinstance(event, h2.events.RemoteSettingsChanged))
    report("connected")
    if spec.get("wait_for_goaway_first"):
        pump(lambda event: isinstance(event, h2.events.ConnectionTerminated))
        report("idle")
    for step in spec["steps"]:
        if closed:
            out(label=step["label"], status=None, reason=None, settings=[], goaway=None, last_stream=None,
                ended="closed-before")
            continue
        stream = conn.get_next_available_stream_id()
        headers = [(":method", step.get("method") or "POST"), (":scheme", "https" if spec.get("cafile") else "http"),
                   (":authority", "localhost"), (":path", step["path"])]
        for name, value in list(step.get("headers", {}).items()) + [tuple(pair) for pair in step.get("extra", [])]:
            if value.startswith("jwt:"):
                team, kid, *offset = value[4:].split(":")
                value = bearer(team, kid, int(offset[0]) if offset else 0)
            headers.append((name, value))
        body = step["body"].encode() if step.get("body") is not None else json.dumps({"aps": {"alert": "Hi"}}).encode()
        if body:
            conn.send_headers(stream, headers)
            conn.send_data(stream, body, end_stream=True)
        else:
            conn.send_headers(stream, headers, end_stream=True)
        raw.sendall(conn.data_to_send())
        status, body_bytes = None, b""
        def done(event):
            return isinstance(event, h2.events.StreamEnded) and event.stream_id == stream or \
                isinstance(event, h2.events.StreamReset) and event.stream_id == stream
        pump(done)
        for kind, event in pending:
            if kind == "event" and isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream:
                status = int(dict(event.headers)[":status"])
            if kind == "event" and isinstance(event, h2.events.DataReceived) and event.stream_id == stream:
                body_bytes += event.data
                conn.acknowledge_received_data(event.flow_controlled_length, stream)
        reason = json.loads(body_bytes)["reason"] if body_bytes else None
        already = any(kind == "event" and isinstance(event, h2.events.ConnectionTerminated) for kind, event in pending)
        if step.get("then_wait_for_goaway") and not already and not closed:
            pump(lambda event: isinstance(event, h2.events.ConnectionTerminated))
        report(step["label"], status, reason)
    """#

/// One line of the frame client's report: the answer to a request (or the connection's start), and what else the
/// endpoint sent meanwhile.
struct FrameReport: Decodable, Sendable {
    var label: String
    var status: Int?
    var reason: String?
    /// The values of `SETTINGS_MAX_CONCURRENT_STREAMS` the endpoint advertised, in order.
    var settings: [Int]
    /// The debug data of a GOAWAY.
    var goaway: String?
    var last_stream: Int?
    /// `eof` or `reset` when the connection ended, `closed-before` for a request never sent.
    var ended: String?
}

/// A request for the frame client: `headers` values `jwt:<team>:<kid>[:<seconds added to iat>]` become a provider
/// token signed with the spec's `keyfile` (the same value, the same token); `extra` adds headers in order (a name twice, for `DuplicateHeaders`);
/// `body` replaces the default alert payload (`""` sends none).
struct FrameStep: Encodable, Sendable {
    var label: String
    var path: String
    var headers: [String: String] = [:]
    var extra: [[String]] = []
    var method: String?
    var body: String?
    var thenWaitForGoAway = false

    enum CodingKeys: String, CodingKey {
        case label, path, headers, extra, method, body
        case thenWaitForGoAway = "then_wait_for_goaway"
    }
}

/// Runs the frame client against `127.0.0.1:port` (TLS when `cafile` is given, with the client certificate
/// `certificate` when given).
///
/// With `waitForGoAwayFirst`, it waits for the endpoint's GOAWAY before the steps (reported as `idle`).
func runFrameClient(
    port: Int, steps: [FrameStep], keyfile: String? = nil, cafile: String? = nil,
    certificate: (certificate: String, key: String)? = nil, waitForGoAwayFirst: Bool = false
) async throws -> [String: FrameReport] {
    struct Spec: Encodable {
        var port: Int
        var steps: [FrameStep]
        var keyfile: String?
        var cafile: String?
        var certfile: String?
        var certkey: String?
        var wait_for_goaway_first: Bool
    }
    let python = try #require(testPython)
    let folder = try temporaryFolder("gw-h2")
    defer { try? FileManager.default.removeItem(at: folder) }
    let script = folder.appendingPathComponent("frames.py")
    try Data(frameClientScript.utf8).write(to: script)
    let spec = Spec(
        port: port, steps: steps, keyfile: keyfile, cafile: cafile, certfile: certificate?.certificate,
        certkey: certificate?.key, wait_for_goaway_first: waitForGoAwayFirst)
    let json = String(decoding: try JSONEncoder().encode(spec), as: UTF8.self)
    let result = try await runProgram(python, [script.path, json], timeout: 60)
    try #require(result.status == 0, "frames.py: \(result.stderr)")
    var reports: [String: FrameReport] = [:]
    for line in result.stdout.split(separator: "\n") {
        let report = try JSONDecoder().decode(FrameReport.self, from: Data(line.utf8))
        reports[report.label] = report
    }
    return reports
}
