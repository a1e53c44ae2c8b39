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
    /// While the delivery loop sleeps holding no request claimed ahead: the instant it sleeps until. An add due no
    /// sooner needs no wake-up, because the loop reads the store again at that instant. `nil` otherwise.
    var quietUntil: Date?
}
