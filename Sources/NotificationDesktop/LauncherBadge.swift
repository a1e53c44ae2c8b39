import DBusKit

/// Publishes an app's badge count through Unity's launcher-entry interface, `com.canonical.Unity.LauncherEntry`,
/// which docks read to draw a number on the app's icon: Dash to Dock and Ubuntu Dock, Plank, KDE Plasma's task
/// manager, Latte.
///
/// The count goes out as the broadcast signal `Update(app_uri, properties)` with `count` (`x`) and
/// `count-visible` (`b`); a count of 0 hides the badge, as on iOS. The `app_uri` is
/// `application://<app id>.desktop`: a dock shows the badge on the launcher whose desktop file is named after the
/// app's bundle identifier (`~/.local/share/applications/com.example.nagme.desktop`).
///
/// ```swift
/// let badge = LauncherBadge(connection: bus)
/// try await badge.publish(appID: "com.example.nagme", count: 3)
/// ```
public struct LauncherBadge: Sendable {
    /// The interface docks listen to.
    public static let interface = "com.canonical.Unity.LauncherEntry"

    private let connection: DBusConnection

    /// Creates a publisher that sends on `connection`.
    public init(connection: DBusConnection) {
        self.connection = connection
    }

    /// The `app_uri` of an app: `application://<app id>.desktop`.
    public static func applicationURI(appID: String) -> String {
        "application://\(appID).desktop"
    }

    /// The object path the signal is sent from: one per app, made of the app id's FNV-1a hash, since object
    /// paths allow only `[A-Za-z0-9_]` elements.
    public static func objectPath(appID: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in appID.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return "/com/canonical/unity/launcherentry/\(hash)"
    }

    /// The signal that shows `count` on the app's launcher (0 hides it).
    public static func update(appID: String, count: Int) -> DBusSignal {
        DBusSignal(
            sender: "", path: objectPath(appID: appID), interface: interface, member: "Update",
            arguments: [
                .string(applicationURI(appID: appID)),
                .variantDictionary(["count": .int64(Int64(max(0, count))), "count-visible": .boolean(count > 0)]),
            ])
    }

    /// Broadcasts the app's badge count.
    ///
    /// - Throws: ``DBusFailure`` when the signal cannot be sent.
    public func publish(appID: String, count: Int) async throws(DBusFailure) {
        try await connection.emit(Self.update(appID: appID, count: count))
    }
}
