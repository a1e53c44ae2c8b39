import Foundation
import NotificationModel
import OpenUserNotifications

extension RequestFields {
    /// The fields of an import line and its `app`, read straight from the line's bytes with ``FastJSONReader``;
    /// `nil` when the line has anything outside what it reads (an unknown key, a key given twice, `null`, a value of
    /// another type than its field takes, `user-info` given as text, an escape in a string, a number
    /// ``FastPayloadJSON`` leaves to Foundation, malformed JSON), and the caller reads the line with
    /// `JSONSerialization` and ``init(json:)``, which also names what is wrong.
    ///
    /// What it takes, it reads as ``FastPayloadJSON`` reads it (`user-info` with ``FastPayloadJSON``'s own reader), so
    /// as `JSONSerialization` and `PropertyListValue(json:)` do; each value has the one type its field takes, so the
    /// fields are those ``init(json:)`` makes of the same line (`RequestFieldsDirectTests` compares the two).
    ///
    /// ```swift
    /// if let (fields, app) = RequestFields.direct(line: bytes), let spec = try fields.directSpec() { ... }
    /// ```
    static func direct(line: UnsafeRawBufferPointer) -> (fields: RequestFields, app: String?)? {
        var reader = FastJSONReader(bytes: line, strings: .plain)
        reader.skipSpace()
        guard reader.peek == UInt8(ascii: "{") else { return nil }
        var fields = RequestFields()
        var app: String?
        var seen: UInt64 = 0
        func string(_ reader: inout FastJSONReader) -> String? {
            reader.skipSpace()
            return reader.string()
        }
        func strings(_ reader: inout FastJSONReader) -> [String]? {
            reader.skipSpace()
            guard reader.peek == UInt8(ascii: "[") else { return reader.string().map { [$0] } }
            var texts: [String] = []
            let read = reader.array { reader in
                guard let text = string(&reader) else { return false }
                texts.append(text)
                return true
            }
            return read ? texts : nil
        }
        func flag(_ reader: inout FastJSONReader) -> Bool? {
            reader.skipSpace()
            if reader.literal("true") { return true }
            if reader.literal("false") { return false }
            return nil
        }
        let read = reader.object { reader, name in
            guard let key = Key(name: name), seen & key.bit == 0 else { return false }
            seen |= key.bit
            switch key {
            case .app:
                guard let text = string(&reader) else { return false }
                app = text
            case .id:
                guard let text = string(&reader) else { return false }
                fields.id = text
            case .title:
                guard let text = string(&reader) else { return false }
                fields.title = text
            case .subtitle:
                guard let text = string(&reader) else { return false }
                fields.subtitle = text
            case .body:
                guard let text = string(&reader) else { return false }
                fields.body = text
            case .sound:
                guard let text = string(&reader) else { return false }
                fields.sound = text
            case .badge:
                reader.skipSpace()
                guard let number = reader.number(), let whole = number.integer else { return false }
                fields.badge = whole
            case .category:
                guard let text = string(&reader) else { return false }
                fields.category = text
            case .thread:
                guard let text = string(&reader) else { return false }
                fields.thread = text
            case .userInfo:
                reader.skipSpace()
                guard reader.peek == UInt8(ascii: "{"), let object = FastPayloadJSON.object(&reader, depth: 1) else {
                    return false
                }
                fields.userInfoProperties = object
            case .interruptionLevel:
                guard let text = string(&reader) else { return false }
                fields.interruptionLevel = text
            case .missed:
                guard let text = string(&reader) else { return false }
                fields.missed = text
            case .titleKey:
                guard let text = string(&reader) else { return false }
                fields.titleKey = text
            case .subtitleKey:
                guard let text = string(&reader) else { return false }
                fields.subtitleKey = text
            case .bodyKey:
                guard let text = string(&reader) else { return false }
                fields.bodyKey = text
            case .titleArgument:
                guard let texts = strings(&reader) else { return false }
                fields.titleArguments = texts
            case .subtitleArgument:
                guard let texts = strings(&reader) else { return false }
                fields.subtitleArguments = texts
            case .bodyArgument:
                guard let texts = strings(&reader) else { return false }
                fields.bodyArguments = texts
            case .attachment:
                guard let texts = strings(&reader) else { return false }
                fields.attachments = texts
            case .bundleDirectory:
                guard let text = string(&reader) else { return false }
                fields.bundleDirectory = text
            case .icon:
                guard let text = string(&reader) else { return false }
                fields.icon = text
            case .appName:
                guard let text = string(&reader) else { return false }
                fields.appName = text
            case .interval:
                guard let text = string(&reader) else { return false }
                fields.trigger.interval = text
            case .at:
                guard let text = string(&reader) else { return false }
                fields.trigger.at = text
            case .calendar:
                guard let text = string(&reader) else { return false }
                fields.trigger.calendar = text
            case .repeats:
                guard let value = flag(&reader) else { return false }
                fields.trigger.repeats = value
            case .timeZone:
                guard let text = string(&reader) else { return false }
                fields.trigger.timeZone = text
            case .strict:
                guard let value = flag(&reader) else { return false }
                fields.trigger.strict = value
            case .region:
                guard let text = string(&reader) else { return false }
                fields.trigger.region = text
            case .regionID:
                guard let text = string(&reader) else { return false }
                fields.trigger.regionID = text
            case .onEntry:
                guard let value = flag(&reader) else { return false }
                fields.trigger.onEntry = value
            case .onExit:
                guard let value = flag(&reader) else { return false }
                fields.trigger.onExit = value
            }
            return true
        }
        guard read else { return nil }
        reader.skipSpace()
        return reader.atEnd ? (fields, app) : nil
    }

    /// The keys of an import line (``jsonKeys``), as ``direct(line:)`` reads them.
    enum Key: Int, CaseIterable {
        case app, id, title, subtitle, body, sound, badge, category, thread, userInfo, interruptionLevel, missed
        case titleKey, subtitleKey, bodyKey, titleArgument, subtitleArgument, bodyArgument, attachment
        case bundleDirectory, icon, appName, interval, at, calendar, repeats, timeZone, strict, region, regionID
        case onEntry, onExit

        /// The key as a line spells it.
        var name: String {
            switch self {
            case .app: "app"
            case .id: "id"
            case .title: "title"
            case .subtitle: "subtitle"
            case .body: "body"
            case .sound: "sound"
            case .badge: "badge"
            case .category: "category"
            case .thread: "thread"
            case .userInfo: "user-info"
            case .interruptionLevel: "interruption-level"
            case .missed: "missed"
            case .titleKey: "title-key"
            case .subtitleKey: "subtitle-key"
            case .bodyKey: "body-key"
            case .titleArgument: "title-arg"
            case .subtitleArgument: "subtitle-arg"
            case .bodyArgument: "body-arg"
            case .attachment: "attachment"
            case .bundleDirectory: "bundle-dir"
            case .icon: "icon"
            case .appName: "app-name"
            case .interval: "in"
            case .at: "at"
            case .calendar: "calendar"
            case .repeats: "repeats"
            case .timeZone: "time-zone"
            case .strict: "strict"
            case .region: "region"
            case .regionID: "region-id"
            case .onEntry: "on-entry"
            case .onExit: "on-exit"
            }
        }

        /// The key's bit in a set of keys.
        var bit: UInt64 { 1 << UInt64(rawValue) }

        /// The keys by the length of their names: a line's key is compared with the two or three of its length
        /// (a `String`-backed enum compares it with every name in turn; a dictionary hashes it).
        private static let byLength: [[Key]] = {
            var table = [[Key]](repeating: [], count: 1 + allCases.map(\.name.utf8.count).max()!)
            for key in allCases { table[key.name.utf8.count].append(key) }
            return table
        }()

        /// The key spelled `name`; `nil` for a name that is not a key.
        init?(name: String) {
            let length = name.utf8.count
            guard length < Self.byLength.count, let key = Self.byLength[length].first(where: { $0.name == name }) else {
                return nil
            }
            self = key
        }
    }

    /// The request's spec built directly: what `request().spec()` gives for these fields, without the
    /// `UNNotificationRequest`, its content object and the round trip of `userInfo` through Foundation's types that
    /// cost an import about a third of its parse. `nil` for fields only ``request()`` handles (attachments, and
    /// `userInfo` other than ``userInfoProperties``).
    ///
    /// The field rules are ``request()``'s own (``checkArguments()``, ``notificationSound()``,
    /// ``notificationInterruptionLevel()``, ``localized(_:_:)``, `TriggerFields.trigger()`); a calendar or location
    /// trigger still takes its round trip through its `UNNotificationTrigger`, as ``request()`` does, and a time
    /// interval is what its trigger gives back. `RequestFieldsDirectTests` compares the two paths.
    /// - Throws: What ``request()`` would throw for the same fields (the import then takes the slow path, which
    ///   throws it with its message).
    func directSpec() throws -> RequestSpec? {
        guard attachments.isEmpty, userInfoObject == nil, userInfo == nil else { return nil }
        var trigger = try trigger.trigger()
        guard let policy = MissedFirePolicy(argument: missed) else { return nil }
        try checkArguments()
        var content = NotificationPayload()
        content.title = localized(titleKey, titleArguments) ?? title
        content.subtitle = localized(subtitleKey, subtitleArguments) ?? subtitle
        content.body = localized(bodyKey, bodyArguments) ?? body
        content.badge = badge
        content.categoryIdentifier = category
        content.threadIdentifier = thread
        content.sound = notificationSound()?.spec
        content.interruptionLevel = try notificationInterruptionLevel().rawValue
        if let userInfoProperties {
            try PropertyListValue.checkLimits(of: userInfoProperties, path: "userInfo")
            content.userInfo = userInfoProperties
        }
        switch trigger {
        case nil, .timeInterval?: break
        case let other?: trigger = UNNotificationTrigger.make(other).spec
        }
        return RequestSpec(
            identifier: id ?? UUID().uuidString, content: content, trigger: trigger, missedFirePolicy: policy)
    }
}
