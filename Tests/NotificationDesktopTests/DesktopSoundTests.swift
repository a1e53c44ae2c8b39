import DBusKit
import Foundation
import NotificationDesktop
import NotificationModel
import NotificationPlatform
import NotificationSound
import Synchronization
import Testing

#if os(Linux)
import Glibc
#else
#error("DesktopSoundTests: unsupported operating system")
#endif

/// A private PulseAudio whose only sink writes what it mixes into a FIFO, which the test reads.
///
/// (The monitor of a `module-null-sink` records pure silence on these machines, PulseAudio 16.1; a
/// `module-pipe-sink` hands over exactly what the server mixed. See NotificationSoundTests.)
final class PrivateSoundServer {
    let folder: URL
    /// What a player needs to reach this server and only this one.
    let environment: [String: String]
    private let server: SpawnedProcess
    private let fifo: Int32
    private let meter = Meter()
    private let drained = DispatchGroup()

    /// The loudest sample read from the FIFO so far, and whether to stop reading.
    final class Meter: Sendable {
        let loudest = Mutex(0.0)
        let stopped = Atomic(false)

        /// Drains the FIFO until stopped, so the sink never blocks on a full pipe.
        func drain(_ fifo: Int32) {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var odd: UInt8?
            while !stopped.load(ordering: .relaxed) {
                var descriptor = pollfd(fd: fifo, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 100) > 0 else { continue }
                let count = read(fifo, &buffer, buffer.count)
                guard count > 0 else { continue }
                var bytes = Array(buffer[0..<count])
                if let first = odd {
                    bytes.insert(first, at: 0)
                    odd = nil
                }
                var peak = 0.0
                var index = 0
                while index + 1 < bytes.count {
                    let sample = Int16(bitPattern: UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8)
                    peak = max(peak, abs(Double(sample)) / 32_768)
                    index += 2
                }
                if index < bytes.count { odd = bytes[index] }
                loudest.withLock { $0 = max($0, peak) }
            }
        }
    }

    static var isAvailable: Bool {
        ["pulseaudio", "paplay"].allSatisfy { SpawnedProcess.executable(named: $0) != nil }
    }

    init() async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pulse-\(UUID().uuidString)")
        let runtime = folder.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(
            at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": folder.path,
            "XDG_RUNTIME_DIR": runtime.path, "XDG_CONFIG_HOME": folder.appendingPathComponent("config").path,
        ]
        let sink = folder.appendingPathComponent("sink.fifo").path
        let log = folder.appendingPathComponent("pulseaudio.log").path
        server = try SpawnedProcess(
            executable: "/usr/bin/pulseaudio",
            arguments: [
                "--daemonize=no", "--system=false", "--exit-idle-time=-1", "--disallow-exit", "-n", "--use-pid-file=no",
                "--realtime=no", "--load=module-native-protocol-unix",
                "--load=module-pipe-sink sink_name=pipesink file=\(sink) format=s16le rate=44100 channels=2",
            ], environment: environment, standardOutput: .file(log), standardError: .file(log))
        let socket = runtime.appendingPathComponent("pulse/native").path
        let deadline = ContinuousClock.now.advanced(by: .seconds(15))
        while !FileManager.default.fileExists(atPath: socket) || !FileManager.default.fileExists(atPath: sink) {
            guard ContinuousClock.now < deadline else {
                server.send(SIGKILL)
                throw FixtureError("PulseAudio did not start (see \(folder.path)/pulseaudio.log)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        fifo = open(sink, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fifo >= 0 else {
            server.send(SIGKILL)
            throw FixtureError("cannot open the sink's FIFO: errno \(errno)")
        }
        let (fifo, meter, drained) = (fifo, meter, drained)
        drained.enter()
        Thread {
            meter.drain(fifo)
            drained.leave()
        }.start()
    }

    /// Waits until a sample louder than `threshold` (0…1) was played, at most `timeout`, and returns the loudest
    /// sample heard so far (a bound for a broken setup, not a delay: the player starts within milliseconds).
    func loudestSample(above threshold: Double, within timeout: Duration = .seconds(10)) async throws -> Double {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while meter.loudest.withLock({ $0 }) <= threshold, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        return meter.loudest.withLock { $0 }
    }

    func stop() async {
        meter.stopped.store(true, ordering: .relaxed)
        await withCheckedContinuation { continuation in drained.notify(queue: .global()) { continuation.resume() } }
        close(fifo)
        await server.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}

/// dunst plays no sounds (it lists no `sound` capability), so the presenter plays them through a player: these
/// tests deliver notifications with sounds to dunst and listen to what a private PulseAudio played.
@Suite(
    "Notification sounds with dunst and a private PulseAudio", .serialized,
    .enabled(if: PrivateDesktop.isAvailable && PrivateSoundServer.isAvailable), .timeLimit(.minutes(1)))
struct DesktopSoundTests {
    static let appID = "com.example.sounds"

    /// A 0.5 s 440 Hz tone at 0.8 of full scale, 16-bit stereo PCM WAV, written in Swift.
    static func tone(seconds: Double = 0.5) -> Data {
        let rate = 44_100
        let frames = Int(Double(rate) * seconds)
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8))
        append(UInt32(36 + frames * 4))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16))
        append(UInt16(1))
        append(UInt16(2))
        append(UInt32(rate))
        append(UInt32(rate * 4))
        append(UInt16(4))
        append(UInt16(16))
        data.append(contentsOf: Array("data".utf8))
        append(UInt32(frames * 4))
        for frame in 0..<frames {
            let sample = Int16(0.8 * 32_767 * sin(2 * Double.pi * 440 * Double(frame) / Double(rate)))
            append(sample)
            append(sample)
        }
        return data
    }

    func notification(_ identifier: String, sound: SoundSpec) -> DeliveredNotification {
        var content = NotificationPayload()
        content.title = "Kettle"
        content.body = "The water boils"
        content.sound = sound
        return DeliveredNotification(
            appID: Self.appID, request: RequestSpec(identifier: identifier, content: content, trigger: nil),
            date: Date(timeIntervalSince1970: 0), dueDate: Date(timeIntervalSince1970: 0),
            presentation: [.banner, .sound])
    }

    /// Runs `body` with dunst, a private PulseAudio, a data home for the app's Sounds folder, and a presenter
    /// whose sounds play through that server.
    func withSoundDesktop(
        _ body: (PrivateDesktop, PrivateSoundServer, DesktopPresenter, URL) async throws -> Void
    ) async throws {
        let desktop = try PrivateDesktop()
        let sound: PrivateSoundServer
        do { sound = try await PrivateSoundServer() } catch {
            await desktop.stop()
            throw error
        }
        let dataHome = sound.folder.appendingPathComponent("data")
        let sounds = DesktopSounds(
            player: SoundPlayer.available(environment: sound.environment),
            dataDirectory: { dataHome.appendingPathComponent($0, isDirectory: true) })
        do {
            let presenter = DesktopPresenter(
                connection: try DBusConnection(address: desktop.busAddress), sounds: sounds, onResponse: { _, _, _, _ in })
            do { try await body(desktop, sound, presenter, dataHome) } catch {
                await presenter.close()
                throw error
            }
            await presenter.close()
        } catch {
            await sound.stop()
            await desktop.stop()
            throw error
        }
        await sound.stop()
        await desktop.stop()
    }

    @Test("a named sound from the app's Sounds folder is played, and the notification shown")
    func namedSound() async throws {
        try await withSoundDesktop { desktop, sound, presenter, dataHome in
            let folder = dataHome.appendingPathComponent("\(Self.appID)/Sounds")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Self.tone().write(to: folder.appendingPathComponent("kettle.wav"))
            await presenter.present(
                notification("kettle", sound: SoundSpec(name: "kettle.wav")), options: [.banner, .sound], category: nil)
            try await desktop.waitUntil("dunst shows the notification") { try await desktop.displayedCount() == 1 }
            #expect(try await sound.loudestSample(above: 0.5) > 0.5)
        }
    }

    @Test(
        "a missing or invalid named sound falls back to the default sound, as on iOS",
        .enabled(if: FileManager.default.fileExists(atPath: "/usr/share/sounds/freedesktop/stereo/message-new-instant.oga")))
    func fallbackToDefault() async throws {
        try await withSoundDesktop { desktop, sound, presenter, dataHome in
            let folder = dataHome.appendingPathComponent("\(Self.appID)/Sounds")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("not a sound".utf8).write(to: folder.appendingPathComponent("broken.wav"))
            await presenter.present(
                notification("broken", sound: SoundSpec(name: "broken.wav")), options: [.banner, .sound], category: nil)
            try await desktop.waitUntil("dunst shows the notification") { try await desktop.displayedCount() == 1 }
            #expect(try await sound.loudestSample(above: 0.05) > 0.05)
        }
    }

    @Test("without .sound in the options nothing is played")
    func silent() async throws {
        try await withSoundDesktop { desktop, sound, presenter, dataHome in
            let folder = dataHome.appendingPathComponent("\(Self.appID)/Sounds")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Self.tone().write(to: folder.appendingPathComponent("kettle.wav"))
            await presenter.present(
                notification("quiet", sound: SoundSpec(name: "kettle.wav")), options: [.banner], category: nil)
            try await desktop.waitUntil("dunst shows the notification") { try await desktop.displayedCount() == 1 }
            // A bounded listen: had the tone been started with the notification, it would be here within this.
            #expect(try await sound.loudestSample(above: 0.5, within: .seconds(2)) < 0.01)
        }
    }
}
