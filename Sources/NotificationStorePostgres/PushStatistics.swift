import Foundation

/// A push's delivery counts, exact and read from the store when asked (docs/push-service.md).
///
/// `sent` counts the devices whose notification got a final answer: `accepted` by APNs, or failed (refused by APNs,
/// token gone, device removed or inactive, dropped by the pending cap), by reason. `sent == accepted + failed` always;
/// `pending` is what is fanned out and not answered yet (due later, or being sent).
///
/// ```swift
/// let statistics = try await store.pushStatistics(id: messageID)
/// print(statistics.targeted, statistics.accepted, statistics.failed)
/// ```
public struct PushStatistics: Sendable, Hashable {
    /// The push, or `nil` for statistics over many pushes (a topic's).
    public var messageID: String?
    /// The devices it was fanned out to.
    public var targeted: Int
    /// Accepted by APNs.
    public var accepted: Int
    /// Failed, by reason (APNs's reason, or why the service gave up).
    public var failed: [String: Int]
    /// Removed by a cancellation before they were sent.
    public var cancelled: Int
    /// Devices that reported receiving it (``PushReceipt``); 0 for a topic's statistics.
    public var received: Int
    /// Devices that reported opening it.
    public var opened: Int
    /// Devices that reported dismissing it.
    public var dismissed: Int
    /// Devices that reported an action, by action identifier.
    public var actions: [String: Int]
    /// The same figures by hour (UTC), oldest first: answers by the hour the worker recorded them, receipts by the
    /// hour the device says they happened. Empty for a topic's statistics.
    public var byHour: [Hour]

    /// One hour's figures of a push.
    public struct Hour: Sendable, Hashable {
        /// The hour's first instant (UTC, on the hour).
        public var start: Date
        /// Accepted by APNs in that hour.
        public var accepted: Int
        /// Failed for good in that hour.
        public var failed: Int
        /// Reported received in that hour.
        public var received: Int
        /// Reported opened in that hour.
        public var opened: Int

        /// Creates a value (the store makes them).
        public init(start: Date, accepted: Int = 0, failed: Int = 0, received: Int = 0, opened: Int = 0) {
            self.start = start
            self.accepted = accepted
            self.failed = failed
            self.received = received
            self.opened = opened
        }
    }

    /// Creates a value (the store makes them).
    public init(
        messageID: String?, targeted: Int, accepted: Int, failed: [String: Int], cancelled: Int, received: Int = 0,
        opened: Int = 0, dismissed: Int = 0, actions: [String: Int] = [:], byHour: [Hour] = []
    ) {
        self.messageID = messageID
        self.targeted = targeted
        self.accepted = accepted
        self.failed = failed
        self.cancelled = cancelled
        self.received = received
        self.opened = opened
        self.dismissed = dismissed
        self.actions = actions
        self.byHour = byHour
    }

    /// Devices with a final answer: accepted plus failed.
    public var sent: Int { accepted + failedCount }
    /// All failures, whatever the reason.
    public var failedCount: Int { failed.values.reduce(0, +) }
    /// Fanned out, neither answered nor cancelled yet.
    public var pending: Int { max(0, targeted - sent - cancelled) }
}
