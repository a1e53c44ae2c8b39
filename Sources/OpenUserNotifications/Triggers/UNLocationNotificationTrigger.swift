import Foundation
import NotificationModel

/// Fires when the device enters or leaves a region.
///
/// On Linux the engine decides crossings from the location fixes it is given (`unotify location set` or
/// `unotify location replay` by hand or from a track; GeoClue is not wired yet), with great-circle distances and a
/// hysteresis band at the edge, and fires per the region's `notifyOnEntry` and `notifyOnExit`: once for a
/// non-repeating trigger (then it leaves the pending list), on every qualifying crossing for a repeating one. The
/// first fix after the trigger is added only sets the starting side, unless an earlier fix was on the other side.
/// See docs/location.md.
open class UNLocationNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    /// The region.
    public let region: CLRegion

    public init(region: CLRegion, repeats: Bool) {
        self.region = region
        super.init(repeats: repeats)
    }

    /// Decodes a trigger archived with ``UNNotificationTrigger/encode(with:)``.
    public required init?(coder: NSCoder) {
        guard case .location(let spec, _)? = coder.decodeSpec(TriggerSpec.self, forKey: "trigger") else { return nil }
        let circular = CLCircularRegion(
            center: CLLocationCoordinate2D(latitude: spec.latitude, longitude: spec.longitude), radius: spec.radius,
            identifier: spec.identifier)
        circular.notifyOnEntry = spec.notifyOnEntry
        circular.notifyOnExit = spec.notifyOnExit
        region = circular
        super.init(coder: coder)
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
