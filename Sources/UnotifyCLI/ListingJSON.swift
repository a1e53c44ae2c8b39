import Foundation
import NotificationModel

/// The JSON shape of `unotify list`, `delivered` and `history` with `--json`: every field of the content and the
/// trigger, documented and checked against `docs/schemas/unotify-listings.schema.json`.
///
/// The shape is stable: fields are added, never renamed or removed. Each listing keeps its earlier flat fields
/// (`title`, `body`, a `trigger` description, ...) beside the whole `content` and `triggerDetails` objects.
enum ListingJSON {
    /// Everything a notification shows and carries.
    static func content(_ content: NotificationPayload) -> [String: Any] {
        var json: [String: Any] = [
            "title": content.title, "subtitle": content.subtitle, "body": content.body,
            "badge": content.badge ?? NSNull(), "sound": content.sound.map(sound) ?? NSNull(),
            "launchImageName": content.launchImageName, "userInfo": content.userInfo.mapValues(\.jsonValue),
            "attachments": content.attachments.map { ["identifier": $0.identifier, "url": $0.url.absoluteString, "type": $0.type] },
            "categoryIdentifier": content.categoryIdentifier, "threadIdentifier": content.threadIdentifier,
            "summaryArgument": content.summaryArgument, "summaryArgumentCount": content.summaryArgumentCount,
            "targetContentIdentifier": content.targetContentIdentifier ?? NSNull(),
            "interruptionLevel": interruptionLevel(content.interruptionLevel), "relevanceScore": content.relevanceScore,
            "filterCriteria": content.filterCriteria ?? NSNull(),
        ]
        json["communication"] = content.communication.map { communication -> [String: Any] in
            [
                "senderName": communication.senderName, "senderHandle": communication.senderHandle ?? NSNull(),
                "conversationIdentifier": communication.conversationIdentifier ?? NSNull(),
                "groupName": communication.groupName ?? NSNull(),
            ]
        } ?? NSNull()
        json["appAppearance"] = content.appAppearance.map { appearance -> [String: Any] in
            ["displayName": appearance.displayName ?? NSNull(), "icon": appearance.icon ?? NSNull()]
        } ?? NSNull()
        return json
    }

    /// The trigger, by kind: `none` (deliver now), `push`, `timeInterval`, `calendar` or `location`.
    static func trigger(_ trigger: TriggerSpec?) -> [String: Any] {
        var json: [String: Any] = ["description": Describe.trigger(trigger), "repeats": trigger?.repeats ?? false]
        switch trigger {
        case nil: json["type"] = "none"
        case .push: json["type"] = "push"
        case .timeInterval(let seconds, _):
            json["type"] = "timeInterval"
            json["timeInterval"] = seconds
        case .calendar(let components, _, let matching):
            json["type"] = "calendar"
            json["dateComponents"] = TriggerOptions.componentNames.reduce(into: [String: Int]()) { result, entry in
                if let value = components[keyPath: entry.value] { result[entry.key] = value }
            }
            json["timeZone"] = components.timeZoneIdentifier ?? NSNull()
            json["matching"] = matching == .strict ? "strict" : "apple"
        case .location(let region, _):
            json["type"] = "location"
            json["region"] = [
                "identifier": region.identifier, "latitude": region.latitude, "longitude": region.longitude,
                "radius": region.radius, "notifyOnEntry": region.notifyOnEntry, "notifyOnExit": region.notifyOnExit,
            ] as [String: Any]
        }
        return json
    }

    private static func sound(_ sound: SoundSpec) -> [String: Any] {
        [
            "name": sound.name ?? NSNull(), "critical": sound.isCritical, "ringtone": sound.isRingtone,
            "volume": sound.volume.map { Double($0) } ?? NSNull(),
        ]
    }

    /// Apple's `UNNotificationInterruptionLevel` raw values by name.
    private static func interruptionLevel(_ raw: UInt) -> String {
        switch raw {
        case 0: "passive"
        case 2: "timeSensitive"
        case 3: "critical"
        default: "active"
        }
    }
}
