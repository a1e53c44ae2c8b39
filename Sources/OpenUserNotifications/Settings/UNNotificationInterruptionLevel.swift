/// How urgently a notification should interrupt.
public enum UNNotificationInterruptionLevel: UInt, Sendable, Hashable {
    /// Added to the list without lighting the screen or playing a sound.
    case passive = 0
    /// Presented at once, lighting the screen and possibly playing a sound.
    case active = 1
    /// May break through Focus.
    case timeSensitive = 2
    /// Always presented, bypassing the mute switch and Focus.
    case critical = 3
}
