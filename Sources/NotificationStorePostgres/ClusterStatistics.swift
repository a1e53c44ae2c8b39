import Foundation

/// What the shared database says about a server-mode cluster at one instant: the figures every worker sees alike
/// (`unotify server status`, the worker's `/v1/status` and `/metrics`).
///
/// Rates and lateness cover a recent window of the history (``window`` seconds before ``date``); a figure over an
/// empty window is `nil`, never a made-up zero.
public struct ClusterStatistics: Sendable, Hashable, Codable {
    /// When the figures were read.
    public var date: Date
    /// The window the rates and lateness cover, in seconds.
    public var window: TimeInterval
    /// Requests waiting for a fire, over every device.
    public var pending: Int
    /// Pending requests whose fire is due (at or before ``date``) and not yet recorded: the backlog the workers have
    /// not caught up with.
    public var dueBacklog: Int
    /// Due requests a worker holds a live claim on (being delivered now).
    public var claimed: Int
    /// Devices able to receive notifications.
    public var activeDevices: Int
    /// Devices made inactive (APNs said the token is gone, or the backend deactivated them).
    public var inactiveDevices: Int
    /// Fires recorded in the window, by outcome (`delivered`, `skipped`, ...).
    public var outcomes: [String: Int]
    /// Delivered fires per second over the window.
    public var deliveriesPerSecond: Double
    /// The median lateness of the window's delivered fires (recorded instant minus due instant), in seconds.
    public var latenessP50: TimeInterval?
    /// The 99th percentile of the same.
    public var latenessP99: TimeInterval?
    /// Dead letters (APNs refused for good) recorded in the window, by reason.
    public var deadLetters: [String: Int]

    /// Creates statistics; the store's ``PostgresNotificationStore/clusterStatistics(at:window:)`` reads them.
    public init(
        date: Date, window: TimeInterval, pending: Int = 0, dueBacklog: Int = 0, claimed: Int = 0,
        activeDevices: Int = 0, inactiveDevices: Int = 0, outcomes: [String: Int] = [:],
        deliveriesPerSecond: Double = 0, latenessP50: TimeInterval? = nil, latenessP99: TimeInterval? = nil,
        deadLetters: [String: Int] = [:]
    ) {
        self.date = date
        self.window = window
        self.pending = pending
        self.dueBacklog = dueBacklog
        self.claimed = claimed
        self.activeDevices = activeDevices
        self.inactiveDevices = inactiveDevices
        self.outcomes = outcomes
        self.deliveriesPerSecond = deliveriesPerSecond
        self.latenessP50 = latenessP50
        self.latenessP99 = latenessP99
        self.deadLetters = deadLetters
    }
}
