import Foundation

/// An APNs payload, parsed and checked: the `aps` dictionary's keys as typed values, and the whole payload as
/// the `userInfo` the app receives.
///
/// ``parse(_:pushType:)`` accepts any bytes and never traps: it returns a payload or throws the ``APNsReason``
/// APNs answers with. The rules, from Apple's payload key reference and the APNs provider API:
/// - an empty body is `PayloadEmpty` (400); a body longer than the push type's limit (4096 bytes, 5120 for VoIP)
///   is `PayloadTooLarge` (413);
/// - a body that is not a JSON object with an `aps` dictionary is `PayloadEmpty` too: Apple's table has no
///   reason for malformed JSON, and such a body carries no notification payload (`simctl push` refuses it as
///   well);
/// - an `aps` key of the wrong type (a badge that is text, an unknown interruption level, a relevance score above
///   1) is ignored and listed in ``ignoredKeys``, as a device ignores it; APNs itself accepts the request;
/// - every top-level key but `Simulator Target Bundle` goes into ``userInfo``, `aps` included, as iOS hands the
///   payload to `didReceiveRemoteNotification` and `UNNotificationContent.userInfo`. JSON `null`, which a
///   property list cannot hold, is left out.
///
/// ```swift
/// let payload = try APNsPayload.parse(Data(#"{"aps":{"alert":"Hello","badge":3}}"#.utf8))
/// payload.content(bundleDirectory: nil).body   // "Hello"
/// payload.isBackground                         // false
/// ```
public struct APNsPayload: Sendable, Hashable {
    /// The `aps.alert` value, from a string (the body) or a dictionary.
    public struct Alert: Sendable, Hashable {
        /// `title`.
        public var title: String = ""
        /// `subtitle`.
        public var subtitle: String = ""
        /// `body`, or the whole alert when it is a string.
        public var body: String = ""
        /// `launch-image`.
        public var launchImage: String = ""
        /// `title-loc-key` with `title-loc-args`: replaces ``title``, resolved at delivery.
        public var titleLocalization: LocalizableString?
        /// `subtitle-loc-key` with `subtitle-loc-args`: replaces ``subtitle``, resolved at delivery.
        public var subtitleLocalization: LocalizableString?
        /// `loc-key` with `loc-args`: replaces ``body``, resolved at delivery.
        public var bodyLocalization: LocalizableString?
        /// `summary-arg` (iOS 12 group summaries).
        public var summaryArgument: String?
        /// `summary-arg-count`.
        public var summaryArgumentCount: Int?

        /// An empty alert.
        public init() {}

        /// Whether the alert shows anything: some text or a localization key.
        public var isVisible: Bool {
            !(title.isEmpty && subtitle.isEmpty && body.isEmpty) || titleLocalization != nil
                || subtitleLocalization != nil || bodyLocalization != nil
        }
    }

    /// `aps.alert`; `nil` when absent or not a string or dictionary.
    public var alert: Alert?
    /// `aps.badge`, a whole number ≥ 0; `nil` leaves the badge as it is.
    public var badge: Int?
    /// `aps.sound`: `"default"`, a file name, or `{critical, name, volume}`.
    public var sound: SoundSpec?
    /// `aps.thread-id`.
    public var threadIdentifier: String = ""
    /// `aps.category`.
    public var categoryIdentifier: String = ""
    /// `aps.content-available` is 1.
    public var contentAvailable: Bool = false
    /// `aps.mutable-content` is 1.
    public var mutableContent: Bool = false
    /// `aps.target-content-id`.
    public var targetContentIdentifier: String?
    /// `aps.interruption-level` as the raw value of `UNNotificationInterruptionLevel` (passive 0, active 1,
    /// time-sensitive 2, critical 3).
    public var interruptionLevel: UInt?
    /// `aps.relevance-score`, 0 to 1.
    public var relevanceScore: Double?
    /// `aps.filter-criteria`.
    public var filterCriteria: String?
    /// The whole payload, `aps` included, without `Simulator Target Bundle`.
    public var userInfo: [String: PropertyListValue] = [:]
    /// The `Simulator Target Bundle` of an `.apns` file: the app the file is meant for.
    public var simulatorTargetBundle: String?
    /// The keys (as paths such as `aps.badge`) that were ignored because of their type or value.
    public var ignoredKeys: [String] = []
    /// The body's length in bytes.
    public var byteCount: Int = 0

    /// The key of an `.apns` file naming the target app.
    public static let simulatorTargetBundleKey = "Simulator Target Bundle"

    /// An empty payload, for building one by hand.
    public init() {}

    /// Whether this is a background push: `content-available` without alert, sound or badge. It is handed to the
    /// app, not shown.
    public var isBackground: Bool {
        contentAvailable && !(alert?.isVisible ?? false) && sound == nil && badge == nil
    }

    /// The notification content the payload describes.
    ///
    /// Localization keys become ``LocalizableString`` encodings that the engine resolves at delivery, in the
    /// person's languages then, like `localizedUserNotificationString(forKey:arguments:)`.
    ///
    /// - Parameter bundleDirectory: The app's folder, where its `Localizable` tables, named sounds and `Info.plist`
    ///   (its name and icon on the desktop) are; `nil` shows localization keys formatted with their arguments.
    /// - Returns: The content, with ``userInfo`` as its `userInfo`.
    public func content(bundleDirectory: String?) -> NotificationPayload {
        var content = NotificationPayload()
        if let alert {
            content.title = alert.titleLocalization.map { encoded($0, bundleDirectory) } ?? alert.title
            content.subtitle = alert.subtitleLocalization.map { encoded($0, bundleDirectory) } ?? alert.subtitle
            content.body = alert.bodyLocalization.map { encoded($0, bundleDirectory) } ?? alert.body
            content.launchImageName = alert.launchImage
            if let argument = alert.summaryArgument { content.summaryArgument = argument }
            if let count = alert.summaryArgumentCount { content.summaryArgumentCount = count }
        }
        content.badge = badge
        if var sound {
            if sound.name != nil { sound.bundleDirectory = bundleDirectory }
            content.sound = sound
        }
        content.threadIdentifier = threadIdentifier
        content.categoryIdentifier = categoryIdentifier
        content.targetContentIdentifier = targetContentIdentifier
        if let interruptionLevel { content.interruptionLevel = interruptionLevel }
        if let relevanceScore { content.relevanceScore = relevanceScore }
        content.filterCriteria = filterCriteria
        content.userInfo = userInfo
        content.appAppearance = bundleDirectory.flatMap {
            AppAppearance.fromInfoPlist(inBundleDirectory: URL(fileURLWithPath: $0, isDirectory: true))
        }
        return content
    }

    private func encoded(_ string: LocalizableString, _ bundleDirectory: String?) -> String {
        var string = string
        string.bundleDirectory = bundleDirectory
        return string.encoded
    }

    // MARK: - Parsing

    /// Parses and checks a payload.
    ///
    /// - Parameters:
    ///   - body: The request body or `.apns` file, UTF-8 JSON.
    ///   - pushType: The `apns-push-type`, which sets the size limit (5120 bytes for VoIP, 4096 otherwise).
    /// - Returns: The payload.
    /// - Throws: ``APNsReason/payloadEmpty`` for an empty body or one that is not a JSON object with an `aps`
    ///   dictionary; ``APNsReason/payloadTooLarge`` above the limit.
    public static func parse(_ body: Data, pushType: APNsPushType = .alert) throws(APNsReason) -> APNsPayload {
        guard !body.isEmpty else { throw APNsReason.payloadEmpty.with(detail: "the payload is empty") }
        guard body.count <= pushType.payloadLimit else {
            throw APNsReason.payloadTooLarge.with(
                detail: "the payload has \(body.count) bytes; a \(pushType.rawValue) push may have \(pushType.payloadLimit)")
        }
        var ignored: [String] = []
        var top: [String: PropertyListValue]
        if let object = FastPayloadJSON.object(body) {
            // The common payload, read without Foundation's objects; it has no null to leave out.
            top = object
        } else {
            let object: Any
            do {
                object = try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
            } catch {
                throw APNsReason.payloadEmpty.with(detail: "the payload is not JSON")
            }
            guard let dictionary = object as? [String: Any] else {
                throw APNsReason.payloadEmpty.with(detail: "the payload is not a JSON object")
            }
            top = convert(dictionary, path: "", ignored: &ignored)
        }
        var payload = APNsPayload()
        payload.byteCount = body.count
        if let target = top.removeValue(forKey: simulatorTargetBundleKey) {
            if case let .string(bundle) = target, !bundle.isEmpty {
                payload.simulatorTargetBundle = bundle
            } else {
                ignored.append(simulatorTargetBundleKey)
            }
        }
        guard case let .dictionary(aps)? = top["aps"] else {
            throw APNsReason.payloadEmpty.with(detail: "the payload has no \"aps\" dictionary")
        }
        payload.userInfo = top
        payload.read(aps, ignored: &ignored)
        payload.ignoredKeys = ignored.sorted()
        return payload
    }

    private mutating func read(_ aps: [String: PropertyListValue], ignored: inout [String]) {
        for (key, value) in aps {
            let path = "aps.\(key)"
            var ok = true
            switch key {
            case "alert":
                switch value {
                case let .string(text):
                    var alert = Alert()
                    alert.body = text
                    self.alert = alert
                case let .dictionary(fields): alert = Self.readAlert(fields, ignored: &ignored)
                default: ok = false
                }
            case "badge":
                if let number = Self.wholeNumber(value), number >= 0 { badge = number } else { ok = false }
            case "sound": ok = readSound(value, path: path, ignored: &ignored)
            case "thread-id":
                if case let .string(text) = value { threadIdentifier = text } else { ok = false }
            case "category":
                if case let .string(text) = value { categoryIdentifier = text } else { ok = false }
            case "content-available":
                if let flag = Self.flag(value) { contentAvailable = flag } else { ok = false }
            case "mutable-content":
                if let flag = Self.flag(value) { mutableContent = flag } else { ok = false }
            case "target-content-id":
                if case let .string(text) = value { targetContentIdentifier = text } else { ok = false }
            case "interruption-level":
                if case let .string(text) = value, let level = Self.interruptionLevels[text] {
                    interruptionLevel = level
                } else {
                    ok = false
                }
            case "relevance-score":
                if let score = Self.number(value), score >= 0, score <= 1 { relevanceScore = score } else { ok = false }
            case "filter-criteria":
                if case let .string(text) = value { filterCriteria = text } else { ok = false }
            default:
                break  // Live Activity, widget and future keys stay in userInfo["aps"] for the app.
            }
            if !ok { ignored.append(path) }
        }
    }

    private static func readAlert(_ fields: [String: PropertyListValue], ignored: inout [String]) -> Alert {
        var alert = Alert()
        func text(_ key: String) -> String? {
            guard let value = fields[key] else { return nil }
            if case let .string(text) = value { return text }
            ignored.append("aps.alert.\(key)")
            return nil
        }
        func arguments(_ key: String) -> [LocalizableString.Argument] {
            guard let value = fields[key] else { return [] }
            guard case let .array(items) = value else {
                ignored.append("aps.alert.\(key)")
                return []
            }
            var result: [LocalizableString.Argument] = []
            for (index, item) in items.enumerated() {
                switch item {
                case let .string(text): result.append(.string(text))
                case let .integer(number): result.append(.int(Int64(number)))
                case let .double(number): result.append(.double(number))
                case let .bool(flag): result.append(.string(flag ? "true" : "false"))
                default: ignored.append("aps.alert.\(key)[\(index)]")
                }
            }
            return result
        }
        func localization(_ keyName: String, _ argumentsName: String) -> LocalizableString? {
            let arguments = arguments(argumentsName)
            guard let key = text(keyName) else { return nil }
            return LocalizableString(key: key, arguments: arguments)
        }
        alert.title = text("title") ?? ""
        alert.subtitle = text("subtitle") ?? ""
        alert.body = text("body") ?? ""
        alert.launchImage = text("launch-image") ?? ""
        alert.titleLocalization = localization("title-loc-key", "title-loc-args")
        alert.subtitleLocalization = localization("subtitle-loc-key", "subtitle-loc-args")
        alert.bodyLocalization = localization("loc-key", "loc-args")
        alert.summaryArgument = text("summary-arg")
        if let value = fields["summary-arg-count"] {
            if let count = wholeNumber(value), count >= 0 { alert.summaryArgumentCount = count } else {
                ignored.append("aps.alert.summary-arg-count")
            }
        }
        return alert
    }

    private mutating func readSound(_ value: PropertyListValue, path: String, ignored: inout [String]) -> Bool {
        switch value {
        case let .string(name):
            guard !name.isEmpty else { return false }
            sound = SoundSpec(name: name == "default" ? nil : name)
            return true
        case let .dictionary(fields):
            var spec = SoundSpec()
            if let value = fields["critical"] {
                if let flag = Self.flag(value) { spec.isCritical = flag } else { ignored.append("\(path).critical") }
            }
            if let value = fields["name"] {
                if case let .string(name) = value, !name.isEmpty {
                    spec.name = name == "default" ? nil : name
                } else {
                    ignored.append("\(path).name")
                }
            }
            if let value = fields["volume"] {
                if let volume = Self.number(value), volume >= 0, volume <= 1 {
                    spec.volume = Float(volume)
                } else {
                    ignored.append("\(path).volume")
                }
            }
            sound = spec
            return true
        default:
            return false
        }
    }

    private static let interruptionLevels: [String: UInt] = [
        "passive": 0, "active": 1, "time-sensitive": 2, "critical": 3,
    ]

    /// A whole number: an integer, or a double without a fraction that fits.
    private static func wholeNumber(_ value: PropertyListValue) -> Int? {
        switch value {
        case let .integer(number): return number
        case let .double(number):
            guard number.isFinite, number == number.rounded(), abs(number) < 9e15 else { return nil }
            return Int(number)
        default: return nil
        }
    }

    private static func number(_ value: PropertyListValue) -> Double? {
        switch value {
        case let .integer(number): return Double(number)
        case let .double(number): return number.isFinite ? number : nil
        default: return nil
        }
    }

    /// `content-available`, `mutable-content` and `critical`: 1 or 0 (APNs' form), or a JSON boolean.
    private static func flag(_ value: PropertyListValue) -> Bool? {
        switch value {
        case let .bool(flag): return flag
        case let .integer(number) where number == 0 || number == 1: return number == 1
        case let .double(number) where number == 0 || number == 1: return number == 1
        default: return nil
        }
    }

    /// JSON to property-list values, leaving out `null` (recorded in `ignored`).
    private static func convert(_ object: [String: Any], path: String, ignored: inout [String]) -> [String: PropertyListValue] {
        var result: [String: PropertyListValue] = [:]
        for (key, element) in object {
            let elementPath = path.isEmpty ? key : "\(path).\(key)"
            if let value = convert(element: element, path: elementPath, ignored: &ignored) { result[key] = value }
        }
        return result
    }

    private static func convert(element: Any, path: String, ignored: inout [String]) -> PropertyListValue? {
        switch element {
        case let dictionary as [String: Any]:
            return .dictionary(convert(dictionary, path: path, ignored: &ignored))
        case let array as [Any]:
            var items: [PropertyListValue] = []
            for (index, item) in array.enumerated() {
                if let value = convert(element: item, path: "\(path)[\(index)]", ignored: &ignored) { items.append(value) }
            }
            return .array(items)
        case is NSNull:
            ignored.append(path)
            return nil
        default:
            guard let value = try? PropertyListValue(json: element, path: path) else {
                ignored.append(path)
                return nil
            }
            return value
        }
    }
}
