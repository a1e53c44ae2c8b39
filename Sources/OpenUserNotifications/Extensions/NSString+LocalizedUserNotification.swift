import Foundation
import NotificationLocalization
import NotificationModel

extension NSString {
    /// A localized string for notification content, resolved when the notification is delivered: looked up in
    /// the app's `Localizable.strings` (`<language>.lproj`) or `Localizable.xcstrings` for the person's languages
    /// at that moment (`LC_ALL`, `LC_MESSAGES`, `LANG`, `LANGUAGE`), formatted then with the arguments, and the key
    /// itself when no table has it.
    ///
    /// ```swift
    /// content.title = NSString.localizedUserNotificationString(forKey: "Wake up!", arguments: nil)
    /// content.body = NSString.localizedUserNotificationString(forKey: "%d new messages", arguments: [3])
    /// ```
    ///
    /// The returned string stands for the key and arguments until delivery: an encoding between two Unicode
    /// noncharacters that the content, the store and the daemon carry unchanged (see `docs/localization.md`).
    /// Assign it to a title, subtitle or body as it is. Pending requests show it encoded; delivered notifications
    /// (and what the person sees) show the resolved text. When the app's folder has no `Localizable` table and
    /// nothing needs formatting (no arguments, no `%` in the key), the key itself is returned, since that is also
    /// what delivery would show.
    ///
    /// The app's folder is ``OpenUserNotificationsConfiguration/bundleDirectory``, else `OPENUN_BUNDLE_DIR`, else
    /// `Bundle.main`'s (the executable's folder for an unbundled Linux program). Arguments keep their type:
    /// integers for `%d`, floating-point numbers for `%f`, text (anything else, by its description) for `%@`.
    public class func localizedUserNotificationString(forKey key: String, arguments: [Any]?) -> String {
        let directory = UserNotificationLocalization.bundleDirectory
        let values = (arguments ?? []).map(UserNotificationLocalization.argument(_:))
        if values.isEmpty, !key.contains("%"), !LocalizedStringResolver.hasTables(in: directory) { return key }
        return LocalizableString(key: key, arguments: values, bundleDirectory: directory).encoded
    }
}

/// Where `localizedUserNotificationString(forKey:arguments:)` finds the app's folder, and how it types arguments.
package enum UserNotificationLocalization {
    /// A folder that replaces the configured one for the current task and its children: tests use it so that
    /// no other test sees their tables.
    @TaskLocal package static var bundleDirectoryOverride: String?

    /// The app's folder, absolute.
    package static var bundleDirectory: String {
        let directory = bundleDirectoryOverride ?? OpenUserNotificationsConfiguration.current.resolvedBundleDirectory
        return URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL.path
    }

    /// An argument as the encoding keeps it.
    package static func argument(_ value: Any) -> LocalizableString.Argument {
        switch value {
        case let value as Bool: return .int(value ? 1 : 0)
        case let value as Int: return .int(Int64(value))
        case let value as Int8: return .int(Int64(value))
        case let value as Int16: return .int(Int64(value))
        case let value as Int32: return .int(Int64(value))
        case let value as Int64: return .int(value)
        case let value as UInt: return UInt64(value) <= UInt64(Int64.max) ? .int(Int64(value)) : .uint(UInt64(value))
        case let value as UInt8: return .int(Int64(value))
        case let value as UInt16: return .int(Int64(value))
        case let value as UInt32: return .int(Int64(value))
        case let value as UInt64: return value <= UInt64(Int64.max) ? .int(Int64(value)) : .uint(value)
        case let value as Double: return .double(value)
        case let value as Float: return .double(Double(value))
        case let value as CGFloat: return .double(Double(value))
        case let value as String: return .string(value)
        case let value as NSString: return .string(value as String)
        case let value as NSNumber:
            let double = value.doubleValue
            if double == double.rounded(), abs(double) < 9e15 { return .int(value.int64Value) }
            return .double(double)
        case let value as Decimal: return .double(NSDecimalNumber(decimal: value).doubleValue)
        default: return .string(String(describing: value))
        }
    }
}
