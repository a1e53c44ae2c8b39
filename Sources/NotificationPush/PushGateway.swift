import Foundation
import Logging
import NotificationEngine
import NotificationModel

/// The provider API without the transport: takes an ``APNsRequest``, answers an ``APNsResponse``, and hands
/// accepted pushes to the engine. The HTTP/2 endpoint is a thin layer over ``handle(_:)``.
///
/// ```swift
/// let gateway = PushGateway(scheduler: scheduler)
/// let response = await gateway.handle(APNsRequest(path: "/3/device/\(hex)", body: body))
/// // response.status, response.headers, response.body go back on the stream
/// ```
///
/// Authentication (`authorization: bearer …`, client certificates) is not checked: the endpoint listens for
/// the local user only. A request is answered after the engine made the notification due (and, with
/// ``deliversImmediately``, delivered it).
public struct PushGateway: Sendable {
    /// The engine pushes go to.
    public let scheduler: NotificationScheduler
    /// Whether ``handle(_:)`` runs a delivery pass itself; `false` when another engine (the daemon's loop, woken
    /// by the store change) delivers.
    public var deliversImmediately: Bool
    /// The APNs environment this gateway stands for: a token issued for the other one is answered `BadDeviceToken`,
    /// as Apple's hosts answer a development token sent to production and the reverse.
    public var environment: PushEnvironment
    private let logger: Logger

    /// Creates a gateway.
    public init(
        scheduler: NotificationScheduler, deliversImmediately: Bool = true, environment: PushEnvironment = .development,
        logger: Logger = Logger(label: "OpenUserNotifications.push")
    ) {
        self.scheduler = scheduler
        self.deliversImmediately = deliversImmediately
        self.environment = environment
        self.logger = logger
    }

    /// Answers one provider request.
    ///
    /// Validation (``APNsRequest/validate()``), then the token: `BadDeviceToken` for a token never issued,
    /// `Unregistered` (410, with the time) for one whose app unregistered, `BadDeviceToken` for a token of the other
    /// environment (``environment``), `DeviceTokenNotForTopic` when `apns-topic` names another app. Then the push is delivered (``NotificationScheduler/deliverPush(_:appID:deliver:)``).
    /// Store failures answer `InternalServerError`.
    public func handle(_ request: APNsRequest) async -> APNsResponse {
        let push: ValidatedPush
        do throws(APNsReason) { push = try request.validate() } catch {
            // Made only here: a valid push carries its own (ValidatedPush.apnsID).
            return APNsResponse(reason: error, apnsID: Self.requestedID(request) ?? APNsID.random())
        }
        do {
            let outcome = try await deliver(push)
            logger.debug("took a push", metadata: ["apns-id": "\(push.apnsID)", "outcome": "\(outcome.rawValue)"])
            return .success(apnsID: push.apnsID)
        } catch {
            return answer(to: error, apnsID: push.apnsID)
        }
    }

    /// Answers provider requests that arrived together (one read of a connection's streams): each gets the answer
    /// ``handle(_:)`` would give it, and the pushes that pass their checks are delivered in one call
    /// (``NotificationScheduler/deliverPushes(_:deliver:)``), with one wait for their transaction.
    ///
    /// A push that asks the running app before it is answered (``NotificationScheduler/asksApp(_:appID:)``: a
    /// background push, or one with `content-available`, while the app's receiver is attached) is left out and gets
    /// no answer here: the caller answers it on its own with ``handle(_:)``, so that a slow app delays no other push
    /// of the batch.
    ///
    /// ```swift
    /// let responses = await gateway.handle(batch: requests)   // responses[i] answers requests[i], or is nil
    /// ```
    /// - Parameter requests: The requests, in arrival order.
    /// - Returns: One answer per request, in order; `nil` for a push left to ``handle(_:)``.
    public func handle(batch requests: [APNsRequest]) async -> [APNsResponse?] {
        var responses = [APNsResponse?](repeating: nil, count: requests.count)
        var accepted: [(index: Int, apnsID: String)] = []
        var pushes: [(push: RemoteNotification, appID: String)] = []
        // A token's registration read once per batch: a user's daemon holds one token per app, so the pushes of a
        // batch mostly go to a few tokens.
        var registrations: [DeviceToken: Result<PushRegistration, APNsReason>] = [:]
        for (index, request) in requests.enumerated() {
            let push: ValidatedPush
            do throws(APNsReason) { push = try request.validate() } catch {
                responses[index] = APNsResponse(reason: error, apnsID: Self.requestedID(request) ?? APNsID.random())
                continue
            }
            let registration: Result<PushRegistration, APNsReason>
            if let known = registrations[push.token] {
                registration = known
            } else {
                do throws(APNsReason) {
                    registration = .success(try await scheduler.store.pushDestination(for: push.token))
                } catch {
                    registration = .failure(error)
                }
                registrations[push.token] = registration
            }
            do {
                let (notification, appID) = try destination(of: push, registration: registration.get())
                if scheduler.asksApp(notification, appID: appID) {
                    continue  // answered on its own: the app is asked before it is answered
                }
                accepted.append((index, push.apnsID))
                pushes.append((notification, appID))
            } catch {
                responses[index] = answer(to: error, apnsID: push.apnsID)
            }
        }
        let outcomes = await scheduler.deliverPushes(pushes, deliver: deliversImmediately)
        for ((index, apnsID), outcome) in zip(accepted, outcomes) {
            switch outcome {
            case .success(let outcome):
                logger.debug("took a push", metadata: ["apns-id": "\(apnsID)", "outcome": "\(outcome.rawValue)"])
                responses[index] = .success(apnsID: apnsID)
            case .failure(let error):
                responses[index] = answer(to: error, apnsID: apnsID)
            }
        }
        return responses
    }

    /// The answer to a push that failed with `error`: its ``APNsReason``, or `InternalServerError`.
    private func answer(to error: any Error, apnsID: String) -> APNsResponse {
        if let reason = error as? APNsReason { return APNsResponse(reason: reason, apnsID: apnsID) }
        logger.error("could not deliver a push: \(error)")
        return APNsResponse(reason: APNsReason.internalServerError.with(detail: "\(error)"), apnsID: apnsID)
    }

    /// Delivers a validated push to the app its token belongs to.
    /// - Throws: ``APNsReason`` for token problems; ``EngineError`` when the store fails.
    @discardableResult
    public func deliver(_ push: ValidatedPush) async throws -> PushDeliveryOutcome {
        let (notification, appID) = try await destination(of: push)
        return try await scheduler.deliverPush(notification, appID: appID, deliver: deliversImmediately)
    }

    /// The notification a validated push becomes and the app its token belongs to.
    /// - Throws: ``APNsReason`` for token problems; ``EngineError`` when the store fails.
    private func destination(of push: ValidatedPush) async throws -> (RemoteNotification, String) {
        try destination(of: push, registration: try await scheduler.store.pushDestination(for: push.token))
    }

    /// The notification a validated push becomes, with the registration of its token.
    /// - Throws: ``APNsReason`` when the token is of the other environment or the push names another app's topic.
    private func destination(of push: ValidatedPush, registration: PushRegistration) throws(APNsReason)
        -> (RemoteNotification, String)
    {
        guard registration.environment == environment else {
            throw APNsReason.badDeviceToken.with(
                detail: "a \(registration.environment.rawValue) token sent to the \(environment.rawValue) endpoint")
        }
        guard push.topicMatches(appID: registration.appID) else {
            throw APNsReason.deviceTokenNotForTopic.with(detail: "the token belongs to \(registration.appID)")
        }
        let notification = RemoteNotification(
            payload: push.payload, apnsID: push.apnsID, collapseIdentifier: push.collapseIdentifier,
            pushType: push.pushType, bundleDirectory: registration.bundleDirectory)
        return (notification, registration.appID)
    }

    /// The request's own `apns-id` when it is a valid one, for the header of an error answer.
    private static func requestedID(_ request: APNsRequest) -> String? {
        let given = request.headers.filter { $0.name.lowercased() == "apns-id" }
        guard given.count == 1, APNsRequest.isCanonicalUUID(given[0].value) else { return nil }
        return given[0].value.lowercased()
    }
}
