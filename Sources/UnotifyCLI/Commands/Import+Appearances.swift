import OpenUserNotifications

extension Import {
    /// The app's name and icon for each combination of an import line's `bundle-dir`, `icon` and `app-name`,
    /// resolved once per chunk of lines (resolving reads the bundle's `Info.plist`).
    struct Appearances {
        /// The configuration the lines' fields are laid over.
        let configuration: OpenUserNotificationsConfiguration
        /// The appearances resolved so far, by bundle folder, icon and app name.
        private var resolved: [String: AppAppearance?] = [:]
        /// The appearance of lines that give none of the three (most lines), once resolved.
        private var plain: AppAppearance??

        init(configuration: OpenUserNotificationsConfiguration) {
            self.configuration = configuration
        }

        /// The appearance `fields` give over ``configuration``; `nil` when neither a name nor an icon is known.
        /// - Throws: `ValidationError` for an icon that cannot be read (``RequestFields/configuring(_:)``).
        mutating func appearance(for fields: RequestFields) throws -> AppAppearance? {
            if fields.bundleDirectory == nil, fields.icon == nil, fields.appName == nil {
                if let plain { return plain }
                let appearance = try fields.configuring(configuration).resolvedAppAppearance
                plain = .some(appearance)
                return appearance
            }
            let key = [fields.bundleFolder, fields.icon ?? "", fields.appName ?? ""].joined(separator: "\u{1F}")
            if let known = resolved[key] { return known }
            let appearance = try fields.configuring(configuration).resolvedAppAppearance
            resolved[key] = .some(appearance)
            return appearance
        }
    }
}
