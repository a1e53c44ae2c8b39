import Foundation
import NotificationEngine
import NotificationModel
import NotificationStorePostgres

/// The server API's JSON: reading request bodies into the engine's values with errors that name the field at
/// fault, and writing devices and pending requests.
///
/// Bodies are read with `JSONSerialization` rather than `Codable`, so a wrong type is reported as
/// `request.badge must be an integer` and `userInfo` can hold any JSON object.
enum ServerAPIJSON {
    /// The fields of a request, as `unotify add` takes them.
    static let requestFields: Set<String> = [
        "identifier", "title", "subtitle", "body", "badge", "sound", "categoryIdentifier", "threadIdentifier",
        "userInfo", "trigger", "apns",
    ]
    /// The fields of a device registration.
    static let deviceFields: Set<String> = ["token", "topic", "environment", "timeZone", "locale"]
    /// The calendar components a trigger may name.
    static var componentFields: [String: WritableKeyPath<CalendarComponents, Int?>] {
        [
            "era": \.era, "year": \.year, "month": \.month, "day": \.day, "hour": \.hour, "minute": \.minute,
            "second": \.second, "nanosecond": \.nanosecond, "weekday": \.weekday, "weekdayOrdinal": \.weekdayOrdinal,
            "quarter": \.quarter, "weekOfMonth": \.weekOfMonth, "weekOfYear": \.weekOfYear,
            "yearForWeekOfYear": \.yearForWeekOfYear,
        ]
    }

    /// Parses a body that must be a JSON object.
    static func object(_ data: Data) throws -> [String: Any] {
        let value: Any
        do { value = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) } catch {
            throw ServerAPIError(.badRequest, reason: "BadJSON", detail: "the body is not valid JSON")
        }
        guard let object = value as? [String: Any] else {
            throw ServerAPIError(.badRequest, reason: "BadJSON", detail: "the body must be a JSON object")
        }
        return object
    }

    /// The requests of `POST /v1/request-batches`: `{"requests": [{"device": "...", "request": {...}}, ...]}`, with
    /// an optional `"atomic": true|false` the route reads.
    ///
    /// - Throws: 400 naming the first field at fault (nothing is scheduled then); 413 `BatchTooLarge` for more than
    ///   `limit` requests.
    static func deviceRequests(_ object: [String: Any], limit: Int) throws -> [DeviceRequest] {
        try refuseUnknown(object, allowed: ["requests", "atomic"], path: "")
        _ = try boolean(object, "atomic", path: "")
        guard let items = object["requests"] as? [Any], !items.isEmpty else {
            throw ServerAPIError.badRequest("requests must be a non-empty array of {\"device\", \"request\"} objects")
        }
        guard items.count <= limit else {
            throw ServerAPIError(
                .contentTooLarge, reason: "BatchTooLarge",
                detail: "\(items.count) requests in one call; at most \(limit) are taken")
        }
        return try items.enumerated().map { index, item in
            let path = "requests[\(index)]."
            guard let item = item as? [String: Any] else {
                throw ServerAPIError.badRequest("requests[\(index)] must be an object")
            }
            try refuseUnknown(item, allowed: ["device", "request"], path: path)
            guard let device = item["device"] as? String, !device.isEmpty else {
                throw ServerAPIError.badRequest("\(path)device is required (a non-empty string)")
            }
            guard let request = item["request"] as? [String: Any] else {
                throw ServerAPIError.badRequest("\(path)request must be an object")
            }
            return DeviceRequest(deviceID: device, spec: try self.request(request, path: path + "request."))
        }
    }

    /// A device registration from `PUT /v1/devices/{id}`.
    static func registration(id: String, _ object: [String: Any]) throws -> DeviceRegistration {
        try refuseUnknown(object, allowed: deviceFields, path: "")
        let environmentName = try string(object, "environment", path: "") ?? "production"
        guard let environment = Device.Environment(rawValue: environmentName) else {
            throw ServerAPIError.badRequest("environment must be \"development\" or \"production\"")
        }
        return DeviceRegistration(
            id: id, token: try required(string(object, "token", path: ""), "token"),
            topic: try required(string(object, "topic", path: ""), "topic"), environment: environment,
            timeZoneIdentifier: try string(object, "timeZone", path: "") ?? "UTC",
            localeIdentifier: try string(object, "locale", path: "") ?? "en_US")
    }

    /// A request spec from a request object (`path` names it in errors, e.g. `request.`).
    static func request(_ object: [String: Any], path: String) throws -> RequestSpec {
        try refuseUnknown(object, allowed: requestFields, path: path)
        guard let identifier = try string(object, "identifier", path: path), !identifier.isEmpty else {
            throw ServerAPIError.badRequest("\(path)identifier is required (a non-empty string)")
        }
        var content = NotificationPayload()
        content.title = try string(object, "title", path: path) ?? ""
        content.subtitle = try string(object, "subtitle", path: path) ?? ""
        content.body = try string(object, "body", path: path) ?? ""
        content.categoryIdentifier = try string(object, "categoryIdentifier", path: path) ?? ""
        content.threadIdentifier = try string(object, "threadIdentifier", path: path) ?? ""
        content.badge = try integer(object, "badge", path: path)
        switch try string(object, "sound", path: path) ?? "default" {
        case "none": content.sound = nil
        case "default": content.sound = SoundSpec()
        case let name: content.sound = SoundSpec(name: name)
        }
        if let userInfo = object["userInfo"], !(userInfo is NSNull) {
            guard let dictionary = userInfo as? [String: Any] else {
                throw ServerAPIError.badRequest("\(path)userInfo must be an object")
            }
            do { content.userInfo = try PropertyListValue.convert(json: dictionary) } catch {
                throw ServerAPIError.badRequest("\(path)userInfo: \(error)")
            }
        }
        return RequestSpec(
            identifier: identifier, content: content, trigger: try trigger(object["trigger"], path: path + "trigger"),
            apns: try apnsOptions(object["apns"], path: path + "apns"))
    }

    /// A request's APNs headers: `{"expiration": ..., "priority": 5, "collapseID": "..."}`, each optional;
    /// `expiration` is an ISO 8601 instant or seconds since 1970 (APNs's own form), 0 for "at once only".
    static func apnsOptions(_ value: Any?, path: String) throws -> APNsOptions? {
        guard let value, !(value is NSNull) else { return nil }
        guard let object = value as? [String: Any] else { throw ServerAPIError.badRequest("\(path) must be an object") }
        try refuseUnknown(
            object, allowed: ["expiration", "priority", "collapseID", "mutableContent", "contentAvailable"],
            path: path + ".")
        var options = APNsOptions()
        switch object["expiration"] {
        case nil, is NSNull: break
        case let text as String:
            guard let date = try? Date(text, strategy: .iso8601) else {
                throw ServerAPIError.badRequest("\(path).expiration must be an ISO 8601 instant or seconds since 1970")
            }
            options.expiration = date
        case let number as NSNumber where !isBoolean(number) && number.doubleValue >= 0:
            options.expiration = Date(timeIntervalSince1970: number.doubleValue.rounded(.down))
        default:
            throw ServerAPIError.badRequest("\(path).expiration must be an ISO 8601 instant or seconds since 1970")
        }
        if let priority = try integer(object, "priority", path: path + ".") {
            guard APNsOptions.priorities.contains(priority) else {
                throw ServerAPIError.badRequest("\(path).priority must be 10, 5 or 1")
            }
            options.priority = priority
        }
        if let collapseID = try string(object, "collapseID", path: path + ".") {
            guard !collapseID.isEmpty, collapseID.utf8.count <= APNsOptions.collapseIDLimit else {
                throw ServerAPIError.badRequest(
                    "\(path).collapseID must have 1 to \(APNsOptions.collapseIDLimit) bytes of UTF-8")
            }
            options.collapseID = collapseID
        }
        options.mutableContent = try boolean(object, "mutableContent", path: path + ".") ?? false
        options.contentAvailable = try boolean(object, "contentAvailable", path: path + ".") ?? false
        return options
    }

    /// A trigger: absent or null delivers at once.
    static func trigger(_ value: Any?, path: String) throws -> TriggerSpec? {
        guard let value, !(value is NSNull) else { return nil }
        guard let object = value as? [String: Any] else { throw ServerAPIError.badRequest("\(path) must be an object") }
        try refuseUnknown(object, allowed: ["timeInterval", "calendar", "repeats"], path: path + ".")
        let repeats = try boolean(object, "repeats", path: path + ".") ?? false
        switch (object["timeInterval"], object["calendar"]) {
        case (let interval?, nil):
            guard let seconds = (interval as? NSNumber).flatMap({ isBoolean($0) ? nil : $0.doubleValue }) else {
                throw ServerAPIError.badRequest("\(path).timeInterval must be a number of seconds")
            }
            return .timeInterval(seconds, repeats: repeats)
        case (nil, let calendar?):
            guard let fields = calendar as? [String: Any] else {
                throw ServerAPIError.badRequest("\(path).calendar must be an object of date components")
            }
            var allowed = Set(componentFields.keys)
            allowed.insert("timeZone")
            try refuseUnknown(fields, allowed: allowed, path: path + ".calendar.")
            var components = CalendarComponents()
            for (name, keyPath) in componentFields {
                components[keyPath: keyPath] = try integer(fields, name, path: path + ".calendar.")
            }
            components.timeZoneIdentifier = try string(fields, "timeZone", path: path + ".calendar.")
            return .calendar(components, repeats: repeats, matching: .apple)
        default:
            throw ServerAPIError(
                .badRequest, reason: "InvalidTrigger",
                detail: "\(path) needs exactly one of \"timeInterval\" and \"calendar\"")
        }
    }

    // MARK: - Writing

    /// A device as the API shows it.
    static func json(_ device: Device) -> [String: Any] {
        [
            "id": device.id, "token": device.token.description, "topic": device.topic,
            "environment": device.environment.rawValue, "timeZone": device.timeZoneIdentifier,
            "locale": device.localeIdentifier, "active": device.isActive,
            "createdAt": device.createdAt.ISO8601Format(), "updatedAt": device.updatedAt.ISO8601Format(),
        ]
    }

    /// A worker's and the cluster's figures as `/v1/status` shows them; a percentile over no delivery is left out.
    static func json(worker: WorkerStatistics, cluster: ClusterStatistics) -> [String: Any] {
        var workerObject: [String: Any] = [
            "name": worker.worker, "answers": worker.answers, "deliveriesPerSecond": worker.deliveriesPerSecond,
        ]
        workerObject["latenessP50"] = worker.latenessP50
        workerObject["latenessP99"] = worker.latenessP99
        var clusterObject: [String: Any] = [
            "date": cluster.date.ISO8601Format(), "windowSeconds": cluster.window, "pending": cluster.pending,
            "dueBacklog": cluster.dueBacklog, "claimed": cluster.claimed,
            "devices": ["active": cluster.activeDevices, "inactive": cluster.inactiveDevices],
            "outcomes": cluster.outcomes, "deliveriesPerSecond": cluster.deliveriesPerSecond,
            "deadLetters": cluster.deadLetters,
        ]
        clusterObject["latenessP50"] = cluster.latenessP50
        clusterObject["latenessP99"] = cluster.latenessP99
        return ["worker": workerObject, "cluster": clusterObject]
    }

    /// A pending request as the API shows it: its fields as sent, and when it fires next.
    static func json(_ pending: PendingRequest) -> [String: Any] {
        let content = pending.spec.content
        var request: [String: Any] = [
            "identifier": pending.identifier, "title": content.title, "subtitle": content.subtitle,
            "body": content.body, "categoryIdentifier": content.categoryIdentifier,
            "threadIdentifier": content.threadIdentifier, "sound": content.sound.map { $0.name ?? "default" } ?? "none",
            "addedAt": pending.addedAt.ISO8601Format(),
        ]
        if let badge = content.badge { request["badge"] = badge }
        if let next = pending.nextFireDate { request["nextFireDate"] = next.ISO8601Format() }
        switch pending.spec.trigger {
        case .timeInterval(let seconds, let repeats)?:
            request["trigger"] = ["timeInterval": seconds, "repeats": repeats]
        case .calendar(let components, let repeats, _)?:
            var fields: [String: Any] = [:]
            for (name, keyPath) in componentFields {
                if let value = components[keyPath: keyPath] { fields[name] = value }
            }
            if let zone = components.timeZoneIdentifier { fields["timeZone"] = zone }
            request["trigger"] = ["calendar": fields, "repeats": repeats]
        default: break
        }
        if let apns = pending.spec.apns {
            var fields: [String: Any] = [:]
            if let expiration = apns.expiration { fields["expiration"] = expiration.ISO8601Format() }
            if let priority = apns.priority { fields["priority"] = priority }
            if let collapseID = apns.collapseID { fields["collapseID"] = collapseID }
            request["apns"] = fields
        }
        return request
    }

    /// Serializes a JSON value (sorted keys, so answers are stable).
    static func encode(_ value: Any) -> Data {
        (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]))
            ?? Data("{}".utf8)
    }

    // MARK: - Fields

    private static func refuseUnknown(_ object: [String: Any], allowed: Set<String>, path: String) throws {
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw ServerAPIError.badRequest("\(path)\(unknown) is not a field this route takes")
        }
    }

    private static func required(_ value: String?, _ name: String) throws -> String {
        guard let value else { throw ServerAPIError.badRequest("\(name) is required (a string)") }
        return value
    }

    private static func string(_ object: [String: Any], _ key: String, path: String) throws -> String? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let string = value as? String else { throw ServerAPIError.badRequest("\(path)\(key) must be a string") }
        return string
    }

    private static func integer(_ object: [String: Any], _ key: String, path: String) throws -> Int? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let number = value as? NSNumber, !isBoolean(number), number.doubleValue == number.doubleValue.rounded(),
            abs(number.doubleValue) < 1e15
        else { throw ServerAPIError.badRequest("\(path)\(key) must be an integer") }
        return number.intValue
    }

    /// `true`, `false`, or `nil` when absent or null; a 400 for anything else (a number, a string).
    static func boolean(_ object: [String: Any], _ key: String, path: String) throws -> Bool? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let number = value as? NSNumber, isBoolean(number) else {
            throw ServerAPIError.badRequest("\(path)\(key) must be true or false")
        }
        return number.boolValue
    }

    /// Whether JSONSerialization read `true`/`false` (``NSNumber/isJSONBoolean``).
    static func isBoolean(_ number: NSNumber) -> Bool { number.isJSONBoolean }
}
