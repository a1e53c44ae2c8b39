import Foundation

/// How the desktop names and pictures an app: the `app_name` and `app_icon` of its notifications.
///
/// Read from the app's `Info.plist` (``fromInfoPlist(inBundleDirectory:)``) or configured, and carried in each
/// request's content, so that the process that shows it (the daemon, or the app itself in embedded mode) needs no
/// access to the app's folder.
///
/// ```swift
/// let appearance = AppAppearance.fromInfoPlist(inBundleDirectory: URL(fileURLWithPath: "/opt/nagme"))
/// appearance?.displayName  // "Nag Me", from CFBundleDisplayName
/// appearance?.icon         // "/opt/nagme/AppIcon.png", from CFBundleIconFile
/// ```
public struct AppAppearance: Sendable, Hashable, Codable {
    /// A readable name (`CFBundleDisplayName`, else `CFBundleName`); `nil` shows the app's identifier.
    public var displayName: String?
    /// An image file's absolute path or a freedesktop icon-theme name; `nil` leaves the server's default.
    public var icon: String?

    public init(displayName: String? = nil, icon: String? = nil) {
        self.displayName = displayName.flatMap { $0.isEmpty ? nil : $0 }
        self.icon = icon.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether neither a name nor an icon is known.
    public var isEmpty: Bool { displayName == nil && icon == nil }

    /// `self`, with what it lacks taken from `other`.
    public func filled(from other: AppAppearance?) -> AppAppearance {
        AppAppearance(displayName: displayName ?? other?.displayName, icon: icon ?? other?.icon)
    }

    /// The image types freedesktop notification servers load, tried in this order after the name as given.
    static let iconExtensions = ["png", "svg", "xpm", "jpg", "jpeg"]

    /// The name and icon of the `Info.plist` in `directory` (or in its `Contents` folder, as in a macOS bundle).
    ///
    /// The name is `CFBundleDisplayName`, else `CFBundleName`. The icon is `CFBundleIconFile` when it names an image
    /// file in the folder, its `Resources` or `Contents/Resources` folder (as given, else with `.png`, `.svg`,
    /// `.xpm`, `.jpg` or `.jpeg` in place of its extension; an `.icns` file is not read, a PNG beside it is);
    /// otherwise `CFBundleIconName` (an asset name on Apple platforms) or `CFBundleIconFile` without its extension,
    /// as a freedesktop icon-theme name.
    ///
    /// - Parameter directory: The app's bundle directory, or the folder of its executable.
    /// - Returns: `nil` when there is no readable `Info.plist` or it names neither a name nor an icon.
    public static func fromInfoPlist(inBundleDirectory directory: URL) -> AppAppearance? {
        let candidates = [directory, directory.appendingPathComponent("Contents")]
        for folder in candidates {
            let plist = folder.appendingPathComponent("Info.plist")
            guard let data = FileManager.default.contents(atPath: plist.path),
                let dictionary = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
            else { continue }
            let name = [dictionary["CFBundleDisplayName"], dictionary["CFBundleName"]]
                .compactMap { $0 as? String }.first { !$0.isEmpty }
            var icon: String?
            if let file = dictionary["CFBundleIconFile"] as? String, !file.isEmpty {
                icon = iconFile(named: file, in: [folder, folder.appendingPathComponent("Resources")])
            }
            if icon == nil, let name = dictionary["CFBundleIconName"] as? String, !name.isEmpty {
                icon = name
            }
            if icon == nil, let file = dictionary["CFBundleIconFile"] as? String, !file.isEmpty, !file.contains("/") {
                icon = (file as NSString).deletingPathExtension
            }
            let appearance = AppAppearance(displayName: name, icon: icon)
            return appearance.isEmpty ? nil : appearance
        }
        return nil
    }

    /// The absolute path of an image named `name` in one of `folders`, if there is one.
    static func iconFile(named name: String, in folders: [URL]) -> String? {
        let base = (name as NSString).deletingPathExtension
        let given = (name as NSString).pathExtension.lowercased()
        var names = given == "icns" || given.isEmpty ? [] : [name]
        names += iconExtensions.map { "\(base).\($0)" }
        for folder in folders {
            for candidate in names {
                let path = folder.appendingPathComponent(candidate).standardizedFileURL.path
                if FileManager.default.isReadableFile(atPath: path) { return path }
            }
        }
        return nil
    }
}
