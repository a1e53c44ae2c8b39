import Foundation

/// Finds the file for a notification sound name the way iOS does, and checks it against Apple's rule.
///
/// iOS looks for `UNNotificationSound(named:)` files in the app's bundle and then in `Library/Sounds` of the app's
/// data container. On Linux the caller passes the equivalents: the app's bundle (or resources) directory and
/// `<app data directory>/Sounds`. The first directory holding the name wins, even when its file is then refused:
/// the search does not fall through to later directories.
///
/// Names are plain file names: a name with a path separator, a NUL, or that is `.`/`..` is refused, and a file that
/// is a symbolic link must resolve to a regular file inside one of the search directories.
///
/// ```swift
/// let locator = SoundLocator(searchDirectories: [bundleDirectory, dataDirectory.appending(path: "Sounds")])
/// switch locator.resolve(named: "ping.caf") {
/// case .file(let url, _): try await player.play(file: url)
/// case .defaultSound(let reason): logger.notice("default sound: \(reason)"); try await player.playDefaultSound()
/// }
/// ```
public struct SoundLocator: Sendable {
    /// The directories searched, in order.
    public let searchDirectories: [URL]
    /// The rule files must pass.
    public let rule: NotificationSoundRule

    /// Creates a locator.
    ///
    /// - Parameters:
    ///   - searchDirectories: The directories to search in order, normally the app's bundle directory and then
    ///     `<data directory>/Sounds` (see ``NotificationSound/searchDirectories(bundle:dataDirectory:)``).
    ///   - rule: The rule files must pass, Apple's by default.
    public init(searchDirectories: [URL], rule: NotificationSoundRule = .apple) {
        self.searchDirectories = searchDirectories
        self.rule = rule
    }

    /// The file to play for `name`, or the default sound with the reason.
    ///
    /// - Parameter name: A file name such as `ping.caf`, as given to `UNNotificationSound(named:)`.
    /// - Returns: ``SoundResolution/file(_:_:)`` with the resolved path and its header, or
    ///   ``SoundResolution/defaultSound(reason:)`` saying where it looked, or why the file was refused.
    public func resolve(named name: String) -> SoundResolution {
        guard !name.isEmpty else { return .defaultSound(reason: "the sound name is empty") }
        guard name != ".", name != "..", !name.contains("/"), !name.contains("\0") else {
            return .defaultSound(reason: "the sound name \"\(name)\" is not a plain file name")
        }
        let roots = searchDirectories.compactMap { Platform.realPath($0.path) }
        for directory in searchDirectories {
            let candidate = directory.appending(path: name, directoryHint: .notDirectory)
            guard Platform.entryExists(candidate.path) else { continue }
            guard let resolved = Platform.realPath(candidate.path) else {
                return .defaultSound(reason: "\(candidate.path) is a dangling link or cannot be resolved")
            }
            guard roots.contains(where: { resolved.hasPrefix($0 == "/" ? "/" : $0 + "/") }) else {
                return .defaultSound(reason: "\(candidate.path) leads to \(resolved), outside the sound directories")
            }
            guard Platform.isRegularFile(resolved) else {
                return .defaultSound(reason: "\(candidate.path) is not a regular file")
            }
            let url = URL(filePath: resolved, directoryHint: .notDirectory)
            let info: SoundFileInfo
            do {
                info = try SoundFileInfo(contentsOf: url)
            } catch {
                return .defaultSound(reason: error.description)
            }
            let violations = rule.violations(of: info)
            guard violations.isEmpty else {
                return .defaultSound(reason: "\(url.path) breaks Apple's sound rule: \(violations.joined(separator: "; "))")
            }
            return .file(url, info)
        }
        let places = searchDirectories.map(\.path).joined(separator: ", ")
        return .defaultSound(
            reason: "no file named \"\(name)\" in \(searchDirectories.isEmpty ? "(no search directories)" : places)")
    }
}
