import Foundation
@testable import NotificationSound
import Testing

/// A file sox writes, and what the parser should make of it.
struct SoxCase: Sendable, CustomTestStringConvertible {
    let file: String
    let encoding: [String]
    let codec: SoundFileInfo.Codec
    let container: SoundFileInfo.Container
    var testDescription: String { file }

    static let all: [SoxCase] = [
        SoxCase(file: "pcm.wav", encoding: ["-e", "signed", "-b", "16"], codec: .linearPCM(isFloat: false, bitsPerSample: 16), container: .wav),
        SoxCase(file: "ulaw.wav", encoding: ["-e", "u-law"], codec: .muLaw, container: .wav),
        SoxCase(file: "alaw.wav", encoding: ["-e", "a-law"], codec: .aLaw, container: .wav),
        SoxCase(file: "ima.wav", encoding: ["-e", "ima-adpcm"], codec: .imaADPCM, container: .wav),
        SoxCase(file: "pcm.aiff", encoding: ["-e", "signed", "-b", "16"], codec: .linearPCM(isFloat: false, bitsPerSample: 16), container: .aiff),
        SoxCase(file: "pcm.aifc", encoding: ["-e", "signed", "-b", "16"], codec: .linearPCM(isFloat: false, bitsPerSample: 16), container: .aifc),
        SoxCase(file: "pcm.caf", encoding: ["-e", "signed", "-b", "16"], codec: .linearPCM(isFloat: false, bitsPerSample: 16), container: .caf),
        SoxCase(file: "float.caf", encoding: ["-e", "floating-point", "-b", "32"], codec: .linearPCM(isFloat: true, bitsPerSample: 32), container: .caf),
        SoxCase(file: "ulaw.caf", encoding: ["-e", "u-law"], codec: .muLaw, container: .caf),
        SoxCase(file: "alaw.caf", encoding: ["-e", "a-law"], codec: .aLaw, container: .caf),
    ]

    /// sox's name for the encoding (`sox --i -e`).
    var soxEncoding: String {
        switch codec {
        case .linearPCM(isFloat: true, _): "Floating Point PCM"
        case .linearPCM: "Signed Integer PCM"
        case .muLaw: "u-law"
        case .aLaw: "A-law"
        case .imaADPCM: "IMA ADPCM"
        case .other(let name): name
        }
    }
}

@Suite("SoundFileInfo agrees with sox on real files", .enabled(if: Tool.all("sox")))
struct SoxComparisonTests {
    @Test("duration and codec match sox --i", arguments: SoxCase.all)
    func matchesSox(_ soxCase: SoxCase) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file(soxCase.file)
        try await Tool.succeed(
            "sox", ["-n", "-r", "44100", "-c", "2"] + soxCase.encoding + [url.path, "synth", "0.75", "sine", "440"])
        let soxDuration = try #require(
            Double(try await Tool.succeed("sox", ["--i", "-D", url.path]).output.trimmingCharacters(in: .whitespacesAndNewlines)))
        let soxEncoding = try await Tool.succeed("sox", ["--i", "-e", url.path]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let info = try SoundFileInfo(contentsOf: url)
        #expect(info.container == soxCase.container)
        #expect(info.codec == soxCase.codec)
        #expect(soxEncoding == soxCase.soxEncoding)
        #expect(info.channels == 2)
        #expect(info.sampleRate == 44100)
        // sox ignores IMA's fact chunk and counts whole blocks (0.755782 s); the parser uses fact (0.75 s).
        #expect(abs(info.duration - soxDuration) < (soxCase.codec == .imaADPCM ? 0.01 : 0.0001))
        #expect(abs(info.duration - 0.75) < 0.0001)
        #expect(info.violations.isEmpty)
    }

    @Test("a 37.5 s WAV breaks the 30 s limit")
    func longFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("long.wav")
        try await Tool.succeed("sox", ["-n", "-r", "22050", "-c", "1", url.path, "synth", "37.5", "sine", "440"])
        let soxDuration = try await Tool.succeed("sox", ["--i", "-D", url.path]).output
        let info = try SoundFileInfo(contentsOf: url)
        #expect(Double(soxDuration.trimmingCharacters(in: .whitespacesAndNewlines)) == 37.5)
        #expect(info.duration == 37.5)
        #expect(info.frames == 826_875)
        #expect(info.violations == ["it lasts 37.5 s; notification sounds must be shorter than 30 s"])
    }
}
