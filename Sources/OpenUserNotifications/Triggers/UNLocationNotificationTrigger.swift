import Foundation
import NotificationModel

/// Fires when the device enters or leaves a region.
///
/// > Note: On Linux the trigger is accepted, stored and listed; firing it needs a location source, which
/// > arrives with the location work. Until then it stays pending.
open class UNLocationNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    /// The region.
    public let region: CLRegion

    public init(region: CLRegion, repeats: Bool) {
        self.region = region
        super.init(repeats: repeats)
    }

    package override var spec: TriggerSpec {
        let circular = region as? CLCircularRegion
        return .location(
            RegionSpec(
                identifier: region.identifier, latitude: circular?.center.latitude ?? 0,
                longitude: circular?.center.longitude ?? 0, radius: circular?.radius ?? 0,
                notifyOnEntry: region.notifyOnEntry, notifyOnExit: region.notifyOnExit),
            repeats: repeats)
    }
}
