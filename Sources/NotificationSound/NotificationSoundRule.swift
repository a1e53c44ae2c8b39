import Foundation

/// Apple's rule for custom notification sounds, as a checkable value.
///
/// `UNNotificationSound(named:)` accepts a file only when it is Linear PCM (integer or float), IMA4 (IMA ADPCM), µ-law
/// or A-law, inside a WAV, AIFF/AIFC or CAF container, and shorter than 30 seconds. Otherwise iOS plays the default
/// sound instead, and so do we.
///
/// ```swift
/// let reasons = NotificationSoundRule.apple.violations(of: info)
/// // ["it lasts 37.5 s; notification sounds must be shorter than 30 s"]
/// ```
public struct NotificationSoundRule: Sendable, Hashable {
    /// Apple's rule: the four codec families, the three containers, shorter than 30 seconds.
    public static let apple = NotificationSoundRule()

    /// Files must be strictly shorter than this, in seconds.
    public var maximumDuration: TimeInterval
    /// The allowed containers.
    public var allowedContainers: Set<SoundFileInfo.Container>

    /// Creates a rule.
    ///
    /// - Parameters:
    ///   - maximumDuration: The exclusive upper bound on the duration, 30 seconds by default.
    ///   - allowedContainers: The allowed containers, all of WAV, AIFF, AIFF-C and CAF by default.
    public init(
        maximumDuration: TimeInterval = 30,
        allowedContainers: Set<SoundFileInfo.Container> = Set(SoundFileInfo.Container.allCases)
    ) {
        self.maximumDuration = maximumDuration
        self.allowedContainers = allowedContainers
    }

    /// Whether Apple accepts `codec` in a notification sound (Linear PCM, IMA ADPCM, µ-law, A-law).
    ///
    /// - Parameter codec: The sample encoding.
    /// - Returns: `true` for the allowed codec families.
    public func allows(_ codec: SoundFileInfo.Codec) -> Bool {
        switch codec {
        case .linearPCM, .imaADPCM, .muLaw, .aLaw: true
        case .other: false
        }
    }

    /// The reasons `info` breaks the rule, worded for a log line; empty when the file may be played.
    ///
    /// - Parameter info: A parsed sound file header.
    /// - Returns: Zero or more human-readable reasons, for example `"its codec WAV format tag 0x0055 (MPEG Layer
    ///   III) is not Linear PCM, IMA ADPCM, µ-law or A-law"`.
    public func violations(of info: SoundFileInfo) -> [String] {
        var reasons: [String] = []
        if !allowedContainers.contains(info.container) {
            let allowed = SoundFileInfo.Container.allCases.filter(allowedContainers.contains).map(\.description)
            reasons.append("its container \(info.container) is not one of \(allowed.joined(separator: ", "))")
        }
        if !allows(info.codec) {
            reasons.append("its codec \(info.codec) is not Linear PCM, IMA ADPCM, µ-law or A-law")
        }
        if !(info.duration < maximumDuration) {
            let shown = String(format: "%.3g", info.duration)
            reasons.append(
                "it lasts \(shown) s; notification sounds must be shorter than \(String(format: "%g", maximumDuration)) s")
        }
        return reasons
    }
}
