import Foundation
import NotificationEngine
import NotificationLocation
import NotificationModel
import NotificationStoreSQLite

/// Hands fixes to an engine: the CLI's own in embedded mode (it evaluates and delivers), or, with unotifyd running,
/// an engine over the daemon's store that only evaluates (the daemon sees the store change and delivers).
///
/// > Note: The wire protocol has no location message yet (adding one needs the daemon's request dispatch), so in
/// > daemon mode the regions' states are updated in the store directly; see docs/location.md.
struct LocationReporter {
    let scheduler: NotificationScheduler
    /// Whether this process delivers what fires (embedded mode).
    let delivers: Bool

    init(_ context: CLIContext) async throws {
        if let scheduler = context.scheduler {
            self.scheduler = scheduler
            delivers = true
            return
        }
        guard let daemon = context.daemon else { throw CLIError("no engine and no daemon") }
        let storePath = try await daemon.status(appID: context.appID).storePath
        let store: SQLiteNotificationStore
        do { store = try SQLiteNotificationStore(path: storePath) } catch {
            throw CLIError("cannot open the daemon's store at \(storePath): \(error)")
        }
        scheduler = NotificationScheduler(
            store: store, clock: SystemNotificationClock(), presenter: SilentPresenter(),
            configuration: context.configuration.engineConfiguration)
        delivers = false
    }

    /// Evaluates one fix.
    func report(_ fix: LocationFix) async throws -> [NotificationScheduler.LocationEvent] {
        try await scheduler.locationDidChange(fix, deliver: delivers)
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

/// A presenter for an engine that never delivers (it only evaluates fixes for the daemon).
private struct SilentPresenter: NotificationPresenter {
    let name = "none"
    func present(_ notification: DeliveredNotification, options: PresentationSet, category: CategorySpec?) async {}
    func withdraw(appID: String, identifiers: [String]) async {}
    func badgeDidChange(appID: String, count: Int) async {}
}
