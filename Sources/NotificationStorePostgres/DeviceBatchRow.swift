import NotificationModel

/// One request of an all-or-nothing batch for devices, ready to store: the pending row and the device's floating
/// mark for it (``PostgresNotificationStore/insertPending(forDevices:cap:at:_:)``).
///
/// ```swift
/// DeviceBatchRow(deviceID: "user-42-phone", request: pending, floating: true)
/// ```
public struct DeviceBatchRow: Sendable, Hashable {
    /// The device the request is for (its ``Device/appID`` is the request's app).
    public var deviceID: String
    /// The request with its first fire date, as the engine would store it.
    public var request: PendingRequest
    /// Whether it was scheduled with floating calendar components (stored pinned to the device's zone), as
    /// ``PostgresNotificationStore/setFloating(_:identifier:deviceID:)`` records it.
    public var floating: Bool

    /// A row of a batch.
    ///
    /// - Parameters:
    ///   - deviceID: The device's identifier.
    ///   - request: The pending request, `appID` the device's app identity.
    ///   - floating: Whether its calendar components were floating before they were pinned to the device's zone.
    public init(deviceID: String, request: PendingRequest, floating: Bool) {
        self.deviceID = deviceID
        self.request = request
        self.floating = floating
    }
}
