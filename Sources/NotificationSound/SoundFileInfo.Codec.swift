extension SoundFileInfo {
    /// How the samples of a sound file are encoded.
    public enum Codec: Sendable, Hashable, CustomStringConvertible {
        /// Linear PCM: integer (signed, or unsigned for 8-bit WAV) or IEEE floating point samples.
        case linearPCM(isFloat: Bool, bitsPerSample: Int)
        /// IMA ADPCM (`ima4` in AIFC and CAF, format tag 0x11 in WAV).
        case imaADPCM
        /// G.711 µ-law.
        case muLaw
        /// G.711 A-law.
        case aLaw
        /// Any other encoding, named as the header names it (for example `WAV format tag 0x0055 (MPEG Layer III)`
        /// or `CAF format 'aac '`).
        case other(String)

        /// For example `16-bit integer PCM`, `32-bit float PCM`, `IMA ADPCM`, `µ-law`.
        public var description: String {
            switch self {
            case .linearPCM(let isFloat, let bits): "\(bits)-bit \(isFloat ? "float" : "integer") PCM"
            case .imaADPCM: "IMA ADPCM"
            case .muLaw: "µ-law"
            case .aLaw: "A-law"
            case .other(let name): name
            }
        }
    }
}
