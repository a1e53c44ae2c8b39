import Foundation

/// Why a sound file's header could not be read as a notification sound.
///
/// A struct wrapping a ``Code`` so that new kinds of failure can be added without breaking callers that switch over
/// the code (the same shape as swift-argument-parser's public errors).
///
/// ```swift
/// do {
///     let info = try SoundFileInfo(contentsOf: url)
/// } catch {
///     logger.notice("\(error)")   // "sound file /x/ping.wav is truncated: …"
/// }
/// ```
public struct SoundFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Int, Sendable, Hashable, CustomStringConvertible {
        /// The file could not be opened or read (missing, a directory, no permission, I/O error).
        case unreadable = 1
        /// The first bytes are not a WAV, AIFF/AIFC or CAF header.
        case unknownContainer = 2
        /// The file ends before a header field or a chunk it declares.
        case truncated = 3
        /// The header is present but inconsistent (zero sample rate, zero block size, a missing chunk, …).
        case malformed = 4

        /// A short English name of the code.
        public var description: String {
            switch self {
            case .unreadable: "unreadable"
            case .unknownContainer: "not a WAV, AIFF or CAF file"
            case .truncated: "truncated"
            case .malformed: "malformed"
            }
        }
    }

    /// The kind of failure.
    public let code: Code
    /// What exactly went wrong, for people (for ``Code-swift.enum/malformed`` the reason the header was refused).
    public let reason: String
    /// The file, when the error came from ``SoundFileInfo/init(contentsOf:)``.
    public let file: URL?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - reason: What exactly went wrong.
    ///   - file: The file concerned, if any.
    public init(_ code: Code, reason: String, file: URL? = nil) {
        self.code = code
        self.reason = reason
        self.file = file
    }

    /// The same error, about `file`.
    func about(_ file: URL) -> SoundFileError {
        SoundFileError(code, reason: reason, file: file)
    }

    /// For example `sound file /x/ping.wav is truncated: the data chunk declares 88200 bytes, 1000 are present`.
    public var description: String {
        let subject = file.map { "sound file \($0.path)" } ?? "sound data"
        return "\(subject) is \(code): \(reason)"
    }
}
