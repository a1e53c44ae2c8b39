import Foundation
import Logging
import NotificationAPNsProvider
import NotificationEngine
import NotificationModel
import NotificationStorePostgres
import Synchronization

/// Delivers devices' due requests through APNs: the presenter of a server-mode worker.
///
/// The engine fires a request of a device's app identity (``Device/appID``); this presenter looks the device up and
/// sends the notification with the ``APNsClient`` for its environment, to its token and topic. APNs's answer decides
/// what the engine records (``ConfirmingPresenter``):
///
/// - 200: delivered.
/// - 410 (`Unregistered`, `ExpiredToken`): the device is made inactive and its pending requests are removed; the fire
///   is recorded as skipped.
/// - any other 4xx: a ``DeadLetter`` (reason, request, device, time) is recorded; the fire is recorded as skipped and
///   never sent again (a repeating request keeps its schedule).
/// - 429, 5xx and connection failures after the client's retries (`gaveUp`), or the device's row could not be read:
///   nothing is recorded, so the claim ends with its lease and a worker sends the notification again, with the same
///   `apns-id` (``apnsID(for:)``).
///
/// ```swift
/// let presenter = APNsPresenter(
///     store: store, development: try APNsClient(configuration: .init(server: .sandbox), key: key),
///     production: try APNsClient(configuration: .init(server: .production), key: key), clock: clock)
/// let scheduler = NotificationScheduler(store: store, clock: clock, presenter: presenter)
/// ```
public final class APNsPresenter: ConfirmingPresenter {
    public let name = "apns"
    /// Where devices and dead letters are.
    public let store: PostgresNotificationStore
    /// The client for devices in the development environment (Apple's sandbox host).
    public let development: APNsClient
    /// The client for devices in the production environment.
    public let production: APNsClient
    /// Counts APNs's answers and the lateness of accepted notifications (``ServerMetrics``).
    public let metrics: ServerMetrics
    let clock: any NotificationClock
    let logger: Logger
    /// The devices read for the batch being delivered (``willDeliver(appIDs:)``), each taken by its first delivery.
    private let prefetched = Mutex<[String: Device]>([:])
    /// Above this many devices left untaken, ``willDeliver(appIDs:)`` starts the map afresh.
    static let prefetchedLimit = 4_096

    /// Creates the presenter.
    ///
    /// - Parameters:
    ///   - store: The store the worker runs on.
    ///   - development: The client for development devices.
    ///   - production: The client for production devices (may be the same client, when both go to one endpoint).
    ///   - clock: Dates deactivations and dead letters.
    ///   - metrics: Where answers and lateness are counted; a registry of its own by default.
    ///   - logger: Where refusals and failures are logged.
    public init(
        store: PostgresNotificationStore, development: APNsClient, production: APNsClient,
        clock: any NotificationClock, metrics: ServerMetrics = ServerMetrics(),
        logger: Logger = Logger(label: "OpenUserNotifications.server.apns")
    ) {
        self.store = store
        self.metrics = metrics
        self.development = development
        self.production = production
        self.clock = clock
        self.logger = logger
    }

    public func deliver(_ notification: DeliveredNotification, options: PresentationSet, category: CategorySpec?) async
        -> PresentationOutcome
    {
        guard let deviceID = Device.deviceID(forAppID: notification.appID) else {
            return .failed("\(notification.appID) is not a device's app identity")
        }
        let device: Device
        if let known = prefetched.withLock({ $0.removeValue(forKey: deviceID) }) {
            device = known
        } else {
            do {
                guard let found = try await store.device(id: deviceID) else {
                    return .failed("device \(deviceID) is gone")
                }
                device = found
            } catch {
                return .retryLater("could not read device \(deviceID): \(error)")
            }
        }
        guard device.isActive else { return .failed("device \(deviceID) is inactive") }
        let apnsID = Self.apnsID(for: notification)
        let push: APNsNotification
        do {
            let identifier = notification.identifier
            // The request's own APNs options first (`RequestSpec.apns`), else the presentation decides.
            let given = notification.request.apns
            // A push that only wakes the app is a background push, which APNs takes at priority 5 only.
            let background = given?.isBackgroundPush(notification.request.content) == true
            push = APNsNotification(
                deviceToken: device.token, topic: device.topic, pushType: background ? .background : .alert,
                priority: background
                    ? .considerate
                    : given?.priority.flatMap(APNsNotification.Priority.init(rawValue:))
                        ?? (options.isVisible ? .immediate : .considerate),
                expiration: given?.expiration,
                collapseID: given?.collapseID
                    ?? (identifier.utf8.count <= APNsNotification.collapseIDLimit ? identifier : nil),
                apnsID: apnsID, payload: try APNsPayloadEncoder.payload(for: notification.request.content, options: given))
        } catch {
            metrics.recordAnswer("ClientRefused", at: clock.now)
            return await deadLetter(device, notification, apnsID: apnsID, status: nil, reason: "\(error)")
        }
        let client = device.environment == .production ? production : development
        let delivery: APNsDelivery
        do {
            delivery = try await client.send(push)
        } catch let error as APNsClientError where Self.refusedByClient.contains(error.code) {
            // The client refused it before sending (too large, bad topic): sending again would be refused again.
            metrics.recordAnswer("ClientRefused", at: clock.now)
            return await deadLetter(device, notification, apnsID: apnsID, status: nil, reason: error.message)
        } catch {
            metrics.recordAnswer("ConnectionError", at: clock.now)
            return .retryLater("\(error)")
        }
        switch delivery.outcome {
        case .delivered:
            let now = clock.now
            metrics.recordAnswer("Success", lateness: now.timeIntervalSince(notification.dueDate), at: now)
            return .presented
        case .deviceGone(let reason, _):
            metrics.recordAnswer(reason, at: clock.now)
            do {
                let dropped = try await store.deactivateDevice(id: device.id, at: clock.now)
                logger.notice(
                    "APNs reported a device gone: deactivated, its pending requests removed",
                    metadata: ["device": "\(device.id)", "reason": "\(reason)", "removed": "\(dropped.count)"])
            } catch {
                logger.error("could not deactivate a device APNs reported gone: \(error)", metadata: ["device": "\(device.id)"])
            }
            return .failed("APNs: \(reason)")
        case .rejected(let answer):
            metrics.recordAnswer(answer.reason ?? answer.status.map { "HTTP \($0)" } ?? "ConnectionError", at: clock.now)
            return await deadLetter(
                device, notification, apnsID: apnsID, status: answer.status, reason: answer.reason ?? "\(answer)")
        case .gaveUp(let answer):
            metrics.recordAnswer("GaveUp", at: clock.now)
            return .retryLater("APNs: \(answer)")
        }
    }

    /// Reads the devices of a claimed batch in one query (``PostgresNotificationStore/devices(ids:)``); each delivery
    /// takes its device from them instead of reading it alone. When the read fails, each delivery reads its own.
    public func willDeliver(appIDs: Set<String>) async {
        let ids = appIDs.compactMap(Device.deviceID(forAppID:))
        let devices = ids.isEmpty ? [] : ((try? await store.devices(ids: ids)) ?? [])
        // Batches may overlap (`EngineConfiguration.batchesInFlight`): add to what earlier batches left, newer
        // reads first; what no delivery took (a skipped fire) is dropped once the map grows past a few batches.
        prefetched.withLock { prefetched in
            if prefetched.count > Self.prefetchedLimit { prefetched.removeAll(keepingCapacity: true) }
            prefetched.merge(devices.map { ($0.id, $0) }) { _, newer in newer }
        }
    }

    public func present(_ notification: DeliveredNotification, options: PresentationSet, category: CategorySpec?) async {
        _ = await deliver(notification, options: options, category: category)
    }

    /// APNs cannot take a notification off a device's screen: nothing to do.
    public func withdraw(appID: String, identifiers: [String]) async {}

    /// Badges travel in each notification's payload: nothing to do.
    public func badgeDidChange(appID: String, count: Int) async {}

    /// The client's errors that say the notification itself is wrong.
    static let refusedByClient: [APNsClientError.Code] = [
        .payloadTooLarge, .invalidPayload, .invalidDeviceToken, .invalidTopic, .invalidCollapseID,
    ]

    /// Records a dead letter and answers `failed`.
    private func deadLetter(
        _ device: Device, _ notification: DeliveredNotification, apnsID: UUID, status: Int?, reason: String
    ) async -> PresentationOutcome {
        let letter = DeadLetter(
            deviceID: device.id, requestIdentifier: notification.identifier, apnsID: apnsID.uuidString.lowercased(),
            status: status, reason: reason, date: clock.now)
        do {
            try await store.recordDeadLetter(letter)
        } catch {
            logger.error("could not record a dead letter: \(error)", metadata: ["device": "\(device.id)"])
        }
        logger.notice(
            "APNs refused a notification: dead letter",
            metadata: ["device": "\(device.id)", "request": "\(notification.identifier)", "reason": "\(reason)"])
        return .failed("APNs refused it: \(reason)")
    }

    /// The `apns-id` of one fire: the same for every attempt at it, by any worker (a notification sent again after
    /// a lease ended carries the `apns-id` of the first attempt), and different for each fire.
    ///
    /// - Parameter notification: The fire.
    /// - Returns: A UUID made from the app identity, the request identifier and the due instant.
    public static func apnsID(for notification: DeliveredNotification) -> UUID {
        let key = "\(notification.appID)\u{1F}\(notification.identifier)\u{1F}\(notification.dueDate.timeIntervalSince1970)"
        var first: UInt64 = 0xcbf2_9ce4_8422_2325
        var second: UInt64 = 0x6c62_272e_07bb_0142
        for byte in key.utf8 {
            first = (first ^ UInt64(byte)) &* 0x100_0000_01b3
            second = (second ^ UInt64(byte)) &* 0x100_0000_01b3 &+ 0x9e37_79b9_7f4a_7c15
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: first >> (8 * index))
            bytes[index + 8] = UInt8(truncatingIfNeeded: second >> (8 * index))
        }
        // Version 8 (custom), RFC 9562 variant.
        bytes[6] = bytes[6] & 0x0F | 0x80
        bytes[8] = bytes[8] & 0x3F | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
