extension SoundFileInfo {
    /// The file formats the parser understands (all three are allowed by Apple for notification sounds).
    public enum Container: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// RIFF WAVE (`.wav`).
        case wav
        /// Audio Interchange File Format, uncompressed (`.aiff`, `.aif`).
        case aiff
        /// AIFF-C, AIFF with a compression type (`.aifc`, and many `.aiff` files written by Apple tools).
        case aifc
        /// Core Audio Format (`.caf`).
        case caf

        /// `WAV`, `AIFF`, `AIFF-C` or `CAF`.
        public var description: String {
            switch self {
            case .wav: "WAV"
            case .aiff: "AIFF"
            case .aifc: "AIFF-C"
            case .caf: "CAF"
            }
        }
    }
}
