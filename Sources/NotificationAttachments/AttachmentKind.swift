/// A file type Apple accepts as a notification attachment, with its uniform type identifier (UTI).
///
/// The list is Apple's: images (JPEG, GIF, PNG), audio (AIFF, WAV, MP3, MPEG-4 audio) and movies (MPEG,
/// MPEG-2 video, MPEG-4, AVI). Other formats (WebP, HEIC, FLAC, Ogg, Matroska, …) are not attachments on Apple
/// platforms and are refused here too.
///
/// ```swift
/// AttachmentKind(uti: "public.png")          // .png
/// AttachmentKind(pathExtension: "JPG")       // .jpeg
/// AttachmentKind.mp3.category.maximumSize    // 5_000_000
/// ```
public enum AttachmentKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `public.jpeg`
    case jpeg = "public.jpeg"
    /// `public.png`
    case png = "public.png"
    /// `com.compuserve.gif`
    case gif = "com.compuserve.gif"
    /// `public.aiff-audio` (AIFF and AIFF-C)
    case aiff = "public.aiff-audio"
    /// `com.microsoft.waveform-audio`
    case wav = "com.microsoft.waveform-audio"
    /// `public.mp3`
    case mp3 = "public.mp3"
    /// `public.mpeg-4-audio`
    case mpeg4Audio = "public.mpeg-4-audio"
    /// `public.mpeg` (MPEG-1 program streams and video)
    case mpeg = "public.mpeg"
    /// `public.mpeg-2-video`
    case mpeg2Video = "public.mpeg-2-video"
    /// `public.mpeg-4`
    case mpeg4 = "public.mpeg-4"
    /// `public.avi`
    case avi = "public.avi"

    /// The uniform type identifier, such as `public.png`.
    public var uti: String { rawValue }

    /// The UTI.
    public var description: String { rawValue }

    /// Image, audio or movie, which sets the size limit.
    public var category: AttachmentCategory {
        switch self {
        case .jpeg, .png, .gif: .image
        case .aiff, .wav, .mp3, .mpeg4Audio: .audio
        case .mpeg, .mpeg2Video, .mpeg4, .avi: .movie
        }
    }

    /// The file-name extensions of the type, lower case, the usual one first.
    public var pathExtensions: [String] {
        switch self {
        case .jpeg: ["jpg", "jpeg", "jpe"]
        case .png: ["png"]
        case .gif: ["gif"]
        case .aiff: ["aiff", "aif", "aifc"]
        case .wav: ["wav", "wave"]
        case .mp3: ["mp3"]
        case .mpeg4Audio: ["m4a"]
        case .mpeg: ["mpg", "mpeg", "mpe", "m1v"]
        case .mpeg2Video: ["m2v"]
        case .mpeg4: ["mp4", "mpg4"]
        case .avi: ["avi"]
        }
    }

    /// The kind with this UTI, or `nil` when Apple does not accept the type.
    public init?(uti: String) {
        self.init(rawValue: uti)
    }

    /// The kind a file-name extension names (case-insensitive), or `nil`.
    public init?(pathExtension: String) {
        let lowered = pathExtension.lowercased()
        guard let kind = Self.allCases.first(where: { $0.pathExtensions.contains(lowered) }) else { return nil }
        self = kind
    }
}
