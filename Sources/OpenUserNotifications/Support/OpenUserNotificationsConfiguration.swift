import Foundation
import NotificationAttachments
import NotificationEngine
import NotificationModel
import NotificationWire
import Synchronization

#if os(Linux)
import Glibc
#endif

/// How requests for permission are answered where no person can be asked. An addition of this library.
public typealias AuthorizationPolicy = NotificationEngine.AuthorizationPolicy

/// The app's name and icon on the desktop, read from its `Info.plist` or configured. An addition of this library.
public typealias AppAppearance = NotificationModel.AppAppearance

/// Settings of this library that Apple's framework does not have: where the store lives, which app this is, and
/// how the system answers where no person is asked.
///
/// Set ``current`` before the first call to `UNUserNotificationCenter.current()`; later changes do not affect
/// the running center.
///
/// ```swift
/// var configuration = OpenUserNotificationsConfiguration.fromEnvironment()
/// configuration.bundleIdentifier = "com.example.nagme"
/// configuration.pendingCap = nil   // keep every request
/// OpenUserNotificationsConfiguration.current = configuration
/// ```
public struct OpenUserNotificationsConfiguration: Sendable {
    /// The app's bundle identifier; `nil` resolves it (Info.plist beside the executable, `OPENUN_BUNDLE_ID`, the
    /// executable's name), see ``AppIdentity``.
    public var bundleIdentifier: String?
    /// The SQLite file; `nil` means `OPENUN_STORE` or `$XDG_DATA_HOME/openusernotifications/store.sqlite`.
    public var storePath: String?
    /// How many dated pending requests an app keeps (the soonest-firing); `nil` keeps all. Apple documents 64.
    public var pendingCap: Int?
    /// How `requestAuthorization` is answered.
    public var authorizationPolicy: AuthorizationPolicy
    /// How a notification is presented while the app runs when its delegate gives no answer (no delegate, or no
    /// `willPresent`). Empty, as on Apple platforms: the notification is not shown.
    public var foregroundPresentationWithoutDelegate: UNNotificationPresentationOptions
    /// Whether `current()` talks to the per-user daemon or runs the engine in-process.
    public var mode: Mode
    /// The daemon's socket; `nil` means `OPENUN_SOCKET` or `$XDG_RUNTIME_DIR/openusernotifications/unotifyd.sock`.
    public var socketPath: String?
    /// The folder holding the app's `<language>.lproj/Localizable.strings` and `Localizable.xcstrings`, read by
    /// `NSString.localizedUserNotificationString(forKey:arguments:)`; `nil` means `OPENUN_BUNDLE_DIR` or
    /// `Bundle.main`'s folder.
    public var bundleDirectory: String?
    /// The person's preferred languages at the moment of a delivery (POSIX locale names or language identifiers,
    /// most preferred first), for the strings of `localizedUserNotificationString`; `nil` reads `LC_ALL`,
    /// `LC_MESSAGES`, `LANG` and `LANGUAGE` of the delivering process at each delivery. In system mode the daemon
    /// delivers, with its own environment.
    public var deliveryLanguages: (@Sendable () -> [String])?
    /// The attachment data store: the folder attachment files are moved into when their request is added
    /// (`<path>/<bundle identifier>/<UUID>/<file name>`), and from which the engine deletes them when their
    /// notification is removed; `nil` means `OPENUN_ATTACHMENTS` or
    /// `$XDG_DATA_HOME/openusernotifications/attachments`. The daemon uses its own environment's default, so an
    /// app that sets another path in daemon mode keeps its files after removal.
    public var attachmentStorePath: String?
    /// The app's name on the desktop (the freedesktop `app_name`); `nil` means `OPENUN_APP_NAME`, else
    /// `CFBundleDisplayName` or `CFBundleName` from the app's `Info.plist`, else the bundle identifier.
    public var appDisplayName: String?
    /// The app's icon on the desktop (the freedesktop `app_icon`): an image file's path or an icon-theme name;
    /// `nil` means `OPENUN_APP_ICON`, else `CFBundleIconFile` or `CFBundleIconName` from the app's `Info.plist`,
    /// else none (the server's default).
    public var appIcon: String?

    /// How long a service extension may work on a push in embedded mode before `serviceExtensionTimeWillExpire()`:
    /// 30 seconds by default, as on iOS; `OPENUN_SERVICE_EXTENSION_BUDGET` (seconds) in the environment. The daemon
    /// has its own (`unotifyd --service-extension-budget`).
    public var serviceExtensionTimeBudget: TimeInterval = 30

    /// Where the engine runs.
    public enum Mode: String, Sendable, Hashable {
        /// The daemon when one listens on the socket, otherwise embedded (the default).
        case automatic
        /// Always the engine in this process.
        case embedded
        /// Always the daemon (calls fail with `unavailable` while it is not running).
        case daemon
    }

    public init(
        bundleIdentifier: String? = nil, storePath: String? = nil, pendingCap: Int? = 64,
        authorizationPolicy: AuthorizationPolicy = .grantRequested,
        foregroundPresentationWithoutDelegate: UNNotificationPresentationOptions = [], mode: Mode = .automatic,
        socketPath: String? = nil, bundleDirectory: String? = nil, deliveryLanguages: (@Sendable () -> [String])? = nil,
        attachmentStorePath: String? = nil
    ) {
        self.attachmentStorePath = attachmentStorePath
        self.bundleDirectory = bundleDirectory
        self.deliveryLanguages = deliveryLanguages
        self.mode = mode
        self.socketPath = socketPath
        self.bundleIdentifier = bundleIdentifier
        self.storePath = storePath
        self.pendingCap = pendingCap
        self.authorizationPolicy = authorizationPolicy
        self.foregroundPresentationWithoutDelegate = foregroundPresentationWithoutDelegate
    }

    /// A configuration from the environment: `OPENUN_BUNDLE_ID`, `OPENUN_STORE`, `OPENUN_PENDING_CAP`
    /// (a number or `off`), `OPENUN_AUTHORIZATION` (`grant` or `deny`), `OPENUN_MODE` (`automatic`, `embedded`,
    /// `daemon`), `OPENUN_SOCKET`, `OPENUN_BUNDLE_DIR`, `OPENUN_ATTACHMENTS`, `OPENUN_SERVICE_EXTENSION_BUDGET`,
    /// `OPENUN_APP_NAME` and `OPENUN_APP_ICON`.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Self {
        var configuration = Self()
        configuration.bundleIdentifier = environment["OPENUN_BUNDLE_ID"].flatMap { $0.isEmpty ? nil : $0 }
        configuration.storePath = environment["OPENUN_STORE"].flatMap { $0.isEmpty ? nil : $0 }
        if let cap = environment["OPENUN_PENDING_CAP"] {
            configuration.pendingCap = cap == "off" ? nil : Int(cap) ?? configuration.pendingCap
        }
        configuration.authorizationPolicy = AuthorizationPolicy.fromEnvironment(environment) ?? .grantRequested
        configuration.mode = environment["OPENUN_MODE"].flatMap(Mode.init(rawValue:)) ?? .automatic
        configuration.socketPath = environment["OPENUN_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        configuration.bundleDirectory = environment["OPENUN_BUNDLE_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        configuration.attachmentStorePath = environment["OPENUN_ATTACHMENTS"].flatMap { $0.isEmpty ? nil : $0 }
        configuration.appDisplayName = environment["OPENUN_APP_NAME"].flatMap { $0.isEmpty ? nil : $0 }
        configuration.appIcon = environment["OPENUN_APP_ICON"].flatMap { $0.isEmpty ? nil : $0 }
        if let budget = environment["OPENUN_SERVICE_EXTENSION_BUDGET"].flatMap(TimeInterval.init), budget > 0 {
            configuration.serviceExtensionTimeBudget = budget
        }
        return configuration
    }

    private static let storage = Mutex(OpenUserNotificationsConfiguration.fromEnvironment())

    /// The configuration `UNUserNotificationCenter.current()` is created with.
    public static var current: OpenUserNotificationsConfiguration {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    /// The store file this configuration names.
    public var resolvedStorePath: String {
        storePath ?? Platform.defaultStorePath(environment: ProcessInfo.processInfo.environment)
    }

    /// The daemon socket this configuration names.
    public var resolvedSocketPath: String {
        socketPath ?? defaultDaemonSocketPath(environment: ProcessInfo.processInfo.environment, userID: getuid())
    }

    /// The folder `localizedUserNotificationString` reads the app's tables from: ``bundleDirectory``, else
    /// `Bundle.main`'s folder.
    public var resolvedBundleDirectory: String {
        bundleDirectory ?? Bundle.main.bundlePath
    }

    /// The attachment data store this configuration names: ``attachmentStorePath``, else `OPENUN_ATTACHMENTS`,
    /// else `$XDG_DATA_HOME/openusernotifications/attachments`.
    public var resolvedAttachmentStorePath: String {
        attachmentStorePath ?? AttachmentStore.defaultRootPath(environment: ProcessInfo.processInfo.environment)
    }

    /// The app's name and icon on the desktop: ``appDisplayName`` and ``appIcon``, what they leave out taken from
    /// the `Info.plist` in ``resolvedBundleDirectory`` (see ``AppAppearance/fromInfoPlist(inBundleDirectory:)``);
    /// `nil` when neither is known. An icon given as a relative path is made absolute.
    ///
    /// Each request's content carries it, so the process that shows the notification needs no access to the app.
    public var resolvedAppAppearance: AppAppearance? {
        var icon = appIcon
        if let path = icon, path.contains("/"), !path.hasPrefix("/") {
            icon = URL(fileURLWithPath: path).standardizedFileURL.path
        }
        let fromPlist = AppAppearance.fromInfoPlist(
            inBundleDirectory: URL(fileURLWithPath: resolvedBundleDirectory, isDirectory: true))
        let appearance = AppAppearance(displayName: appDisplayName, icon: icon).filled(from: fromPlist)
        return appearance.isEmpty ? nil : appearance
    }

    /// The engine settings this configuration implies.
    package var engineConfiguration: EngineConfiguration {
        var engine = EngineConfiguration(pendingCap: pendingCap, authorizationPolicy: authorizationPolicy)
        if let deliveryLanguages { engine.deliveryLanguages = deliveryLanguages }
        engine.attachmentStoreRoot = resolvedAttachmentStorePath
        engine.serviceExtensionTimeBudget = serviceExtensionTimeBudget
        return engine
    }
}
