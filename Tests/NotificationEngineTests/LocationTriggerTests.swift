import Foundation
import NotificationEngine
import NotificationLocation
import NotificationModel
import OpenUserNotifications
import OpenUserNotificationsTesting
import Testing

/// The Eiffel Tower, center of most regions below.
private let tower = CLLocationCoordinate2D(latitude: 48.8584, longitude: 2.2945)

/// A location request through Apple's API.
private func arrival(
    _ id: String, radius: Double = 100, center: CLLocationCoordinate2D = tower, entry: Bool = true, exit: Bool = true,
    repeats: Bool = false
) -> UNNotificationRequest {
    let region = CLCircularRegion(center: center, radius: radius, identifier: "region-\(id)")
    region.notifyOnEntry = entry
    region.notifyOnExit = exit
    return UNNotificationRequest(
        identifier: id, content: content(id), trigger: UNLocationNotificationTrigger(region: region, repeats: repeats))
}

/// A fix `distance` metres east of `center`, at the system's current time.
private func fix(_ system: NotificationTestSystem, _ distance: Double, from center: CLLocationCoordinate2D = tower)
    -> LocationFix
{
    let point = GreatCircle.destination(
        fromLatitude: center.latitude, longitude: center.longitude, distance: distance, bearing: 90)
    return LocationFix(
        latitude: point.latitude, longitude: point.longitude, horizontalAccuracy: 5, timestamp: system.clock.now)
}

/// Reports fixes at the given distances, a second apart, and returns the events of each.
@discardableResult
private func move(
    _ system: NotificationTestSystem, _ distances: [Double], from center: CLLocationCoordinate2D = tower
) async throws -> [[NotificationScheduler.LocationEvent]] {
    var events: [[NotificationScheduler.LocationEvent]] = []
    for distance in distances {
        system.clock.advance(by: 1)
        events.append(try await system.scheduler.locationDidChange(fix(system, distance, from: center)))
    }
    return events
}

@Suite("Location triggers")
struct LocationTriggerTests {
    @Test(
        "entering fires a non-repeating trigger once, and it leaves the pending list",
        arguments: NotificationTestSystem.Mode.allCases)
    func entryOnce(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app)
        try await center.add(arrival("tower"))
        let events = try await move(system, [1_000, 300, 50, 20, 1_000, 50])
        #expect(events[2].map(\.crossing) == [.entry] && events[2].first?.fires == true)
        #expect(events[3...].allSatisfy { $0.isEmpty }, "the request is gone after its fire")
        #expect(system.presenter.presentations.map(\.identifier) == ["tower"])
        #expect(await center.pendingNotificationRequests().isEmpty)
        #expect(await center.deliveredNotifications().map(\.request.identifier) == ["tower"])
        let history = try await system.history(app: app)
        #expect(history.map(\.requestIdentifier) == ["tower"])
        #expect(history.first?.outcome == .delivered)
    }

    @Test("an exit-only region fires when leaving, not when entering", arguments: NotificationTestSystem.Mode.allCases)
    func exitOnly(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app)
        try await center.add(arrival("leave", entry: false, exit: true))
        let events = try await move(system, [1_000, 50, 1_000])
        #expect(events[1].map(\.fires) == [false])
        #expect(events[2].map(\.crossing) == [.exit] && events[2].first?.fires == true)
        #expect(system.presenter.presentations.map(\.identifier) == ["leave"])
        #expect(await center.pendingNotificationRequests().isEmpty)
    }

    @Test(
        "a repeating trigger fires on every qualifying crossing and stays pending",
        arguments: NotificationTestSystem.Mode.allCases)
    func repeating(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app)
        try await center.add(arrival("both", repeats: true))
        try await center.add(arrival("in", exit: false, repeats: true))
        try await move(system, [1_000, 50, 1_000, 50, 1_000])
        #expect(system.presenter.presentations.map(\.identifier).filter { $0 == "both" }.count == 4)
        #expect(system.presenter.presentations.map(\.identifier).filter { $0 == "in" }.count == 2)
        let pending = await center.pendingNotificationRequests()
        #expect(Set(pending.map(\.identifier)) == ["both", "in"])
        #expect(pending.allSatisfy { ($0.trigger as? UNLocationNotificationTrigger)?.repeats == true })
        #expect(try await system.history(app: app).count == 6)
    }

    @Test(
        "the first fix inside does not fire a trigger added while the location was unknown",
        arguments: NotificationTestSystem.Mode.allCases)
    func firstFixInside(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app)
        try await center.add(arrival("home"))
        try await move(system, [30, 20])
        #expect(system.presenter.presentations.isEmpty, "already inside when added: no entry")
        try await move(system, [1_000])
        #expect(system.presenter.presentations.map(\.identifier) == ["home"], "leaving is a crossing")
    }

    @Test(
        "a trigger added while the last fix was outside fires on the first fix inside",
        arguments: NotificationTestSystem.Mode.allCases)
    func knownOutsideBeforeAdd(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app)
        try await move(system, [2_000])
        try await center.add(arrival("outside-first", exit: false))
        try await move(system, [40])
        #expect(system.presenter.presentations.map(\.identifier) == ["outside-first"])
        // Inside before the add: the first fix after it sets the state only.
        try await center.add(arrival("inside-first", exit: false))
        try await move(system, [10])
        #expect(system.presenter.presentations.count == 1)
        #expect(await system.scheduler.lastLocationFix != nil)
        // The remembered fix expires.
        system.clock.advance(by: NotificationScheduler.locationMemoryLifetime + 1)
        #expect(await system.scheduler.lastLocationFix == nil)
    }

    @Test("jitter of ±5 m around the boundary fires once", arguments: NotificationTestSystem.Mode.allCases)
    func jitter(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app)
        try await center.add(arrival("edge", repeats: true))
        var distances: [Double] = [400]
        for index in 0..<30 { distances.append(index.isMultiple(of: 2) ? 95 : 105) }
        distances.append(60)
        for index in 0..<30 { distances.append(index.isMultiple(of: 2) ? 95 : 105) }
        try await move(system, distances)
        #expect(system.presenter.presentations.map(\.identifier) == ["edge"])
    }

    @Test(
        "apps are isolated: a fix fires each app's own requests, in its own name",
        arguments: NotificationTestSystem.Mode.allCases)
    func appsIsolated(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let first = try await system.center(for: "com.example.first")
        let second = try await system.center(for: "com.example.second")
        let denied = try await system.center(for: "com.example.denied", authorize: false)
        try await first.add(arrival("same-id"))
        try await second.add(arrival("same-id", radius: 500))
        try await second.add(arrival("elsewhere", center: CLLocationCoordinate2D(latitude: 51.5, longitude: -0.12)))
        _ = try? await denied.add(arrival("denied"))
        try await system.scheduler.setAuthorization(appID: "com.example.denied", status: .denied, options: [])
        try await move(system, [2_000, 300, 10])
        let shown = system.presenter.presentations.map { "\($0.appID)/\($0.identifier)" }
        #expect(shown == ["com.example.second/same-id", "com.example.first/same-id"])
        #expect(await first.pendingNotificationRequests().isEmpty)
        #expect(await second.pendingNotificationRequests().map(\.identifier) == ["elsewhere"])
        #expect(try await system.history(app: "com.example.first").count == 1)
    }

    @Test(
        "the app's delegate decides how a location notification is presented",
        arguments: NotificationTestSystem.Mode.allCases)
    func delegateWillPresent(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app)
        let delegate = RecordingDelegate()
        center.delegate = delegate
        await system.settle(center)
        try await center.add(arrival("foreground"))
        try await move(system, [1_000, 10])
        #expect(delegate.presented.map(\.request.identifier) == ["foreground"])
        #expect(delegate.presented.first?.request.trigger is UNLocationNotificationTrigger)
        #expect(try await system.history(app: app).first?.presenter != "none")
    }

    @Test("location requests never fire on time alone and have no fire date")
    func neverOnTime() async throws {
        let system = try NotificationTestSystem()
        let center = try await system.center(for: app)
        try await center.add(arrival("wait", repeats: true))
        #expect(await system.advance(by: 86_400 * 30) == 0)
        #expect(try await system.scheduler.store.nextWakeDate() == nil)
        #expect(try await system.scheduler.pendingRequests(appID: app).first?.nextFireDate == nil)
    }

    @Test("the region state survives a restart; the fix does not")
    func stateSurvivesRestart() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("location-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let system = try NotificationTestSystem(storePath: folder.appendingPathComponent("store.sqlite").path)
        let center = try await system.center(for: app)
        try await center.add(arrival("persisted", repeats: true))
        try await move(system, [1_000])  // outside: stored
        let states = try await system.scheduler.store.locationRequests(appID: app)
        #expect(states.map(\.state) == [.outside])
        let restarted = system.restarted()
        #expect(await restarted.scheduler.lastLocationFix == nil)
        system.clock.advance(by: 1)
        try await restarted.scheduler.locationDidChange(fix(restarted, 10))
        #expect(system.presenter.presentations.map(\.identifier) == ["persisted"])
        #expect(try await restarted.scheduler.store.locationRequests(appID: app).map(\.state) == [.inside])
    }

    @Test("unusable fixes are ignored")
    func unusable() async throws {
        let system = try NotificationTestSystem()
        let center = try await system.center(for: app)
        try await center.add(arrival("x"))
        try await move(system, [1_000])
        var bad = fix(system, 10)
        bad.horizontalAccuracy = -1
        #expect(try await system.scheduler.locationDidChange(bad).isEmpty)
        bad = fix(system, 10)
        bad.horizontalAccuracy = 5_000
        #expect(try await system.scheduler.locationDidChange(bad).isEmpty)
        #expect(system.presenter.presentations.isEmpty)
    }
}
