import Foundation
import NotificationModel

/// Turns a due request's content into the JSON payload APNs takes: `aps` with the alert, badge, sound, thread and
/// category, and the request's `userInfo` keys beside it, as an app's push handler reads them.
///
/// ```swift
/// let payload = try APNsPayloadEncoder.payload(for: notification.request.content)
/// // {"aps":{"alert":{"title":"Class","body":"starts in 10 minutes"},"sound":"default"},"room":"B12"}
/// ```
public enum APNsPayloadEncoder {
    /// The payload for `content`.
    ///
    /// - Parameters:
    ///   - content: The request's content.
    ///   - options: The request's APNs options: `mutable-content` and `content-available` come from them.
    /// - Returns: UTF-8 JSON, keys sorted.
    /// - Throws: `EncodingError` when a `userInfo` value cannot be written as JSON (a non-finite number).
    public static func payload(for content: NotificationPayload, options: APNsOptions? = nil) throws -> Data {
        var aps: [String: Any] = [:]
        var alert: [String: Any] = [:]
        for (text, plain, prefix) in [
            (content.title, "title", "title-"), (content.subtitle, "subtitle", "subtitle-"), (content.body, "body", ""),
        ] where !text.isEmpty {
            // A `localizedUserNotificationString` value travels as its key and arguments, for the device to localize
            // in its own language (as APNs documents `title-loc-key`, `loc-key`, ...). A text that mixes plain text
            // and such a value cannot: it is sent with each value's key in place of the value.
            if let localizable = LocalizableString.decode(text) {
                alert[prefix + "loc-key"] = localizable.key
                if !localizable.arguments.isEmpty { alert[prefix + "loc-args"] = localizable.arguments.map(\.description) }
            } else {
                alert[plain] = LocalizableString.segments(of: text).map { segment in
                    switch segment {
                    case .text(let text): return text
                    case .localizable(let value): return value.key
                    }
                }.joined()
            }
        }
        if !alert.isEmpty { aps["alert"] = alert }
        if let badge = content.badge { aps["badge"] = badge }
        if let sound = content.sound {
            aps["sound"] = sound.name ?? "default"
        }
        if !content.threadIdentifier.isEmpty { aps["thread-id"] = content.threadIdentifier }
        if !content.categoryIdentifier.isEmpty { aps["category"] = content.categoryIdentifier }
        if let target = content.targetContentIdentifier { aps["target-content-id"] = target }
        if options?.mutableContent == true { aps["mutable-content"] = 1 }
        if options?.contentAvailable == true { aps["content-available"] = 1 }
        var root: [String: Any] = [:]
        for (key, value) in content.userInfo where key != "aps" {
            root[key] = try json(value, path: key)
        }
        root["aps"] = aps
        return try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys, .withoutEscapingSlashes])
    }

    /// A `userInfo` value as a JSON value: dates as seconds since 1970, data as base64.
    static func json(_ value: PropertyListValue, path: String) throws -> Any {
        switch value {
        case .string(let string): return string
        case .integer(let integer): return integer
        case .bool(let bool): return bool
        case .double(let double):
            guard double.isFinite else {
                throw EncodingError.invalidValue(
                    double, EncodingError.Context(codingPath: [], debugDescription: "\(path) is not a finite number"))
            }
            return double
        case .date(let date): return date.timeIntervalSince1970
        case .data(let data): return data.base64EncodedString()
        case .array(let array): return try array.enumerated().map { try json($1, path: "\(path)[\($0)]") }
        case .dictionary(let dictionary):
            return try dictionary.reduce(into: [String: Any]()) { $0[$1.key] = try json($1.value, path: "\(path).\($1.key)") }
        }
    }
}
