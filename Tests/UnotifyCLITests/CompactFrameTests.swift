import Foundation
import NotificationClient
import NotificationEngine
import NotificationModel
import NotificationWire
import Synchronization
import TestPrograms
import Testing

#if os(Linux)
import Glibc
#endif

/// Protocol version 2: binary frames for an add and its reply, agreed in the hello; version-1 peers on either side.
@Suite("Wire protocol version 2: compact frames", .serialized, .timeLimit(.minutes(5)))
struct CompactFrameTests {
    /// A spec with every field an add frame carries set away from its default, with bytes the framing escapes.
    static func fullSpec(
        policy: MissedFirePolicy = .deliverIfWithin(90.5), trigger: TriggerSpec? = .timeInterval(3_600.25, repeats: true)
    ) -> RequestSpec {
        var content = NotificationPayload()
        content.title = "Title\nwith a newline and \u{1B} an escape"
        content.subtitle = "Sous-titre é ü 漢字 🎉"
        content.body = "Body \u{1B}n not an escape"
        content.badge = -3
        content.sound = SoundSpec(
            name: "chime.wav", isCritical: true, isRingtone: true, volume: 0.25, bundleDirectory: "/opt/app.bundle")
        content.launchImageName = "launch"
        content.userInfo = [
            "string": .string("text\n"), "integer": .integer(Int.min), "double": .double(-0.1), "bool": .bool(true),
            "date": .date(Date(timeIntervalSinceReferenceDate: 123_456)), "data": .data(Data([0x0A, 0x1B, 0x00, 0xFF])),
            "array": .array([.integer(1), .string("two"), .array([])]),
            "dictionary": .dictionary(["nested": .dictionary(["deeper": .bool(false)]), "": .string("")]),
        ]
        content.categoryIdentifier = "category"
        content.threadIdentifier = "thread"
        content.summaryArgument = "summary"
        content.summaryArgumentCount = 7
        content.targetContentIdentifier = "target"
        content.interruptionLevel = 2
        content.relevanceScore = 0.75
        content.filterCriteria = "work"
        var appearance = AppAppearance(icon: "icon.png")
        appearance.displayName = ""  // empty, not nil: the JSON decoder keeps it so, and the frame must too
        content.appAppearance = appearance
        return RequestSpec(
            identifier: "request \n\u{1B} 1", content: content, trigger: trigger, missedFirePolicy: policy)
    }

    static func roundTrip(_ spec: RequestSpec, id: UInt64) throws -> ClientMessage {
        let frame = try #require(CompactFrame.add(id: id, spec))
        #expect(frame.first == CompactFrame.marker)
        #expect(frame.last == 0x0A && frame.dropLast().firstIndex(of: 0x0A) == nil, "one line, newline at its end only")
        let message = try WireProtocol.decodeClientMessage(from: frame.dropLast())
        // The daemon reads a frame in NIO's buffer, through the entry over bytes in memory: the same message.
        #expect(try frame.dropLast().withUnsafeBytes { try CompactFrame.clientMessage(fromBytes: $0) } == message)
        return message
    }

    @Test("an add frame carries every field of a spec it covers, unchanged")
    func everyField() throws {
        let spec = Self.fullSpec()
        #expect(try Self.roundTrip(spec, id: 1) == .request(id: 1, .add(spec)))
        let plain = RequestSpec(identifier: "plain", content: NotificationPayload(), trigger: nil)
        #expect(try Self.roundTrip(plain, id: UInt64.max) == .request(id: UInt64.max, .add(plain)))
    }

    @Test(
        "every missed-fire policy and the triggers it covers",
        arguments: [
            (MissedFirePolicy.deliver, TriggerSpec?.none), (.skip, .timeInterval(60, repeats: false)),
            (.deliverIfWithin(0), .timeInterval(86_400, repeats: true)),
        ])
    func policiesAndTriggers(policy: MissedFirePolicy, trigger: TriggerSpec?) throws {
        let spec = Self.fullSpec(policy: policy, trigger: trigger)
        #expect(try Self.roundTrip(spec, id: 42) == .request(id: 42, .add(spec)))
    }

    @Test("a spec with attachments, a sender, APNs options, another trigger or a number JSON cannot carry goes as JSON")
    func uncovered() throws {
        var attachment = Self.fullSpec()
        attachment.content.attachments = [
            AttachmentSpec(identifier: "a", url: URL(fileURLWithPath: "/tmp/a.png"), type: "public.png", options: [:])
        ]
        var calendar = Self.fullSpec()
        var components = CalendarComponents()
        components.hour = 9
        calendar.trigger = .calendar(components, repeats: true, matching: .apple)
        var apns = Self.fullSpec()
        apns.apns = APNsOptions()
        var nan = Self.fullSpec()
        nan.content.relevanceScore = .nan
        var infinite = Self.fullSpec()
        infinite.content.userInfo["x"] = .double(.infinity)
        for spec in [attachment, calendar, apns, nan, infinite] { #expect(CompactFrame.add(id: 1, spec) == nil) }
    }

    @Test("the done reply frame")
    func doneReply() throws {
        for id: UInt64 in [0, 1, 127, 128, 10, 27, UInt64.max] {
            let frame = CompactFrame.done(id: id)
            #expect(frame.last == 0x0A && frame.dropLast().firstIndex(of: 0x0A) == nil)
            #expect(try WireProtocol.decodeServerMessage(from: frame.dropLast()) == .reply(id: id, .done))
        }
    }

    @Test("truncated, padded, mis-escaped and foreign frames fail with a clear error, never a crash")
    func malformed() throws {
        let frame = try #require(CompactFrame.add(id: 9, Self.fullSpec())).dropLast()
        // Every proper prefix fails (it cannot end exactly after a field sequence shorter than the spec's).
        for length in 1..<frame.count {
            #expect(throws: CompactFrame.Malformed.self) { try CompactFrame.clientMessage(from: frame.prefix(length)) }
        }
        #expect(throws: CompactFrame.Malformed.self) { try CompactFrame.clientMessage(from: frame + [0]) }
        #expect(throws: CompactFrame.Malformed.self) { try CompactFrame.clientMessage(from: frame + [0x1B]) }
        #expect(throws: CompactFrame.Malformed.self) { try CompactFrame.clientMessage(from: frame + [0x1B, 0x41]) }
        // A daemon's frame from a client, a client's frame from the daemon, an unknown kind.
        #expect(throws: CompactFrame.Malformed.self) { try CompactFrame.clientMessage(from: CompactFrame.done(id: 1).dropLast()) }
        #expect(throws: CompactFrame.Malformed.self) { try CompactFrame.serverMessage(from: frame) }
        #expect(throws: CompactFrame.Malformed.self) { try CompactFrame.clientMessage(from: [CompactFrame.marker, 0x7A, 0]) }
        // A string that is not UTF-8: an add of identifier 0xFF (one byte) and nothing else.
        #expect(throws: CompactFrame.Malformed.self) {
            try CompactFrame.clientMessage(from: [CompactFrame.marker, UInt8(ascii: "a"), 1, 1, 0xFF])
        }
        // An integer longer than 64 bits.
        #expect(throws: CompactFrame.Malformed.self) {
            try CompactFrame.clientMessage(from: [CompactFrame.marker, UInt8(ascii: "a")] + Array(repeating: 0xFF, count: 11))
        }
        // Every byte flipped in turn: each either reads as some add or fails cleanly.
        for index in frame.indices.dropFirst() {
            var damaged = Array(frame)
            damaged[index - frame.startIndex] ^= 0x5A
            let read = try? CompactFrame.clientMessage(from: damaged)
            // The daemon's entry over bytes in memory reads the same, or fails the same.
            #expect(read == (try? damaged.withUnsafeBytes { try CompactFrame.clientMessage(fromBytes: $0) }))
        }
    }

    @Test("versions agree on the newest both speak; a version-1 hello gets version 1; none in common is a mismatch")
    func agreement() {
        #expect(WireProtocol.agreedVersion(oldest: 1, newest: nil) == 1)
        #expect(WireProtocol.agreedVersion(oldest: 1, newest: 2) == 2)
        #expect(WireProtocol.agreedVersion(oldest: 1, newest: 7) == 2)
        #expect(WireProtocol.agreedVersion(oldest: 2, newest: nil) == 2)
        #expect(WireProtocol.agreedVersion(oldest: 3, newest: 9) == nil)
        #expect(WireProtocol.agreedVersion(oldest: 999, newest: nil) == nil)
        #expect(WireProtocol.agreedVersion(oldest: 0, newest: 0) == nil)
    }

    static let helloV1 = #"{"hello":{"_0":{"protocolVersion":1,"appID":"com.example.raw","processID":1}}}"# + "\n"
    static let helloV2 =
        #"{"hello":{"_0":{"protocolVersion":1,"newestProtocolVersion":2,"appID":"com.example.raw","processID":1}}}"# + "\n"

    @Test("unotifyd: a version-1 client gets JSON only; a version-2 client's frames are answered with frames; a bad frame closes that connection")
    func daemonServesBothVersions() async throws {
        let daemon = DaemonProcess()
        defer { Task { await daemon.stop() } }
        try await daemon.start()
        let spec = RequestSpec(identifier: "v", content: NotificationPayload(), trigger: .timeInterval(3_600, repeats: false))
        let jsonAdd = String(decoding: try WireProtocol.encode(ClientMessage.request(id: 1, .add(spec))), as: UTF8.self)

        // Version 1: welcomed with 1, the add answered in JSON; a frame from it is not a protocol message.
        let old = try RawSocket(path: daemon.socket)
        old.send(Self.helloV1 + jsonAdd)
        let oldLines = try await old.readLines(2)
        #expect(try Self.welcomedVersion(oldLines[0]) == 1)
        #expect(oldLines[1].first == UInt8(ascii: "{"))
        #expect(try WireProtocol.decodeServerMessage(from: oldLines[1]) == .reply(id: 1, .done))
        old.send(bytes: try #require(CompactFrame.add(id: 2, spec)))
        let oldEnd = await old.readUntilClosed()
        #expect(oldEnd.closed && oldEnd.text.contains("malformed") && oldEnd.text.contains("before protocol version 2"))

        // Version 2: welcomed with 2; an add frame answered with a done frame; JSON requests still answered in JSON.
        let new = try RawSocket(path: daemon.socket)
        new.send(Self.helloV2)
        new.send(bytes: try #require(CompactFrame.add(id: 3, Self.fullSpec())))
        new.send(#"{"request":{"id":4,"_1":{"pendingRequests":{}}}}"# + "\n")
        let newLines = try await new.readLines(3)
        #expect(try Self.welcomedVersion(newLines[0]) == 2)
        #expect(newLines[1] == CompactFrame.done(id: 3).dropLast())
        guard case .reply(4, .pendingRequests(let pending)) = try WireProtocol.decodeServerMessage(from: newLines[2]) else {
            Issue.record("no listing in JSON: \(String(decoding: newLines[2], as: UTF8.self))")
            return
        }
        // What the frame carried is what the store keeps.
        #expect(pending.first { $0.identifier == Self.fullSpec().identifier }?.spec == Self.fullSpec())
        // A damaged frame: a malformed failure, and that connection only is closed.
        new.send(bytes: Array(try #require(CompactFrame.add(id: 5, spec)).dropLast(3)) + [0x0A])
        let newEnd = await new.readUntilClosed()
        #expect(newEnd.closed && newEnd.text.contains("malformed") && newEnd.text.contains("truncated"))

        // The daemon went on, and DaemonBackend (version 2) works.
        let backend = DaemonBackend(socketPath: daemon.socket)
        try await backend.add(spec, appID: "com.example.other")
        #expect(try await backend.pendingRequests(appID: "com.example.other").map(\.spec) == [spec])
    }

    @Test("unotifyd: pipelined adds (frames, some run by the reader) and removals keep the connection's order")
    func pipelinedOrder() async throws {
        let daemon = DaemonProcess()
        defer { Task { await daemon.stop() } }
        try await daemon.start()
        let socket = try RawSocket(path: daemon.socket)
        var bytes = Array(Self.helloV2.utf8)
        var id: UInt64 = 0
        func next() -> UInt64 {
            id += 1
            return id
        }
        func spec(_ identifier: String) -> RequestSpec {
            RequestSpec(
                identifier: identifier, content: NotificationPayload(), trigger: .timeInterval(3_600, repeats: false))
        }
        // Each round, sent without waiting for a reply: add x, remove all, add y, remove x, add x. In order, y and x
        // remain; an add run before the removal sent ahead of it would be removed, one run after the removal sent
        // behind it would remove what it added.
        let rounds = 40
        for round in 0..<rounds {
            bytes += try #require(CompactFrame.add(id: next(), spec("x\(round)")))
            bytes += try WireProtocol.encode(ClientMessage.request(id: next(), .removePending(identifiers: nil)))
            bytes += try #require(CompactFrame.add(id: next(), spec("y\(round)")))
            let removeX = ClientMessage.request(id: next(), .removePending(identifiers: ["x\(round)"]))
            bytes += try WireProtocol.encode(removeX)
            bytes += try #require(CompactFrame.add(id: next(), spec("x\(round)")))
        }
        socket.send(bytes: bytes)
        // The welcome, then one answer per request, in the order sent.
        let lines = try await socket.readLines(1 + rounds * 5)
        #expect(lines.count == 1 + rounds * 5)
        let answered = try lines.dropFirst().map { line -> UInt64? in
            switch try WireProtocol.decodeServerMessage(from: line) {
            case .reply(let id, .done): id
            default: nil
            }
        }
        #expect(answered == (1...UInt64(rounds * 5)).map { $0 })
        let pending = try await DaemonBackend(socketPath: daemon.socket).pendingRequests(appID: "com.example.raw")
        #expect(Set(pending.map(\.identifier)) == ["x\(rounds - 1)", "y\(rounds - 1)"])
    }

    static func welcomedVersion(_ line: Data) throws -> Int? {
        guard case .welcome(let welcome) = try WireProtocol.decodeServerMessage(from: line) else { return nil }
        return welcome.protocolVersion
    }

    @Test("a version-2 client reaching a daemon of version 1 speaks JSON to it")
    func oldDaemon() async throws {
        let folder = URL(fileURLWithPath: "/tmp/unotify-v1-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("old.sock").path
        let listener = try listeningSocket(at: path, backlog: 8)
        defer { close(listener) }
        // A daemon of version 1: it decodes the hello (ignoring the field it does not know), refuses any version but
        // 1, welcomes with 1, and answers the next line, which must be JSON, with a JSON reply.
        let received = OldDaemonTranscript()
        let served = Thread { Self.serveAsVersion1(listener, transcript: received) }
        served.start()
        let connection = DaemonConnection(socketPath: path, appID: "com.example.old", replyTimeout: .seconds(20))
        let spec = RequestSpec(identifier: "old", content: NotificationPayload(), trigger: .timeInterval(60, repeats: false))
        #expect(try await connection.request(.add(spec)) == .done)
        await connection.close()
        // The stand-in read both lines before it replied to the second.
        let lines = received.lines
        try #require(lines.count == 2)
        let hello = try JSONDecoder().decode(ClientMessage.self, from: lines[0])
        #expect(hello == .hello(Hello(protocolVersion: 1, newestProtocolVersion: 2, appID: "com.example.old", processID: getpid())))
        #expect(lines[1].first == UInt8(ascii: "{"), "the add went as JSON")
        guard case .request(_, .add(let sent)) = try WireProtocol.decode(ClientMessage.self, from: lines[1]) else {
            Issue.record("not an add: \(String(decoding: lines[1], as: UTF8.self))")
            return
        }
        #expect(sent == spec)
    }

    /// Serves one connection the way a daemon of version 1 does, recording the lines it reads.
    private static func serveAsVersion1(_ listener: Int32, transcript: OldDaemonTranscript) {
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { return }
        defer { close(connection) }
        func readLine() -> Data? {
            var line = Data()
            var byte: UInt8 = 0
            while read(connection, &byte, 1) == 1 {
                if byte == 0x0A { return line }
                line.append(byte)
            }
            return nil
        }
        func send(_ message: ServerMessage) {
            guard let bytes = try? WireProtocol.encode(message) else { return }
            _ = bytes.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
        }
        guard let hello = readLine() else { return }
        transcript.append(hello)
        // Version 1's check: the hello's protocolVersion must be 1.
        guard case .hello(let said)? = try? WireProtocol.decode(ClientMessage.self, from: hello), said.protocolVersion == 1
        else {
            send(.failure(id: nil, WireFailure(code: "protocolMismatch", message: "unotifyd speaks protocol 1")))
            return
        }
        send(.welcome(Welcome(protocolVersion: 1, daemonVersion: "0.0.1")))
        guard let request = readLine() else { return }
        transcript.append(request)
        guard case .request(let id, _)? = try? WireProtocol.decode(ClientMessage.self, from: request) else {
            send(.failure(id: nil, WireFailure(code: "malformed", message: "not a protocol message")))
            return
        }
        send(.reply(id: id, .done))
        while readLine() != nil {}
    }
}

/// The lines a test's stand-in daemon read.
final class OldDaemonTranscript: Sendable {
    private let recorded = Mutex<[Data]>([])

    func append(_ line: Data) { recorded.withLock { $0.append(line) } }

    var lines: [Data] { recorded.withLock { $0 } }
}

extension RawSocket {
    /// Writes bytes as they are (a binary frame).
    func send(bytes: some Sequence<UInt8>) {
        _ = Array(bytes).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// Reads `count` lines (without their newlines), or throws after `timeout` seconds without a byte.
    func readLines(_ count: Int, timeout: Int = 20) async throws -> [Data] {
        let descriptor = descriptor
        let lines = await offPool { () -> [Data] in
            var timeoutValue = timeval(tv_sec: timeout, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeoutValue, socklen_t(MemoryLayout<timeval>.size))
            var lines: [Data] = []
            var line = Data()
            var byte: UInt8 = 0
            while lines.count < count, read(descriptor, &byte, 1) == 1 {
                if byte == 0x0A {
                    lines.append(line)
                    line = Data()
                } else {
                    line.append(byte)
                }
            }
            return lines
        }
        try #require(lines.count == count, "read \(lines.count) of \(count) lines")
        return lines
    }
}
