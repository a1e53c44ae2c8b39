import Foundation
import NotificationSound
import Testing

@Suite("SoundLocator finds sounds like iOS and refuses escapes")
struct SoundLocatorTests {
    /// A bundle directory and a data directory with its `Sounds` folder.
    struct Layout {
        let root: TemporaryDirectory
        let bundle: URL
        let sounds: URL
        let locator: SoundLocator

        init() throws {
            root = try TemporaryDirectory()
            bundle = root.file("App.bundle")
            let data = root.file("data")
            let directories = NotificationSound.searchDirectories(bundle: bundle, dataDirectory: data)
            sounds = directories[1]
            for directory in directories {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            }
            locator = SoundLocator(searchDirectories: directories)
        }
    }

    static let valid8k = Fixture.wav(tag: 1, rate: 8000, dataSize: 1600)
    static let valid16k = Fixture.wav(tag: 1, rate: 16000, dataSize: 1600)

    @Test("the bundle wins over Sounds, and Sounds is searched next")
    func precedence() throws {
        let layout = try Layout()
        defer { layout.root.remove() }
        #expect(layout.sounds.lastPathComponent == "Sounds")
        try Self.valid8k.write(to: layout.bundle.appending(path: "ping.wav"))
        try Self.valid16k.write(to: layout.sounds.appending(path: "ping.wav"))
        try Self.valid16k.write(to: layout.sounds.appending(path: "only.wav"))
        guard case .file(let url, let info) = layout.locator.resolve(named: "ping.wav") else {
            Issue.record("ping.wav not found")
            return
        }
        #expect(url.deletingLastPathComponent().lastPathComponent == "App.bundle")
        #expect(info.sampleRate == 8000)
        guard case .file(let other, let otherInfo) = layout.locator.resolve(named: "only.wav") else {
            Issue.record("only.wav not found")
            return
        }
        #expect(other.deletingLastPathComponent().lastPathComponent == "Sounds")
        #expect(otherInfo.sampleRate == 16000)
    }

    @Test("a missing file names where it looked")
    func missing() throws {
        let layout = try Layout()
        defer { layout.root.remove() }
        guard case .defaultSound(let reason) = layout.locator.resolve(named: "nope.caf") else {
            Issue.record("found a missing file")
            return
        }
        #expect(reason.contains("nope.caf"))
        #expect(reason.contains(layout.bundle.path))
        #expect(reason.contains(layout.sounds.path))
    }

    @Test("invalid files fall back to the default sound with the reason")
    func invalid() throws {
        let layout = try Layout()
        defer { layout.root.remove() }
        try Fixture.wav(tag: 0x55, bits: 0, blockAlign: 1, fact: 8000, dataSize: 100)
            .write(to: layout.bundle.appending(path: "song.wav"))
        try Fixture.wav(tag: 1, rate: 1000, bits: 8, dataSize: 31000).write(to: layout.sounds.appending(path: "long.wav"))
        try Self.valid8k.prefix(60).write(to: layout.sounds.appending(path: "cut.wav"))
        try Data("not a sound".utf8).write(to: layout.sounds.appending(path: "text.wav"))
        try FileManager.default.createDirectory(
            at: layout.sounds.appending(path: "folder.wav"), withIntermediateDirectories: false)
        let expectations = [
            "song.wav": "MPEG Layer III", "long.wav": "shorter than 30 s", "cut.wav": "truncated",
            "text.wav": "not a WAV", "folder.wav": "not a regular file",
        ]
        for (name, expected) in expectations {
            guard case .defaultSound(let reason) = layout.locator.resolve(named: name) else {
                Issue.record("\(name) was accepted")
                continue
            }
            #expect(reason.contains(expected), "\(name): \(reason)")
        }
    }

    @Test("names with separators or dots are refused", arguments: ["../outside.wav", "sub/ping.wav", "..", ".", "", "/etc/passwd", "a\0b"])
    func badNames(name: String) throws {
        let layout = try Layout()
        defer { layout.root.remove() }
        try Self.valid8k.write(to: layout.root.file("outside.wav"))
        try FileManager.default.createDirectory(at: layout.sounds.appending(path: "sub"), withIntermediateDirectories: true)
        try Self.valid8k.write(to: layout.sounds.appending(path: "sub/ping.wav"))
        guard case .defaultSound = layout.locator.resolve(named: name) else {
            Issue.record("\(name) was accepted")
            return
        }
    }

    @Test("symbolic links must stay inside the search directories")
    func symlinks() throws {
        let layout = try Layout()
        defer { layout.root.remove() }
        let manager = FileManager.default
        try Self.valid8k.write(to: layout.root.file("outside.wav"))
        try Self.valid8k.write(to: layout.bundle.appending(path: "inside.wav"))
        try manager.createSymbolicLink(
            at: layout.sounds.appending(path: "escape.wav"), withDestinationURL: layout.root.file("outside.wav"))
        try manager.createSymbolicLink(
            atPath: layout.sounds.appending(path: "relative.wav").path, withDestinationPath: "../../outside.wav")
        try manager.createSymbolicLink(
            at: layout.sounds.appending(path: "shared.wav"), withDestinationURL: layout.bundle.appending(path: "inside.wav"))
        try manager.createSymbolicLink(
            atPath: layout.sounds.appending(path: "dangling.wav").path, withDestinationPath: "nowhere.wav")
        for name in ["escape.wav", "relative.wav"] {
            guard case .defaultSound(let reason) = layout.locator.resolve(named: name) else {
                Issue.record("\(name) escaped")
                continue
            }
            #expect(reason.contains("outside the sound directories"))
        }
        guard case .defaultSound(let reason) = layout.locator.resolve(named: "dangling.wav") else {
            Issue.record("a dangling link was accepted")
            return
        }
        #expect(reason.contains("dangling"))
        guard case .file(let url, _) = layout.locator.resolve(named: "shared.wav") else {
            Issue.record("a link to another search directory was refused")
            return
        }
        #expect(url.lastPathComponent == "inside.wav")
    }
}
