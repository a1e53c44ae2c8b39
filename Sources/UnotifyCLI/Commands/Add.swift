import ArgumentParser
import Foundation
import NotificationEngine
import NotificationModel
import OpenUserNotifications

/// `unotify add`: schedule a notification.
struct Add: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Schedule a notification.",
        discussion: "Without --in, --at or --calendar it is delivered at once. An app that never asked for "
            + "permission is granted alert, sound and badge first (by the authorization policy).")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var when: TriggerOptions

    @Option(help: "The request identifier (default: a new UUID). Adding an existing one replaces it.")
    var id: String?
    @Option(help: "The title.") var title: String = ""
    @Option(help: "The subtitle.") var subtitle: String = ""
    @Option(help: "The body.") var body: String = ""
    @Option(help: "default, none, a file name, or critical:<name|default>.") var sound: String = "default"
    @Option(help: "The app's new badge count (0 hides it).") var badge: Int?
    @Option(help: "A category identifier registered with `unotify categories set`.") var category: String = ""
    @Option(help: "A thread identifier grouping notifications.") var thread: String = ""
    @Option(name: .customLong("user-info"), help: "Custom data as a JSON object.") var userInfo: String?
    @Option(name: .customLong("interruption-level"), help: "passive, active, time-sensitive or critical.")
    var interruptionLevel: String = "active"
    @Option(help: "When a fire is missed: deliver, skip, or within:<duration> (e.g. within:15m).")
    var missed: String = "deliver"
    @Option(name: .customLong("title-key"), help: "A key of the app's Localizable tables for the title, resolved at delivery.")
    var titleKey: String?
    @Option(name: .customLong("subtitle-key"), help: "A key for the subtitle, resolved at delivery.")
    var subtitleKey: String?
    @Option(name: .customLong("body-key"), help: "A key for the body, resolved at delivery.")
    var bodyKey: String?
    @Option(name: .customLong("title-arg"), help: "An argument of the title's format (repeat for more).")
    var titleArguments: [String] = []
    @Option(name: .customLong("subtitle-arg"), help: "An argument of the subtitle's format (repeat for more).")
    var subtitleArguments: [String] = []
    @Option(name: .customLong("body-arg"), help: "An argument of the body's format (repeat for more).")
    var bodyArguments: [String] = []
    @Option(
        name: .customLong("attachment"),
        help: ArgumentHelp(
            "An image, sound or video to attach (repeat for more): a file, or id=ID,type=UTI,file=PATH.",
            discussion: "The file is checked by Apple's rules and a copy goes into the attachment data store; the file itself stays."))
    var attachments: [String] = []
    @Option(
        name: .customLong("bundle-dir"),
        help: ArgumentHelp(
            "The folder with <lang>.lproj/Localizable.strings or Localizable.xcstrings and the app's Info.plist (default: OPENUN_BUNDLE_DIR, else the current folder).",
            discussion: "The Info.plist's CFBundleDisplayName or CFBundleName and CFBundleIconFile or CFBundleIconName name and picture the app on the desktop."))
    var bundleDirectory: String?
    @Option(help: "The app's icon on the desktop: an image file (PNG, SVG, XPM, JPEG) or an icon-theme name such as mail-unread (default: OPENUN_APP_ICON, else the Info.plist's).")
    var icon: String?
    @Option(name: .customLong("app-name"), help: "The app's name on the desktop (default: OPENUN_APP_NAME, else the Info.plist's, else the --app identifier).")
    var appName: String?

    /// The options' values.
    var fields: RequestFields {
        RequestFields(
            id: id, title: title, subtitle: subtitle, body: body, sound: sound, badge: badge, category: category,
            thread: thread, userInfo: userInfo, interruptionLevel: interruptionLevel, missed: missed, titleKey: titleKey,
            subtitleKey: subtitleKey, bodyKey: bodyKey, titleArguments: titleArguments,
            subtitleArguments: subtitleArguments, bodyArguments: bodyArguments, attachments: attachments,
            bundleDirectory: bundleDirectory, icon: icon, appName: appName, trigger: when.fields)
    }

    func run() async throws {
        try await reportingErrors {
            let fields = fields
            let request = try fields.request()
            let context = try CLIContext(global)
            let center = UNUserNotificationCenter(
                bundleIdentifier: context.appID, backend: context.backend, configuration: try fields.configuring(context.configuration))
            try await Self.authorizeIfAsked(context.backend, appID: context.appID)
            try await center.add(request)
            let identifier = request.identifier
            let pending = try await context.backend.pendingRequests(appID: context.appID)
                .first { $0.identifier == identifier }
            if global.json {
                let next: Any = pending?.nextFireDate.map(CLIOutput.iso) ?? NSNull()
                try CLIOutput.printJSON(["identifier": identifier, "nextFireDate": next])
            } else if let pending {
                CLIOutput.print("\(identifier) \(pending.nextFireDate.map(CLIOutput.iso) ?? "(no date)")")
            } else {
                CLIOutput.print("\(identifier) discarded: the app already has \(context.configuration.pendingCap ?? 0) sooner pending requests")
            }
        }
    }

    /// Grants an app that never asked alert, sound and badge first, by the authorization policy.
    static func authorizeIfAsked(_ backend: any NotificationBackend, appID: String) async throws {
        let state = try await backend.appState(appID: appID)
        if state.authorization == .notDetermined {
            _ = try await backend.requestAuthorization(appID: appID, options: [.alert, .sound, .badge])
        }
    }

    /// An `--attachment` value: a path, or `id=…,type=…,file=…` (any order; `file` required).
    ///
    /// The attachment is made from a copy in a temporary folder: as on Apple platforms, adding moves the attachment's
    /// file into the data store, and a command-line user expects to keep the file they named.
    static func attachment(_ value: String, index: Int) throws -> UNNotificationAttachment {
        var fields: [String: String] = [:]
        if value.hasPrefix("id=") || value.hasPrefix("type=") || value.hasPrefix("file=") {
            for pair in value.split(separator: ",", maxSplits: 2) {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, ["id", "type", "file"].contains(parts[0]) else {
                    throw ValidationError("--attachment takes a file, or id=ID,type=UTI,file=PATH (got '\(value)')")
                }
                fields[parts[0]] = parts[1]
            }
        } else {
            fields["file"] = value
        }
        guard let path = fields["file"], !path.isEmpty else {
            throw ValidationError("--attachment needs a file (got '\(value)')")
        }
        let original = URL(fileURLWithPath: path)
        guard FileManager.default.isReadableFile(atPath: original.path) else {
            throw ValidationError("--attachment: cannot read \(path)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("unotify-attachment-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let copy = folder.appendingPathComponent(original.lastPathComponent)
        try FileManager.default.copyItem(at: original.resolvingSymlinksInPath(), to: copy)
        var options: [AnyHashable: Any] = [:]
        if let type = fields["type"] { options[UNNotificationAttachmentOptionsTypeHintKey] = type }
        do {
            return try UNNotificationAttachment(identifier: fields["id"] ?? "attachment-\(index + 1)", url: copy, options: options)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// An `--icon` value: a readable file (made absolute) when it has a `/` or an image extension, else an
    /// icon-theme name.
    static func checkedIcon(_ value: String) throws -> String {
        let imageExtensions: Set<String> = ["png", "svg", "xpm", "jpg", "jpeg"]
        let isPath = value.contains("/") || imageExtensions.contains((value as NSString).pathExtension.lowercased())
        guard isPath else {
            guard !value.isEmpty, !value.contains(where: \.isWhitespace) else {
                throw ValidationError("--icon takes an image file or an icon name such as mail-unread (got '\(value)')")
            }
            return value
        }
        let path = URL(fileURLWithPath: value).standardizedFileURL.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            FileManager.default.isReadableFile(atPath: path)
        else {
            throw ValidationError("--icon: cannot read \(value)")
        }
        return path
    }
}
