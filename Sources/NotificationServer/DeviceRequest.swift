import NotificationModel

/// One request of a batch for ``DeviceScheduler/schedule(_:)``: a request and the device it is scheduled for.
///
/// ```swift
/// let failures = await devices.schedule([
///     DeviceRequest(deviceID: "user-42-phone", spec: RequestSpec(identifier: "weekly", content: content, trigger: nine)),
///     DeviceRequest(deviceID: "user-43-phone", spec: RequestSpec(identifier: "weekly", content: content, trigger: nine)),
/// ])
/// ```
public struct DeviceRequest: Sendable, Hashable {
    /// The device's identifier (``Device/id``).
    public var deviceID: String
    /// The request, as for ``DeviceScheduler/schedule(_:forDevice:)``.
    public var spec: RequestSpec

    /// A request for a device.
    ///
    /// - Parameters:
    ///   - deviceID: The device's identifier.
    ///   - spec: The request; floating calendar components are planned in the device's zone.
    public init(deviceID: String, spec: RequestSpec) {
        self.deviceID = deviceID
        self.spec = spec
    }
}
