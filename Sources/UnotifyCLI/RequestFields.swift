import ArgumentParser
import Foundation
import NotificationModel
import OpenUserNotifications

/// One request as its fields: the options of `unotify add`, and the keys of a line of `unotify import` (the same
/// names, without the dashes in front: `{"title": "Standup", "in": "5m", "user-info": {"room": 4}}`).
struct RequestFields {
    var id: String?
    var title = ""
    var subtitle = ""
    var body = ""
    var sound = "default"
    var badge: Int?
    var category = ""
    var thread = ""
    /// A JSON object, as text (`add --user-info`).
    var userInfo: String?
    /// A JSON object already parsed (an import line's `user-info` object), used instead of ``userInfo``.
    var userInfoObject: [String: Any]?
    /// A JSON object already read into property-list values (an import line read by ``FastPayloadJSON``), used
    /// instead of ``userInfoObject`` and ``userInfo``.
    var userInfoProperties: [String: PropertyListValue]?
    var interruptionLevel = "active"
    var missed = "deliver"
    var titleKey: String?
    var subtitleKey: String?
    var bodyKey: String?
    var titleArguments: [String] = []
    var subtitleArguments: [String] = []
    var bodyArguments: [String] = []
    var attachments: [String] = []
    var bundleDirectory: String?
    var icon: String?
    var appName: String?
    var trigger = TriggerFields()

    /// The request, with a new UUID when there is no ``id``.
    /// - Throws: `ValidationError` naming the field that is wrong.
    func request() throws -> UNNotificationRequest {
        let trigger = try trigger.trigger()
        guard let policy = MissedFirePolicy(argument: missed) else {
            throw ValidationError("--missed takes deliver, skip or within:<duration> (got '\(missed)')")
        }
        let content = try makeContent()
        content.attachments = try attachments.enumerated().map { try Add.attachment($1, index: $0) }
        let request = UNNotificationRequest(
            identifier: id ?? UUID().uuidString, content: content, trigger: trigger.map { UNNotificationTrigger.make($0) })
        request.missedFirePolicy = policy
        return request
    }

    /// The app's name and icon on the desktop these fields give, over `configuration`'s.
    func configuring(_ configuration: OpenUserNotificationsConfiguration) throws -> OpenUserNotificationsConfiguration {
        var configuration = configuration
        configuration.bundleDirectory = bundleFolder
        if let appName { configuration.appDisplayName = appName }
        if let icon { configuration.appIcon = try Add.checkedIcon(icon) }
        return configuration
    }

    private func makeContent() throws -> UNMutableNotificationContent {
        let content = UNMutableNotificationContent()
        try checkArguments()
        content.title = localized(titleKey, titleArguments) ?? title
        content.subtitle = localized(subtitleKey, subtitleArguments) ?? subtitle
        content.body = localized(bodyKey, bodyArguments) ?? body
        content.badge = badge.map { NSNumber(value: $0) }
        content.categoryIdentifier = category
        content.threadIdentifier = thread
        content.sound = notificationSound()
        content.interruptionLevel = try notificationInterruptionLevel()
        if let userInfoProperties {
            content.userInfo = userInfoProperties.mapValues(\.foundationValue)
        } else if userInfoObject != nil || userInfo != nil {
            guard
                let object = userInfoObject
                    ?? userInfo.flatMap({ try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
            else {
                throw ValidationError("--user-info must be a JSON object, such as '{\"task\": 42}'")
            }
            do {
                content.userInfo = try PropertyListValue.convert(json: object).mapValues(\.foundationValue)
            } catch {
                throw ValidationError("--user-info: \(error)")
            }
        }
        return content
    }

    /// Refuses a `--title-arg` (and the subtitle's and body's) without its key.
    func checkArguments() throws {
        for (key, arguments, name) in [(titleKey, titleArguments, "title"), (subtitleKey, subtitleArguments, "subtitle"),
            (bodyKey, bodyArguments, "body")] where key == nil && !arguments.isEmpty {
            throw ValidationError("--\(name)-arg needs --\(name)-key")
        }
    }

    /// The sound ``sound`` names: none, the default, a critical one or a named file.
    func notificationSound() -> UNNotificationSound? {
        switch sound {
        case "none": nil
        case "default": .default
        case "critical:default": .defaultCritical
        case let name where name.hasPrefix("critical:"):
            .criticalSoundNamed(UNNotificationSoundName(String(name.dropFirst(9))))
        case let name: UNNotificationSound(named: UNNotificationSoundName(name))
        }
    }

    /// The level ``interruptionLevel`` names.
    /// - Throws: `ValidationError` for a name that is not a level.
    func notificationInterruptionLevel() throws -> UNNotificationInterruptionLevel {
        switch interruptionLevel {
        case "passive": .passive
        case "active": .active
        case "time-sensitive": .timeSensitive
        case "critical": .critical
        default: throw ValidationError("--interruption-level takes passive, active, time-sensitive or critical")
        }
    }

    /// The value `NSString.localizedUserNotificationString(forKey:arguments:)` gives for a key of the bundle
    /// folder: resolved by the engine that delivers it, in the languages of that moment.
    func localized(_ key: String?, _ arguments: [String]) -> String? {
        guard let key else { return nil }
        return LocalizableString(key: key, arguments: arguments.map { .string($0) }, bundleDirectory: bundleFolder).encoded
    }

    /// The app's folder, absolute: `bundle-dir`, else `OPENUN_BUNDLE_DIR`, else the current folder.
    var bundleFolder: String {
        guard let bundleDirectory else { return Self.defaultBundleFolder }
        return URL(fileURLWithPath: bundleDirectory, isDirectory: true).standardizedFileURL.path
    }

    /// `OPENUN_BUNDLE_DIR`, else the current folder, absolute: read once (an import asks for it on every line).
    static let defaultBundleFolder: String = {
        let folder = ProcessInfo.processInfo.environment["OPENUN_BUNDLE_DIR"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.currentDirectoryPath
        return URL(fileURLWithPath: folder, isDirectory: true).standardizedFileURL.path
    }()
}

extension RequestFields {
    /// The keys a JSON line may have: `add`'s long option names, and `app`.
    static let jsonKeys: Set<String> = [
        "app", "id", "title", "subtitle", "body", "sound", "badge", "category", "thread", "user-info",
        "interruption-level", "missed", "title-key", "subtitle-key", "body-key", "title-arg", "subtitle-arg", "body-arg",
        "attachment", "bundle-dir", "icon", "app-name", "in", "at", "calendar", "repeats", "time-zone", "strict",
        "region", "region-id", "on-entry", "on-exit",
    ]

    /// The fields of one JSON object, as a line of `unotify import` has them.
    ///
    /// Each value is tried as its expected types before JSON's `null` (``isNull(_:)``): `is NSNull` on a string, an
    /// array or an object first bridges it to its Foundation class, which cost an import about a sixth of its parse.
    /// A flag takes `true` or `false` only and a badge a number only (0 and 1 included): ``jsonBoolean(_:)`` tells
    /// the two apart, which `as? Bool` cannot.
    /// - Throws: `ValidationError` for an unknown key or a value of the wrong type.
    init(json object: [String: Any]) throws {
        if object.keys.contains(where: { !Self.jsonKeys.contains($0) }),
            let unknown = object.keys.filter({ !Self.jsonKeys.contains($0) }).sorted().first
        {
            throw ValidationError("unknown field '\(unknown)' (the fields are add's options: title, body, in, calendar, ...)")
        }
        func string(_ key: String) throws -> String? {
            guard let value = object[key] else { return nil }
            if let text = value as? String { return text }
            guard Self.isNull(value) else { throw ValidationError("'\(key)' must be a string") }
            return nil
        }
        func strings(_ key: String) throws -> [String] {
            guard let value = object[key] else { return [] }
            if let text = value as? String { return [text] }
            if let list = value as? [Any] {
                guard let texts = list as? [String] else {
                    throw ValidationError("'\(key)' must be a string or a list of strings")
                }
                return texts
            }
            guard Self.isNull(value) else { throw ValidationError("'\(key)' must be a string or a list of strings") }
            return []
        }
        func flag(_ key: String) throws -> Bool {
            guard let value = object[key] else { return false }
            if let bool = Self.jsonBoolean(value) { return bool }
            guard Self.isNull(value) else { throw ValidationError("'\(key)' must be true or false") }
            return false
        }
        id = try string("id")
        title = try string("title") ?? ""
        subtitle = try string("subtitle") ?? ""
        body = try string("body") ?? ""
        sound = try string("sound") ?? "default"
        if let value = object["badge"], !Self.isNull(value) {
            guard Self.jsonBoolean(value) == nil,
                let whole = (value as? Int) ?? (value as? Double).flatMap({ Int(exactly: $0) })
            else {
                throw ValidationError("'badge' must be a whole number")
            }
            badge = whole
        }
        category = try string("category") ?? ""
        thread = try string("thread") ?? ""
        if let value = object["user-info"] {
            if let dictionary = value as? [String: Any] {
                userInfoObject = dictionary
            } else if let text = value as? String {
                userInfo = text
            } else if !Self.isNull(value) {
                throw ValidationError("'user-info' must be a JSON object")
            }
        }
        interruptionLevel = try string("interruption-level") ?? "active"
        missed = try string("missed") ?? "deliver"
        titleKey = try string("title-key")
        subtitleKey = try string("subtitle-key")
        bodyKey = try string("body-key")
        titleArguments = try strings("title-arg")
        subtitleArguments = try strings("subtitle-arg")
        bodyArguments = try strings("body-arg")
        attachments = try strings("attachment")
        bundleDirectory = try string("bundle-dir")
        icon = try string("icon")
        appName = try string("app-name")
        trigger = TriggerFields(
            interval: try string("in"), at: try string("at"), calendar: try string("calendar"), repeats: try flag("repeats"),
            timeZone: try string("time-zone"), strict: try flag("strict"), region: try string("region"),
            regionID: try string("region-id"), onEntry: try flag("on-entry"), onExit: try flag("on-exit"))
    }

    /// Whether a value `JSONSerialization` gave is JSON's `null`. Ask it after the types a field expects: on a Swift
    /// string, array or dictionary the `NSNull` check first bridges the value to its Foundation class.
    static func isNull(_ value: Any) -> Bool {
        value is NSNull
    }

    /// The value when `JSONSerialization` read it from `true` or `false`; `nil` for anything else, a number included
    /// (`as? Bool` takes a JSON 0 or 1 too: ``NSNumber/isJSONBoolean``).
    ///
    /// ```swift
    /// RequestFields.jsonBoolean(object["repeats"] as Any)   // true for `true`, nil for `1`
    /// ```
    static func jsonBoolean(_ value: Any) -> Bool? {
        guard let number = value as? NSNumber, number.isJSONBoolean else { return nil }
        return number.boolValue
    }
}
