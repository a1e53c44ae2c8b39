import Foundation
import NotificationAttachments
import NotificationEngine
import NotificationModel

/// Adding many requests at once. An addition of this library: Apple's center adds one request per call.
extension UNUserNotificationCenter {
    /// Schedules many requests in one step: all of them, or none when one of them is refused.
    ///
    /// Each request is checked as ``add(_:)`` checks it; when any is refused, ``NotificationBatchError`` names every
    /// refused one and nothing is stored. A request replaces a pending request with the same identifier (one earlier
    /// in the same batch too), and the pending cap applies once, after the batch: the soonest-firing requests stay.
    ///
    /// In embedded mode the batch is one store transaction, made durable with one `fsync`. Through the daemon it
    /// travels in messages of up to about 1 MiB (a few thousand requests), each one transaction. The checks that do
    /// not depend on the clock run on every request before anything is sent; a calendar trigger that no date
    /// matches is found by the engine, in the message that carries it, so in a batch of several messages the
    /// earlier ones would then stay stored.
    ///
    /// ```swift
    /// let reminders = (1...500).map { day in
    ///     let content = UNMutableNotificationContent()
    ///     content.title = "Day \(day)"
    ///     let trigger = UNTimeIntervalNotificationTrigger(timeInterval: Double(day) * 86_400, repeats: false)
    ///     return UNNotificationRequest(identifier: "day-\(day)", content: content, trigger: trigger)
    /// }
    /// let result = try await center.add(contentsOf: reminders)
    /// print(result.added, result.discarded)  // 500, the 436 furthest away (the pending cap keeps 64)
    /// ```
    ///
    /// - Returns: How many requests were stored, and the identifiers of those the pending cap discarded.
    /// - Throws: ``NotificationBatchError`` when requests are refused (nothing is stored); ``UNError``
    ///   `notificationsNotAllowed` when the app was denied; a ``NotificationRequestError`` when the store fails.
    @discardableResult
    public func add(contentsOf requests: [UNNotificationRequest]) async throws -> NotificationBatchResult {
        var specs: [RequestSpec] = []
        specs.reserveCapacity(requests.count)
        var refused: [NotificationBatchError.Refusal] = []
        for (index, request) in requests.enumerated() {
            do {
                let spec = try spec(of: request)
                try NotificationScheduler.check(spec)
                specs.append(spec)
            } catch {
                refused.append(.init(index: index, identifier: request.identifier, error: Self.publicError(error)))
            }
        }
        guard refused.isEmpty else { throw NotificationBatchError(refusals: refused) }
        let configuration = configuration, checked = specs
        do {
            return try await call { backend, app in
                try await UNNotificationAttachment.add(checked, appID: app, configuration: configuration) {
                    let result = try await backend.add(contentsOf: $0, appID: app)
                    return NotificationBatchResult(added: result.added, discarded: result.discarded.map(\.identifier))
                }
            }
        } catch let error as BatchAddError {
            throw NotificationBatchError(
                refusals: error.refusals.map {
                    .init(index: $0.index, identifier: requests[$0.index].identifier, error: $0.error.publicError)
                })
        }
    }

    /// Schedules many requests in one step, calling `completionHandler` with the result or the error; see
    /// ``add(contentsOf:)``.
    public func add(
        contentsOf requests: [UNNotificationRequest],
        completionHandler: @escaping @Sendable (Result<NotificationBatchResult, any Error>) -> Void
    ) {
        Task { completionHandler(await Result { try await add(contentsOf: requests) }) }
    }
}

/// What ``UNUserNotificationCenter/add(contentsOf:)`` stored. An addition of this library.
public struct NotificationBatchResult: Sendable, Hashable {
    /// How many requests were stored: the whole batch.
    public var added: Int
    /// The identifiers of the pending requests the pending cap discarded (older ones, or some of the batch's).
    public var discarded: [String]
}

/// A batch that was refused as a whole because of the requests it names. An addition of this library.
public struct NotificationBatchError: Error, CustomStringConvertible {
    /// A refused request.
    public struct Refusal: Sendable {
        /// Its position in the batch.
        public var index: Int
        /// Its identifier.
        public var identifier: String
        /// Why: a ``UNError`` where Apple has a code (`notificationInvalidNoDate`, the attachment codes), else a
        /// ``NotificationRequestError``.
        public var error: any Error
    }

    /// Every refused request, in batch order.
    public var refusals: [Refusal]

    public var description: String {
        let first = refusals.prefix(3).map { "#\($0.index) '\($0.identifier)': \($0.error)" }.joined(separator: "; ")
        let more = refusals.count > 3 ? "; and \(refusals.count - 3) more" : ""
        return "\(refusals.count) request(s) refused, nothing added: \(first)\(more)"
    }
}

extension Result where Failure == any Error {
    /// The result of an async throwing body.
    fileprivate init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
