import Foundation
import Glibc
import NotificationSound
import Testing

/// Fake player programs (shell scripts) in a private `bin` folder.
struct FakePrograms {
    let root: TemporaryDirectory
    let bin: URL

    init(_ scripts: [String: String]) throws {
        root = try TemporaryDirectory()
        bin = root.file("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        for (name, body) in scripts {
            let url = bin.appending(path: name)
            // Written with O_CLOEXEC so a child spawned meanwhile by a parallel test cannot keep it open for
            // writing (which makes executing it fail with ETXTBSY).
            let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
            guard descriptor >= 0 else { throw Tool.Failure(description: "cannot write \(url.path)") }
            let text = Array("#!/bin/sh\n\(body)\n".utf8)
            let written = text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
            guard written == text.count else { throw Tool.Failure(description: "cannot write \(url.path)") }
        }
    }

    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        ["PATH": "\(bin.path):/usr/bin:/bin"].merging(extra) { $1 }
    }
}

@Suite("SoundPlayer chooses and runs a player program")
struct SoundPlayerTests {
    @Test("canberra-gtk-play only with a display, then paplay, then aplay")
    func choice() throws {
        let all = try FakePrograms(["canberra-gtk-play": "exit 0", "paplay": "exit 0", "aplay": "exit 0"])
        defer { all.root.remove() }
        #expect(SoundPlayer.available(environment: all.environment())?.name == "paplay")
        #expect(SoundPlayer.available(environment: all.environment(["DISPLAY": ":0"]))?.name == "canberra-gtk-play")
        #expect(SoundPlayer.available(environment: all.environment(["WAYLAND_DISPLAY": "wayland-0"]))?.program == .canberraGtkPlay)
        let alsaOnly = try FakePrograms(["aplay": "exit 0"])
        defer { alsaOnly.root.remove() }
        let aplay = try #require(SoundPlayer.available(environment: ["PATH": alsaOnly.bin.path]))
        #expect(aplay.program == .aplay)
        #expect(aplay.executable.path == alsaOnly.bin.appending(path: "aplay").path)
        #expect(SoundPlayer.available(environment: ["PATH": alsaOnly.root.url.path]) == nil)
    }

    @Test("the child gets an empty signal mask, default dispositions and the sound variables only")
    func childState() async throws {
        let fake = try FakePrograms([
            "paplay": """
            echo "pulse=$PULSE_SERVER runtime=$XDG_RUNTIME_DIR display=$DISPLAY bus=$DBUS_SESSION_BUS_ADDRESS secret=$SECRET" >&2
            echo "file=$1" >&2
            exec grep -E '^(SigBlk|SigIgn):' /proc/self/status /nonexistent >&2
            """,
        ])
        defer { fake.root.remove() }
        let environment = fake.environment([
            "PULSE_SERVER": "unix:/p", "XDG_RUNTIME_DIR": "/r", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/b",
            "SECRET": "x",
        ])
        let player = try #require(SoundPlayer.available(environment: environment))
        do {
            try await player.play(file: URL(filePath: "/tmp/ping.wav"))
            Issue.record("the failing player succeeded")
        } catch let error as SoundPlayerError {
            #expect(error.code == .playerFailed)
            #expect(error.message.contains("exited with status 2"))
            // grep (exec'd by the script) reads its own state; the shell's own would show its wait-time mask.
            #expect(error.message.contains("/proc/self/status:SigBlk:\t0000000000000000"))
            // Standard signals are not ignored (glibc keeps its internal signals 32 and 33 ignored).
            let ignored = error.message.split(separator: "\n").first { $0.contains("SigIgn:") }
                .flatMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) }
            #expect(ignored.map { $0 & 0x7FFF_FFFF } == 0)
            #expect(error.message.contains("pulse=unix:/p runtime=/r display= bus=unix:path=/b secret=\n"))
            #expect(error.message.contains("file=/tmp/ping.wav"))
        }
    }

    @Test("a player that hangs is killed after the timeout")
    func timeout() async throws {
        let fake = try FakePrograms(["paplay": "exec sleep 30"])
        defer { fake.root.remove() }
        var player = try #require(SoundPlayer.available(environment: fake.environment()))
        player.timeout = .milliseconds(300)
        await #expect { try await player.play(file: URL(filePath: "/tmp/x.wav")) } throws: {
            ($0 as? SoundPlayerError)?.code == .timedOut
        }
    }

    @Test("a player that cannot start")
    func spawnFailure() async {
        let player = SoundPlayer(program: .paplay, executable: URL(filePath: "/nonexistent/paplay"), environment: [:])
        await #expect { try await player.play(file: URL(filePath: "/tmp/x.wav")) } throws: {
            ($0 as? SoundPlayerError)?.code == .spawnFailed
        }
    }

    @Test("the default sound comes from the freedesktop theme under XDG_DATA_DIRS")
    func defaultSound() async throws {
        let fake = try FakePrograms(["paplay": "echo \"file=$1\" >&2; exit 1", "aplay": "echo \"file=$2\" >&2; exit 1"])
        defer { fake.root.remove() }
        let share = fake.root.file("share")
        let stereo = share.appending(path: "sounds/freedesktop/stereo")
        try FileManager.default.createDirectory(at: stereo, withIntermediateDirectories: true)
        try Data("OggS".utf8).write(to: stereo.appending(path: "message-new-instant.oga"))
        let environment = fake.environment(["XDG_DATA_DIRS": share.path, "HOME": fake.root.url.path])
        let paplay = SoundPlayer(
            program: .paplay, executable: fake.bin.appending(path: "paplay"), environment: environment)
        await #expect { try await paplay.playDefaultSound() } throws: {
            "\($0)".contains("file=\(stereo.path)/message-new-instant.oga")
        }
        let aplay = SoundPlayer(program: .aplay, executable: fake.bin.appending(path: "aplay"), environment: environment)
        await #expect { try await aplay.playDefaultSound() } throws: { error in
            guard let error = error as? SoundPlayerError else { return false }
            return error.code == .noDefaultSound && error.message.contains("aplay cannot play Ogg")
        }
        try Fixture.wav(tag: 1, dataSize: 16).write(to: stereo.appending(path: "message-new-instant.wav"))
        await #expect { try await aplay.playDefaultSound() } throws: {
            "\($0)".contains("file=\(stereo.path)/message-new-instant.wav")
        }
        let nothing = SoundPlayer(
            program: .paplay, executable: fake.bin.appending(path: "paplay"),
            environment: fake.environment(["XDG_DATA_DIRS": fake.bin.path, "HOME": fake.root.url.path]))
        if !FileManager.default.fileExists(atPath: "/usr/share/sounds/freedesktop/stereo/message-new-instant.oga") {
            await #expect { try await nothing.playDefaultSound() } throws: {
                ($0 as? SoundPlayerError)?.code == .noDefaultSound
            }
        }
    }

    @Test("aplay refuses AIFF and CAF files before starting")
    func aplayFormats() async throws {
        let fake = try FakePrograms(["aplay": "exit 0"])
        defer { fake.root.remove() }
        let caf = fake.root.file("ping.caf")
        try Fixture.caf(format: "lpcm", bytesPerPacket: 4, framesPerPacket: 1, audioBytes: 16).write(to: caf)
        let aplay = try #require(SoundPlayer.available(environment: ["PATH": fake.bin.path]))
        await #expect { try await aplay.play(file: caf) } throws: {
            ($0 as? SoundPlayerError)?.code == .unsupportedFormat
        }
        let wav = fake.root.file("ping.wav")
        try Fixture.wav(tag: 1, dataSize: 16).write(to: wav)
        try await aplay.play(file: wav)
    }
}
