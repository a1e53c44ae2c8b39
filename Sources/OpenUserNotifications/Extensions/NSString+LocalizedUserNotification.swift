import Foundation

extension NSString {
    /// A localized string for notification content, looked up in the app's `Localizable.strings` and formatted
    /// with the arguments; the key itself when it is not found.
    ///
    /// ```swift
    /// content.title = NSString.localizedUserNotificationString(forKey: "Wake up!", arguments: nil)
    /// ```
    ///
    /// > Note: On Linux the string is resolved when this is called, in the process's locale; resolving it at
    /// > delivery time, in the locale of that moment, arrives with the localization work.
    public class func localizedUserNotificationString(forKey key: String, arguments: [Any]?) -> String {
        let format = Bundle.main.localizedString(forKey: key, value: key, table: nil)
        guard let arguments, !arguments.isEmpty else { return format }
        let varArgs: [any CVarArg] = arguments.map { ($0 as? any CVarArg) ?? String(describing: $0) }
        return String(format: format, arguments: varArgs)
    }
}
