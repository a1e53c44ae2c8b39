import Foundation

/// Works out which app a process is: its bundle identifier.
///
/// In order: `CFBundleIdentifier` from an `Info.plist` beside the executable; the configured identifier
/// (``OpenUserNotificationsConfiguration/bundleIdentifier`` or `OPENUN_BUNDLE_ID`); otherwise one derived from the
/// executable's name, `local.<name>`.
public enum AppIdentity {
    /// Resolves the bundle identifier.
    ///
    /// - Parameters:
    ///   - configured: The identifier from configuration, if any.
    ///   - executableURL: The executable, beside which an `Info.plist` is looked for.
    /// - Returns: A non-empty identifier.
    public static func resolve(configured: String?, executableURL: URL?) -> String {
        if let executableURL, let fromPlist = bundleIdentifier(inInfoPlistBeside: executableURL) { return fromPlist }
        if let configured, !configured.isEmpty { return configured }
        return derived(from: executableURL?.lastPathComponent ?? "app")
    }

    /// `CFBundleIdentifier` from `Info.plist` in the executable's folder.
    static func bundleIdentifier(inInfoPlistBeside executableURL: URL) -> String? {
        let plist = executableURL.deletingLastPathComponent().appendingPathComponent("Info.plist")
        guard let data = FileManager.default.contents(atPath: plist.path),
            let dictionary = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
            let identifier = dictionary["CFBundleIdentifier"] as? String, !identifier.isEmpty
        else { return nil }
        return identifier
    }

    /// `local.` followed by the name with characters outside `[A-Za-z0-9.-]` replaced by `-`.
    static func derived(from name: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")
        return "local." + String(name.map { allowed.contains($0) ? $0 : "-" })
    }
}
