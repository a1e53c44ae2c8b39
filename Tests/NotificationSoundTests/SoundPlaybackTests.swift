import Foundation
import NotificationPlatform
import Testing

@testable import NotificationSound

/// A private PulseAudio, in its own runtime directory, whose only sink writes what it plays into a FIFO, and a
/// recorder of that FIFO.
///
/// linux-delivery.md recorded the monitor of a `module-null-sink`; on these machines (PulseAudio 16.1) that monitor
/// now records pure silence, even from the shell with `parec`, while a `module-pipe-sink` hands over exactly what
/// the server mixed (0.80 peak for a 0.80 tone). So the sink is a pipe sink: still the real server, mixing the real
/// stream of the real player.
final class PrivatePulse {
    let directory: TemporaryDirectory
    /// What clients (the player, pactl, pacat) need to reach this server and only this one.
    let environment: [String: String]
    private let server: SpawnedProcess
    private var recorder: SpawnedProcess?

    init() async throws {
        directory = try TemporaryDirectory()
        let runtime = directory.file("runtime")
        try FileManager.default.createDirectory(
            at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": directory.url.path,
            "XDG_RUNTIME_DIR": runtime.path,
            "XDG_CONFIG_HOME": directory.file("config").path,
        ]
        server = try SpawnedProcess(
            executable: try #require(Tool.path("pulseaudio")),
            arguments: [
                "--daemonize=no", "--system=false", "--exit-idle-time=-1", "--disallow-exit", "-n",
                "--use-pid-file=false", "--realtime=no", "--log-target=stderr", "--load=module-native-protocol-unix",
                "--load=module-pipe-sink sink_name=pipesink file=\(directory.file("sink.fifo").path) format=s16le rate=44100 channels=2",
            ],
            environment: environment)
        try await waitUntil("pactl info answers") {
            try await Tool.run("pactl", ["info"], environment: self.environment).succeeded
        }
    }

    /// Starts copying what the sink plays (raw s16le stereo 44.1 kHz) into `file`.
    func startRecording(to file: URL) async throws {
        recorder?.send(SIGKILL)
        recorder = try SpawnedProcess(
            executable: try #require(Tool.path("cat")), arguments: [directory.file("sink.fifo").path],
            environment: environment, standardOutput: .file(file.path))
    }

    /// The maximum amplitude (0…1) recorded in `file` so far, once it exceeds `threshold` or the deadline passes.
    func amplitude(in file: URL, above threshold: Double) async throws -> Double {
        var best = 0.0
        try? await waitUntil("the recording reaches \(threshold)") {
            best = try await Self.maximumAmplitude(file)
            return best > threshold
        }
        return best
    }

    private static func maximumAmplitude(_ file: URL) async throws -> Double {
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        guard size >= 4 else { return 0 }
        let stat = try await Tool.run(
            "sox", ["-t", "raw", "-r", "44100", "-e", "signed", "-b", "16", "-c", "2", file.path, "-n", "stat"])
        let line = stat.errorOutput.split(separator: "\n").first { $0.hasPrefix("Maximum amplitude:") }
        return line.flatMap { Double($0.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) } ?? 0
    }

    /// Kills the recorder and the server (SIGKILL) and removes the directory.
    func stop() async {
        for child in [recorder, server].compactMap({ $0 }) { await child.stop(signal: SIGKILL) }
        directory.remove()
    }

    /// Polls `condition` every 50 ms until it holds, for at most 60 seconds (PulseAudio took more than 10 to answer
    /// on a machine busy with the whole suite and two builds).
    private func waitUntil(_ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Tool.Failure(description: "timed out waiting until \(what)")
    }

    /// Runs `body` with a fresh server, always stopping it afterwards.
    static func with(_ body: (PrivatePulse) async throws -> Void) async throws {
        let pulse = try await PrivatePulse()
        do {
            try await body(pulse)
        } catch {
            await pulse.stop()
            throw error
        }
        await pulse.stop()
    }
}

private let freedesktopSound = "/usr/share/sounds/freedesktop/stereo/message-new-instant.oga"

@Suite(
    "SoundPlayer really plays through a private PulseAudio", .serialized, .timeLimit(.minutes(3)),
    .enabled(if: Tool.all("pulseaudio", "pactl", "cat", "paplay", "sox"))
)
struct SoundPlaybackTests {
    @Test("a sox tone played through paplay reaches the sink")
    func tone() async throws {
        try await PrivatePulse.with { pulse in
            let tone = pulse.directory.file("tone.wav")
            try await Tool.succeed(
                "sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", tone.path, "synth", "0.5", "sine", "440", "vol", "0.8"])
            let player = try #require(SoundPlayer.available(environment: pulse.environment))
            #expect(player.name == "paplay")
            let recording = pulse.directory.file("tone.raw")
            try await pulse.startRecording(to: recording)
            try await player.play(file: tone)
            let amplitude = try await pulse.amplitude(in: recording, above: 0.1)
            #expect(amplitude > 0.1)
        }
    }

    @Test(
        "the default sound (freedesktop message-new-instant) reaches the sink",
        .enabled(if: FileManager.default.fileExists(atPath: freedesktopSound)))
    func defaultSound() async throws {
        try await PrivatePulse.with { pulse in
            let player = try #require(SoundPlayer.available(environment: pulse.environment))
            let recording = pulse.directory.file("default.raw")
            try await pulse.startRecording(to: recording)
            try await player.playDefaultSound()
            let amplitude = try await pulse.amplitude(in: recording, above: 0.1)
            #expect(amplitude > 0.1)
        }
    }
}
