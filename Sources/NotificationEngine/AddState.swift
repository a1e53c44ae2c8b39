import Foundation

/// What ``NotificationScheduler/add(_:appID:)`` needs of the scheduler's state, kept beside the actor in a `Mutex`
/// (``NotificationScheduler/addState``) so that an add runs without hopping onto the actor's executor.
///
/// The actor writes both fields where its own state changes; an add only reads them, and when they do not answer
/// (the zone differs, the loop is not asleep) it takes the actor's way: ``NotificationScheduler/checkPlannedZone()``,
/// or a wake-up of the loop.
struct AddState: Sendable {
    /// The system zone last found equal to the zone of the store's floating plans; `nil` until the first check. An add
    /// that finds the clock in another zone waits for ``NotificationScheduler/checkPlannedZone()`` (and its re-plan).
    var checkedZone: String?
    /// While the delivery loop sleeps: the instant from which an add needs no wake-up. Holding no request claimed
    /// ahead, the instant it sleeps until: it reads the store again then. Holding some, the last one's due instant
    /// plus ``EngineConfiguration/claimAhead``: after presenting them it claims ahead again, and an add due later is
    /// claimed in time then. `nil` while the loop works or does not run.
    var quietUntil: Date?
    /// While ``quietUntil`` is set: the requests the loop holds claimed ahead, by ``heldKey(appID:identifier:)``. An
    /// add that replaces one of them wakes the loop, which checks them against the store before presenting any.
    var quietHeld: Set<String> = []

    /// Whether an add stored with nothing discarded by the pending cap needs no wake-up of the sleeping loop: it is
    /// first due no sooner than ``quietUntil`` and replaces no request the loop holds.
    /// - Parameters:
    ///   - appID: The app of the request added.
    ///   - identifier: Its identifier.
    ///   - fireDate: Its first fire date (`nil`: it never fires, and wakes the loop as before).
    func isQuiet(appID: String, identifier: String, fireDate: Date?) -> Bool {
        guard let quietUntil, let fireDate, fireDate >= quietUntil else { return false }
        return quietHeld.isEmpty || !quietHeld.contains(Self.heldKey(appID: appID, identifier: identifier))
    }

    /// The requests the loop holds claimed ahead or has been handed stored claimed (pushes), by
    /// ``heldKey(appID:identifier:)``, whether it sleeps or works; it may name some it no longer holds.
    var heldKeys: Set<String> = []
    /// Claims of the loop, and pushes being stored claimed for it, under way: their requests are not in ``heldKeys``
    /// yet, and an add meanwhile may replace one of them.
    var heldKeysPending = 0

    /// Whether an add of this request, once stored, may have replaced a request the loop holds claimed ahead, so that
    /// the loop must check its held requests against the store before presenting one: it names a held request, or a
    /// claim of the loop (or a push stored claimed) is under way, whose requests are not known yet.
    func mayReplaceHeld(appID: String, identifier: String) -> Bool {
        heldKeysPending > 0 || heldKeys.contains(Self.heldKey(appID: appID, identifier: identifier))
    }

    /// How ``quietHeld`` and ``heldKeys`` name a request: its app and identifier.
    static func heldKey(appID: String, identifier: String) -> String { appID + "\u{0}" + identifier }
}
