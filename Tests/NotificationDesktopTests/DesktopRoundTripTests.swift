import DBusKit
import Foundation
import NotificationDesktop
import NotificationEngine
import OpenUserNotifications
import OpenUserNotificationsTesting
import Synchronization
import Testing

/// An app's delegate that shows every notification and writes down each response it receives.
final class AnsweringDelegate: NSObject, UNUserNotificationCenterDelegate, Sendable {
    private let received = Mutex<[String]>([])

    /// `"<identifier> <action>"`, or `"<identifier> <action> <text>"` for text input, in order of arrival.
    var responses: [String] { received.withLock { $0 } }

    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification
    ) async -> UNNotificationPresentationOptions {
        [.banner, .list, .sound]
    }

    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {
        var line = "\(response.notification.request.identifier) \(response.actionIdentifier)"
        if let text = (response as? UNTextInputNotificationResponse)?.userText { line += " \(text)" }
        received.withLock { $0.append(line) }
    }
}

/// The whole path on a real desktop: an app schedules through `UNUserNotificationCenter`, the engine delivers
/// through `DesktopPresenter` to dunst, a person acts with `dunstctl`, and the app's delegate receives exactly the
/// right responses. Embedded and daemon mode alike.
@Suite(
    "Round trip through dunst: schedule, show, act, response to the delegate",
    .enabled(if: PrivateDesktop.isAvailable), .timeLimit(.minutes(1)))
struct DesktopRoundTripTests {
    static let app = "com.example.roundtrip"

    /// Actions and a dismiss action the app wants to hear about.
    static let meeting = UNNotificationCategory(
        identifier: "meeting",
        actions: [
            UNNotificationAction(identifier: "snooze", title: "Snooze 5 min"),
            UNNotificationAction(identifier: "decline", title: "Decline", options: [.destructive]),
        ], intentIdentifiers: [], options: [.customDismissAction])
    /// No `.customDismissAction`: dismissing answers nothing.
    static let plain = UNNotificationCategory(identifier: "plain", actions: [], intentIdentifiers: [], options: [])

    struct RoundTrip {
        let desktop: PrivateDesktop
        let system: NotificationTestSystem
        let center: UNUserNotificationCenter
        let delegate: AnsweringDelegate

        /// Schedules a request 60 s away, moves the clock there, and waits until dunst shows it.
        func deliver(_ identifier: String, category: String) async throws {
            let content = UNMutableNotificationContent()
            content.title = "Meeting soon"
            content.body = "Standup (\(identifier))"
            content.categoryIdentifier = category
            try await center.add(
                UNNotificationRequest(
                    identifier: identifier, content: content,
                    trigger: UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: false)))
            let shown = try await desktop.displayedCount()
            await system.advance(by: 60)
            try await desktop.waitUntil("dunst shows \(identifier)") { try await desktop.displayedCount() == shown + 1 }
        }

        /// Waits until the delegate has received `count` responses.
        func responses(count: Int) async throws -> [String] {
            try await desktop.waitUntil("the delegate has \(count) response(s)") { delegate.responses.count >= count }
            return delegate.responses
        }
    }

    func withRoundTrip(_ mode: NotificationTestSystem.Mode, _ body: (RoundTrip) async throws -> Void) async throws {
        let desktop = try PrivateDesktop()
        do {
            // dunst's context menu runs this instead of dmenu: it picks the "snooze" line it is fed.
            try desktop.configureDunst(pickingContextLine: ",snooze]")
            let relay = ResponseRelay()
            let presenter = DesktopPresenter(
                connection: try DBusConnection(address: desktop.busAddress), onResponse: relay.handler)
            let system = try NotificationTestSystem(mode: mode, presentingThrough: presenter)
            relay.connect(system.scheduler)
            let center = try await system.center(for: Self.app)
            center.setNotificationCategories([Self.meeting, Self.plain])
            let delegate = AnsweringDelegate()
            center.delegate = delegate
            await center.settle()
            do {
                try await body(RoundTrip(desktop: desktop, system: system, center: center, delegate: delegate))
            } catch {
                await presenter.close()
                throw error
            }
            await presenter.close()
        } catch {
            await desktop.stop()
            throw error
        }
        await desktop.stop()
    }

    @Test("clicking the notification reaches didReceive as the default action", arguments: NotificationTestSystem.Mode.allCases)
    func defaultAction(mode: NotificationTestSystem.Mode) async throws {
        try await withRoundTrip(mode) { trip in
            try await trip.deliver("standup", category: "meeting")
            try await trip.desktop.dunstctl("action", "0")
            #expect(try await trip.responses(count: 1) == ["standup \(UNNotificationDefaultActionIdentifier)"])
        }
    }

    @Test("a button chosen from dunst's context menu reaches didReceive as that action", arguments: NotificationTestSystem.Mode.allCases)
    func customAction(mode: NotificationTestSystem.Mode) async throws {
        try await withRoundTrip(mode) { trip in
            try await trip.deliver("standup", category: "meeting")
            try await trip.desktop.dunstctl("context")
            #expect(try await trip.responses(count: 1) == ["standup snooze"])
        }
    }

    @Test(
        "dismissing answers the dismiss action only with .customDismissAction; the app's own removal answers nothing",
        arguments: NotificationTestSystem.Mode.allCases)
    func dismissals(mode: NotificationTestSystem.Mode) async throws {
        try await withRoundTrip(mode) { trip in
            // Dismissed by the person (reason 2), category without .customDismissAction: no response.
            try await trip.deliver("quiet", category: "plain")
            try await trip.desktop.dunstctl("close")
            try await trip.desktop.waitUntil("dunst closed it") { try await trip.desktop.displayedCount() == 0 }
            // Removed by the app: CloseNotification (reason 3), no response.
            try await trip.deliver("removed", category: "meeting")
            trip.center.removeDeliveredNotifications(withIdentifiers: ["removed"])
            try await trip.desktop.waitUntil("dunst closed it") { try await trip.desktop.displayedCount() == 0 }
            // Dismissed by the person, category with .customDismissAction: the dismiss action.
            try await trip.deliver("standup", category: "meeting")
            try await trip.desktop.dunstctl("close")
            // Responses arrive in order, so had the first two answered anything it would come first.
            #expect(try await trip.responses(count: 1) == ["standup \(UNNotificationDismissActionIdentifier)"])
        }
    }

    @Test("the badge count goes to the docks as com.canonical.Unity.LauncherEntry.Update")
    func badge() async throws {
        try await withRoundTrip(.embedded) { trip in
            let listener = try DBusConnection(address: trip.desktop.busAddress)
            // The bus's own NameAcquired arrives too: keep the launcher's signals only.
            let all = listener.signals()
            let (signals, continuation) = AsyncStream<DBusSignal>.makeStream()
            let forward = Task {
                for await signal in all where signal.interface == LauncherBadge.interface { continuation.yield(signal) }
                continuation.finish()
            }
            defer { forward.cancel() }
            try await listener.addMatch("type='signal',interface='\(LauncherBadge.interface)'")
            try await trip.center.setBadgeCount(3)
            let update = try await firstElement(of: signals)
            await listener.close()
            #expect(update?.member == "Update")
            #expect(update?.path == LauncherBadge.objectPath(appID: Self.app))
            #expect(update?.arguments.first == .string("application://\(Self.app).desktop"))
            #expect(update?.arguments.last == .variantDictionary(["count": .int64(3), "count-visible": .boolean(true)]))
        }
    }
}
