import Foundation
import NotificationModel
import NotificationStorePostgres

/// The push service's JSON: a push body of `POST /v1/pushes` into a ``PushMessage``, and statistics out, with errors
/// that name the field at fault.
enum PushJSON {
    /// The fields of a push.
    static let fields: Set<String> = [
        "target", "title", "subtitle", "body", "badge", "sound", "category", "thread", "extras", "sendAt", "localTime",
        "expiresAt", "collapseId", "mutableContent", "contentAvailable",
    ]

    /// A push from its JSON object (`path` names it in errors, e.g. `pushes[3].`).
    static func push(_ object: [String: Any], path: String, now: Date) throws -> PushMessage {
        if let unknown = object.keys.sorted().first(where: { !fields.contains($0) }) {
            throw ServerAPIError.badRequest("\(path)\(unknown) is not a field of a push")
        }
        guard let targetValue = object["target"] else {
            throw ServerAPIError.badRequest("\(path)target is required")
        }
        let target = try self.target(targetValue, path: path + "target")
        var content = NotificationPayload()
        content.title = try string(object, "title", path) ?? ""
        content.subtitle = try string(object, "subtitle", path) ?? ""
        content.body = try string(object, "body", path) ?? ""
        content.categoryIdentifier = try string(object, "category", path) ?? ""
        content.threadIdentifier = try string(object, "thread", path) ?? ""
        if let badge = object["badge"], !(badge is NSNull) {
            guard let number = badge as? NSNumber, !ServerAPIJSON.isBoolean(number),
                number.doubleValue == number.doubleValue.rounded(), abs(number.doubleValue) < 1e9
            else { throw ServerAPIError.badRequest("\(path)badge must be an integer") }
            content.badge = number.intValue
        }
        let mutableContent = try ServerAPIJSON.boolean(object, "mutableContent", path: path) ?? false
        let contentAvailable = try ServerAPIJSON.boolean(object, "contentAvailable", path: path) ?? false
        let background = APNsOptions(contentAvailable: contentAvailable).isBackgroundPush(content)
        switch try string(object, "sound", path) ?? (background ? "none" : "default") {
        case "none": content.sound = nil
        case "default": content.sound = SoundSpec()
        case let name: content.sound = SoundSpec(name: name)
        }
        if let extras = object["extras"], !(extras is NSNull) {
            guard let dictionary = extras as? [String: Any] else {
                throw ServerAPIError.badRequest("\(path)extras must be an object")
            }
            do { content.userInfo = try PropertyListValue.convert(json: dictionary) } catch {
                throw ServerAPIError.badRequest("\(path)extras: \(error)")
            }
            if dictionary["aps"] != nil || dictionary[PushMessage.messageIDKey] != nil {
                throw ServerAPIError.badRequest(
                    "\(path)extras may not have the keys aps and \(PushMessage.messageIDKey)")
            }
        }
        guard content.hasVisibleText || contentAvailable else {
            throw ServerAPIError.badRequest(
                "\(path)a push needs a title, subtitle or body, or contentAvailable (a background push)")
        }
        let sendAt = try instant(object, "sendAt", path)
        let localTime = try string(object, "localTime", path)
        let sendTime: PushSendTime
        switch (sendAt, localTime) {
        case (nil, nil): sendTime = .now
        case (let date?, nil): sendTime = .at(date)
        case (nil, let wall?): sendTime = .localTime(try components(wall, path: path + "localTime"))
        default: throw ServerAPIError.badRequest("\(path)sendAt and localTime exclude each other")
        }
        let expiresAt = try instant(object, "expiresAt", path)
        if let expiresAt, expiresAt <= now {
            throw ServerAPIError.badRequest("\(path)expiresAt is in the past")
        }
        let collapseID = try string(object, "collapseId", path)
        if let collapseID, collapseID.isEmpty || collapseID.utf8.count > APNsOptions.collapseIDLimit {
            throw ServerAPIError.badRequest(
                "\(path)collapseId has 1 to \(APNsOptions.collapseIDLimit) bytes (UTF-8)")
        }
        var push = PushMessage(
            target: target, content: content, sendTime: sendTime, expiresAt: expiresAt, collapseID: collapseID,
            createdAt: now)
        push.mutableContent = mutableContent
        push.contentAvailable = contentAvailable
        return push
    }

    /// A target: an object with exactly one of `devices`, `account`, `alias`, `tag`, `all`.
    static func target(_ value: Any, path: String) throws -> PushTarget {
        guard let object = value as? [String: Any], object.count == 1, let entry = object.first else {
            throw ServerAPIError(
                .badRequest, reason: "UnknownTarget",
                detail: "\(path) must be an object with one of devices, account, alias, tag, all")
        }
        switch entry.key {
        case "devices":
            guard let ids = entry.value as? [String], !ids.isEmpty, ids.allSatisfy({ !$0.isEmpty }) else {
                throw ServerAPIError.badRequest("\(path).devices must be a non-empty array of device identifiers")
            }
            guard ids.count <= PushTarget.maximumDevices else {
                throw ServerAPIError(
                    .badRequest, reason: "TooManyDevices",
                    detail:
                        "\(path).devices has \(ids.count) identifiers: a push lists at most \(PushTarget.maximumDevices)"
                )
            }
            return .devices(ids)
        case "account", "alias":
            guard let name = entry.value as? String else {
                throw ServerAPIError.badRequest("\(path).\(entry.key) must be a string")
            }
            return entry.key == "account" ? .account(name) : .alias(name)
        case "tag":
            return .tag(try ServerAPI.tagExpression(entry.value, path: path + ".tag"))
        case "all":
            // `as? Bool` would take a 1 too: JSONSerialization's NSNumber of a 1 also bridges to `Bool`.
            guard let flag = entry.value as? NSNumber, ServerAPIJSON.isBoolean(flag), flag.boolValue else {
                throw ServerAPIError.badRequest("\(path).all must be true")
            }
            return .all
        default:
            throw ServerAPIError(
                .badRequest, reason: "UnknownTarget",
                detail: "\(path) has \"\(entry.key.prefix(40))\": a target is one of devices, account, alias, tag, all")
        }
    }

    /// `2026-11-27T09:00` (or with `:ss`): a wall-clock time without zone.
    static func components(_ text: String, path: String) throws -> CalendarComponents {
        let parts = text.split(separator: "T")
        let date = parts.first?.split(separator: "-").compactMap { Int($0) } ?? []
        let time = parts.count == 2 ? parts[1].split(separator: ":").compactMap { Int($0) } : []
        guard parts.count == 2, date.count == 3, time.count == 2 || time.count == 3,
            (1...12).contains(date[1]), (1...31).contains(date[2]), (0...23).contains(time[0]),
            (0...59).contains(time[1])
        else {
            throw ServerAPIError.badRequest("\(path) must be a local time such as 2026-11-27T09:00 (no zone)")
        }
        var components = CalendarComponents()
        (components.year, components.month, components.day) = (date[0], date[1], date[2])
        (components.hour, components.minute) = (time[0], time[1])
        if time.count == 3 { components.second = time[2] }
        return components
    }

    /// A receipt: `{"messageId": "...", "kind": "opened", "action": "...", "at": "<ISO 8601>"}` (`at` defaults to
    /// now, `action` only for the kind `action`).
    static func receipt(_ value: Any, path: String, now: Date) throws -> PushReceipt {
        guard let object = value as? [String: Any] else { throw ServerAPIError.badRequest("\(path) must be an object") }
        if let unknown = object.keys.sorted().first(where: { !["messageId", "kind", "action", "at"].contains($0) }) {
            throw ServerAPIError.badRequest("\(path).\(unknown) is not a field of a receipt")
        }
        guard let messageID = try string(object, "messageId", path + "."), !messageID.isEmpty else {
            throw ServerAPIError.badRequest("\(path).messageId is required")
        }
        guard let kindName = try string(object, "kind", path + "."), let kind = PushReceipt.Kind(rawValue: kindName)
        else {
            throw ServerAPIError.badRequest("\(path).kind must be received, opened, dismissed or action")
        }
        let action = try string(object, "action", path + ".")
        guard (kind == .action) == (action != nil) else {
            throw ServerAPIError.badRequest("\(path).action is given for the kind action, and only for it")
        }
        return PushReceipt(
            messageID: messageID, kind: kind, action: action, date: try instant(object, "at", path + ".") ?? now)
    }

    // MARK: - Writing

    static func json(_ statistics: PushStatistics) -> [String: Any] {
        var object: [String: Any] = [
            "targeted": statistics.targeted, "sent": statistics.sent, "accepted": statistics.accepted,
            "failed": statistics.failedCount, "failedByReason": statistics.failed, "cancelled": statistics.cancelled,
            "pending": statistics.pending, "received": statistics.received, "opened": statistics.opened,
            "dismissed": statistics.dismissed, "actions": statistics.actions,
        ]
        if let id = statistics.messageID { object["messageId"] = id }
        object["byHour"] = statistics.byHour.map { hour in
            [
                "hour": hour.start.ISO8601Format(), "accepted": hour.accepted, "failed": hour.failed,
                "received": hour.received, "opened": hour.opened,
            ] as [String: Any]
        }
        return object
    }

    static func json(_ push: PushMessage, _ statistics: PushStatistics?) -> [String: Any] {
        var object: [String: Any] = [
            "messageId": push.id, "state": push.state.rawValue, "target": push.target.kind,
            "createdAt": push.createdAt.ISO8601Format(), "title": push.content.title,
        ]
        if let expiresAt = push.expiresAt { object["expiresAt"] = expiresAt.ISO8601Format() }
        if let collapseID = push.apnsOptions.collapseID { object["collapseId"] = collapseID }
        if push.mutableContent { object["mutableContent"] = true }
        if push.contentAvailable { object["contentAvailable"] = true }
        if let statistics { object["statistics"] = json(statistics) }
        return object
    }

    // MARK: - Fields

    private static func string(_ object: [String: Any], _ key: String, _ path: String) throws -> String? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let string = value as? String else { throw ServerAPIError.badRequest("\(path)\(key) must be a string") }
        return string
    }

    private static func instant(_ object: [String: Any], _ key: String, _ path: String) throws -> Date? {
        guard let text = try string(object, key, path) else { return nil }
        guard let date = try? Date(text, strategy: .iso8601) else {
            throw ServerAPIError.badRequest("\(path)\(key) must be an ISO 8601 instant such as 2026-11-27T08:00:00Z")
        }
        return date
    }
}
