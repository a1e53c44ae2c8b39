import Foundation

/// What to play for a notification sound name: the app's file, or the default sound and why.
public enum SoundResolution: Sendable, Hashable, CustomStringConvertible {
    /// Play this file; its header passed the rule.
    case file(URL, SoundFileInfo)
    /// Play the default notification sound instead; `reason` says why, for the log.
    case defaultSound(reason: String)

    /// For example `ping.caf (CAF, 16-bit integer PCM, 0.75 s)` or `default sound: no file named …`.
    public var description: String {
        switch self {
        case .file(let url, let info):
            "\(url.path) (\(info.container), \(info.codec), \(String(format: "%.3g", info.duration)) s)"
        case .defaultSound(let reason):
            "default sound: \(reason)"
        }
    }
}
