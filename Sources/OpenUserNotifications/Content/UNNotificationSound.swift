import Foundation
import NotificationModel

/// The name of a sound file in the app's bundle or its `Sounds` data folder.
public struct UNNotificationSoundName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// The sound played when a notification is delivered.
///
/// ```swift
/// content.sound = .default
/// content.sound = UNNotificationSound(named: UNNotificationSoundName("chime.wav"))
/// ```
public final class UNNotificationSound: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    package let spec: SoundSpec

    package init(spec: SoundSpec) {
        self.spec = spec
    }

    /// The system's default notification sound.
    public class var `default`: UNNotificationSound { UNNotificationSound(spec: SoundSpec()) }

    /// The default sound for critical alerts, which bypass Focus and the mute switch.
    public class var defaultCritical: UNNotificationSound { UNNotificationSound(spec: SoundSpec(isCritical: true)) }

    /// The default ringtone (repeats for 30 s on Apple platforms).
    public class var defaultRingtone: UNNotificationSound { UNNotificationSound(spec: SoundSpec(isRingtone: true)) }

    /// A sound file by name; a missing or invalid file plays the default sound, as on Apple platforms.
    ///
    /// The file is looked up when the notification is delivered: in the app's bundle directory (the executable's
    /// folder), then in `~/.local/share/<bundle identifier>/Sounds` (the analogue of `Library/Sounds`). It must be
    /// Linear PCM, IMA4, µLaw or aLaw in a WAV, AIFF or CAF file, shorter than 30 seconds.
    public convenience init(named name: UNNotificationSoundName) {
        self.init(spec: SoundSpec(name: name.rawValue, bundleDirectory: Platform.bundleDirectory))
    }

    /// The default critical sound at a volume from 0.0 to 1.0.
    public class func defaultCriticalSound(withAudioVolume volume: Float) -> Self {
        Self(spec: SoundSpec(isCritical: true, volume: volume))
    }

    /// A named critical sound.
    public class func criticalSoundNamed(_ name: UNNotificationSoundName) -> Self {
        Self(spec: SoundSpec(name: name.rawValue, isCritical: true, bundleDirectory: Platform.bundleDirectory))
    }

    /// A named critical sound at a volume from 0.0 to 1.0.
    public class func criticalSoundNamed(_ name: UNNotificationSoundName, withAudioVolume volume: Float) -> Self {
        Self(spec: SoundSpec(name: name.rawValue, isCritical: true, volume: volume, bundleDirectory: Platform.bundleDirectory))
    }

    /// A named ringtone sound.
    public class func ringtoneSoundNamed(_ name: UNNotificationSoundName) -> Self {
        Self(spec: SoundSpec(name: name.rawValue, isRingtone: true, bundleDirectory: Platform.bundleDirectory))
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// Sounds archive securely.
    public static var supportsSecureCoding: Bool { true }

    /// Decodes a sound archived with ``encode(with:)``.
    public init?(coder: NSCoder) {
        guard let spec = coder.decodeSpec(SoundSpec.self, forKey: "sound") else { return nil }
        self.spec = spec
    }

    /// Archives the sound.
    public func encode(with coder: NSCoder) { coder.encodeSpec(spec, forKey: "sound") }

    public override func isEqual(_ object: Any?) -> Bool { (object as? UNNotificationSound)?.spec == spec }
    public override var hash: Int { spec.hashValue }
    public override var description: String { "<UNNotificationSound \(spec.name ?? "default")\(spec.isCritical ? " critical" : "")>" }
}
