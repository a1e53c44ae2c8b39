import Foundation
import NotificationEngine
import NotificationLocation
import NotificationModel
import NotificationClient

/// Hands fixes to the engine that delivers: the CLI's own in embedded mode, the daemon's through the socket when
/// `unotifyd` runs (it evaluates every app's regions and reports the crossings of this app's requests).
struct LocationReporter {
    private let scheduler: NotificationScheduler?
    private let daemon: DaemonBackend?
    private let appID: String

    init(_ context: CLIContext) async throws {
        scheduler = context.scheduler
        daemon = context.daemon
        appID = context.appID
        guard scheduler != nil || daemon != nil else { throw CLIError("no engine and no daemon") }
    }

    /// Evaluates one fix.
    func report(_ fix: LocationFix) async throws -> [NotificationScheduler.LocationEvent] {
        if let scheduler { return try await scheduler.locationDidChange(fix, deliver: true) }
        return try await daemon!.locationDidChange(fix, appID: appID)
    }

    /// `entered home (local.unotify/arrive, 12 m from the center): fires`
    static func describe(_ event: NotificationScheduler.LocationEvent) -> String {
        "\(event.crossing == .entry ? "entered" : "left") \(event.regionIdentifier) "
            + "(\(event.appID)/\(event.requestIdentifier), \(Int(event.distance.rounded())) m from the center): "
            + (event.fires ? "fires" : "does not notify on \(event.crossing.rawValue)")
    }

    /// The event for `--json`.
    static func json(_ event: NotificationScheduler.LocationEvent) -> [String: Any] {
        [
            "app": event.appID, "request": event.requestIdentifier, "region": event.regionIdentifier,
            "crossing": event.crossing.rawValue, "distance": event.distance, "fires": event.fires,
        ]
    }
}
