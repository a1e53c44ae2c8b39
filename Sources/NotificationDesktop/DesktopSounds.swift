import Foundation
import Logging
import NotificationModel
import NotificationSound

/// The sounds of desktop notifications: finds an app's named sound as iOS does, and plays sounds for notification
/// servers that play none (dunst, mako).
///
/// A named sound (`UNNotificationSound(named:)`) is looked up in the app's bundle directory (recorded with the
/// request) and then in `<app data directory>/Sounds`, the analogue of `Library/Sounds`; the app data directory
/// is `$XDG_DATA_HOME/<bundle identifier>` (`~/.local/share/<bundle identifier>`). A missing file, or one that breaks
/// Apple's rule (see `NotificationSoundRule`), falls back to the default sound, and the log says why.
///
/// Playing goes through the first available of `canberra-gtk-play`, `paplay` and `aplay` (see `SoundPlayer`); it
/// runs in the background, so a two-second sound does not hold up the next notification.
///
/// ```swift
/// let sounds = DesktopSounds.standard(environment: ProcessInfo.processInfo.environment)
/// let presenter = DesktopPresenter(connection: bus, sounds: sounds, onResponse: relay.handler)
/// ```
public struct DesktopSounds: Sendable {
    /// The program that plays sounds, or `nil` when none is installed (sounds are then only logged).
    public let player: SoundPlayer?
    private let dataDirectory: @Sendable (String) -> URL
    private let logger: Logger

    /// Creates the sounds of a presenter.
    ///
    /// - Parameters:
    ///   - player: The player, or `nil` to play nothing.
    ///   - dataDirectory: An app's data directory, from its bundle identifier.
    ///   - logger: Where fallbacks and playback failures are reported.
    public init(
        player: SoundPlayer?, dataDirectory: @escaping @Sendable (String) -> URL,
        logger: Logger = Logger(label: "OpenUserNotifications.sound")
    ) {
        self.player = player
        self.dataDirectory = dataDirectory
        self.logger = logger
    }

    /// The sounds of a user session: the first player found on `PATH`, data directories under `$XDG_DATA_HOME`.
    public static func standard(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        logger: Logger = Logger(label: "OpenUserNotifications.sound")
    ) -> DesktopSounds {
        let player = SoundPlayer.available(environment: environment, logger: logger)
        if let player {
            logger.debug("notification sounds play through \(player.name)")
        } else {
            logger.notice("no sound player (canberra-gtk-play, paplay, aplay) found: notification sounds are not played")
        }
        let dataHome =
            environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? URL(fileURLWithPath: (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        return DesktopSounds(
            player: player, dataDirectory: { dataHome.appendingPathComponent($0, isDirectory: true) }, logger: logger)
    }

    /// The app's data directory, whose `Sounds` folder holds sounds.
    public func dataDirectory(appID: String) -> URL {
        dataDirectory(appID)
    }

    /// The file of the notification's named sound, or `nil` for the default sound (none named, or the named one
    /// missing or invalid: logged).
    public func file(for notification: DeliveredNotification) -> URL? {
        guard let sound = notification.request.content.sound, let name = sound.name else { return nil }
        let bundle = sound.bundleDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }
        let locator = SoundLocator(
            searchDirectories: NotificationSound.searchDirectories(
                bundle: bundle, dataDirectory: dataDirectory(notification.appID)))
        switch locator.resolve(named: name) {
        case .file(let url, _):
            return url
        case .defaultSound(let reason):
            logger.notice("\(notification.appID)/\(notification.identifier) plays the default sound: \(reason)")
            return nil
        }
    }

    /// Plays `file` (or the default sound when `nil`) in the background.
    public func play(_ file: URL?, for notification: DeliveredNotification) async {
        guard let player else {
            logger.debug("\(notification.appID)/\(notification.identifier): no sound player, the sound is not played")
            return
        }
        let logger = logger
        let what = file?.lastPathComponent ?? "the default sound"
        Task.detached {
            do {
                if let file { try await player.play(file: file) } else { try await player.playDefaultSound() }
                logger.info("\(notification.appID)/\(notification.identifier): played \(what) through \(player.name)")
            } catch {
                logger.warning("\(notification.appID)/\(notification.identifier): cannot play \(what): \(error)")
            }
        }
    }
}
