// The Swift samples of docs/location.md, compiled (DocSnippetTests checks that each stands here line for line).
import NotificationEngine
import NotificationGeoClue
import OpenUserNotifications

enum LocationSnippets {
    static func regionTrigger(center: UNUserNotificationCenter, content: UNNotificationContent) async throws {
        let region = CLCircularRegion(
            center: CLLocationCoordinate2D(latitude: 48.8584, longitude: 2.2945), radius: 150, identifier: "tower")
        region.notifyOnExit = false
        try await center.add(UNNotificationRequest(
            identifier: "arrive", content: content, trigger: UNLocationNotificationTrigger(region: region, repeats: false)))
    }

    static func geoClueFeed(scheduler: NotificationScheduler) async throws {
        let source = GeoClueLocationSource(configuration: GeoClueConfiguration(desktopID: "unotifyd"))
        for try await fix in source.fixes() {
            try await scheduler.locationDidChange(fix)
        }
    }
}
