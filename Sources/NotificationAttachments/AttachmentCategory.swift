/// The three kinds of attachment Apple accepts, each with its own size limit.
///
/// Apple documents the limits as "10 MB", "5 MB" and "50 MB"; like Apple's own file sizes they are decimal
/// megabytes here (1 MB = 1,000,000 bytes).
public enum AttachmentCategory: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// JPEG, GIF and PNG images, static or animated: at most 10,000,000 bytes.
    case image
    /// AIFF, WAV, MP3 and MPEG-4 audio: at most 5,000,000 bytes.
    case audio
    /// MPEG, MPEG-2 video, MPEG-4 and AVI movies: at most 50,000,000 bytes.
    case movie

    /// The largest file accepted, in bytes.
    public var maximumSize: Int {
        switch self {
        case .image: 10_000_000
        case .audio: 5_000_000
        case .movie: 50_000_000
        }
    }

    /// `image`, `audio` or `movie`.
    public var description: String { rawValue }
}
