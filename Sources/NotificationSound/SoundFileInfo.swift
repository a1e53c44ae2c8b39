import Foundation

/// What the header of a WAV, AIFF/AIFC or CAF file says about its audio.
///
/// The header is parsed in pure Swift, reading only the chunk headers and the few chunk bodies that describe the
/// audio (never the samples), so checking a large file costs a handful of small reads. Any input is safe: short,
/// garbage or inconsistent files throw a ``SoundFileError`` instead of trapping.
///
/// ```swift
/// let info = try SoundFileInfo(contentsOf: URL(filePath: "/app/Sounds/ping.caf"))
/// print(info.codec, info.duration)          // "µ-law 0.75"
/// if info.violations.isEmpty { /* plays like on iOS */ }
/// ```
///
/// How frames are counted:
/// - WAV: `data` size / `blockAlign` for PCM and the laws; for IMA ADPCM the `fact` chunk, or without one whole
///   blocks × samplesPerBlock plus the frames of a final partial block; for other codecs `fact`, or else an estimate
///   from the byte rate.
/// - AIFF/AIFC: `numSampleFrames` of `COMM`. For AIFC `ima4` this field counts 34-byte-per-channel packets of 64
///   frames (Apple's Core Audio convention), so frames = numSampleFrames × 64.
/// - CAF: `pakt`'s valid frames when present, else (data size − 4) / bytesPerPacket × framesPerPacket; a `data`
///   size of −1 runs to the end of the file.
public struct SoundFileInfo: Sendable, Hashable {
    /// The file format around the audio.
    public var container: Container
    /// How the samples are encoded.
    public var codec: Codec
    /// The number of channels (at least 1).
    public var channels: Int
    /// Frames per second (greater than 0).
    public var sampleRate: Double
    /// The number of sample frames.
    public var frames: Int
    /// The playing time: ``frames`` / ``sampleRate``.
    public var duration: TimeInterval

    /// Creates a description directly, for example to check ``NotificationSoundRule`` without a file.
    ///
    /// - Parameters:
    ///   - container: The file format.
    ///   - codec: The sample encoding.
    ///   - channels: The number of channels.
    ///   - sampleRate: Frames per second.
    ///   - frames: The number of frames; ``duration`` becomes `frames / sampleRate`.
    public init(container: Container, codec: Codec, channels: Int, sampleRate: Double, frames: Int) {
        self.container = container
        self.codec = codec
        self.channels = channels
        self.sampleRate = sampleRate
        self.frames = frames
        self.duration = sampleRate > 0 ? Double(frames) / sampleRate : 0
    }

    /// Reads the header of the sound file at `url`.
    ///
    /// Only the container header, the chunk headers and the describing chunks are read (typically well under 1 KiB,
    /// and at most ``maximumBytesRead``).
    ///
    /// - Parameter url: A local file URL.
    /// - Throws: ``SoundFileError`` with code `unreadable` when the file cannot be read, `unknownContainer` when it is
    ///   not WAV, AIFF/AIFC or CAF, `truncated` when it ends inside its header or a declared chunk, and `malformed`
    ///   for inconsistent headers.
    public init(contentsOf url: URL) throws(SoundFileError) {
        let source: FileByteSource
        do {
            source = try FileByteSource(url: url)
        } catch {
            throw error.about(url)
        }
        defer { source.close() }
        do {
            self = try HeaderParser.parse(source)
        } catch {
            throw error.about(url)
        }
    }

    /// Reads the header from the bytes of a whole sound file.
    ///
    /// - Parameter data: The file's contents (at least everything up to the end of its last chunk).
    /// - Throws: ``SoundFileError`` as ``init(contentsOf:)`` does, except `unreadable`.
    public init(data: Data) throws(SoundFileError) {
        self = try HeaderParser.parse(DataByteSource(data: data))
    }

    /// The most bytes ``init(contentsOf:)`` reads from one file before giving up with `malformed`.
    public static let maximumBytesRead = 256 * 1024
}
