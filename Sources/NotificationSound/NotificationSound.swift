import Foundation

/// Notification sounds on Linux, following Apple's rules for `UNNotificationSound`.
///
/// The module has three parts:
/// - **Validation.** ``SoundFileInfo`` reads the header of a WAV, AIFF/AIFC or CAF file in pure Swift (container,
///   codec, channels, sample rate, frames, duration), and ``NotificationSoundRule`` lists why a file breaks Apple's
///   rule: Linear PCM, IMA ADPCM, µ-law or A-law, in WAV/AIFF/CAF, shorter than 30 seconds. iOS plays the default
///   sound for any other file, and so do we.
/// - **Lookup.** ``SoundLocator`` finds `UNNotificationSound(named:)` files in the app's bundle directory and then in
///   `<data directory>/Sounds` (iOS: `Library/Sounds`), refusing names and links that leave those directories, and
///   answers a ``SoundResolution``: the file, or the default sound with a reason for the log.
/// - **Playback.** ``SoundPlayer`` plays through the first of `canberra-gtk-play` (with a display), `paplay` or
///   `aplay` found on `PATH`; the default sound is the freedesktop sound-theme event
///   ``NotificationSound/defaultSoundEvent``.
///
/// ```swift
/// let locator = SoundLocator(searchDirectories: NotificationSound.searchDirectories(
///     bundle: bundleDirectory, dataDirectory: dataDirectory))
/// guard let player = SoundPlayer.available(environment: ProcessInfo.processInfo.environment) else { return }
/// switch locator.resolve(named: "ping.caf") {
/// case .file(let url, _):
///     try await player.play(file: url)
/// case .defaultSound(let reason):
///     logger.info("default sound: \(reason)")
///     try await player.playDefaultSound()
/// }
/// ```
///
/// > Note: On Linux nothing plays without a sound server or card; ``SoundPlayer/available(environment:logger:)``
/// > finds a player program, but playing can still fail (the error says what the player printed).
public enum NotificationSound {
    /// The freedesktop sound-theme event used as the default notification sound: `message-new-instant`.
    public static let defaultSoundEvent = "message-new-instant"

    /// The folder under an app's data directory that holds its sounds, like iOS's `Library/Sounds`: `Sounds`.
    public static let soundsDirectoryName = "Sounds"

    /// The directories to search for an app's named sounds, in iOS's order: the bundle, then `<data>/Sounds`.
    ///
    /// - Parameters:
    ///   - bundle: The app's bundle or resources directory, if it has one.
    ///   - dataDirectory: The app's data directory.
    /// - Returns: The directories to pass to ``SoundLocator/init(searchDirectories:rule:)``.
    public static func searchDirectories(bundle: URL?, dataDirectory: URL) -> [URL] {
        (bundle.map { [$0] } ?? []) + [dataDirectory.appending(path: soundsDirectoryName, directoryHint: .isDirectory)]
    }
}
