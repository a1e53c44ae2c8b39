/// Something that reports where the device is: a replayed track, a person typing coordinates, or (later) a
/// positioning service such as GeoClue2.
///
/// A source is an asynchronous sequence of fixes; the consumer (the CLI, the daemon) hands each fix to
/// `NotificationScheduler.locationDidChange(_:)`. The sequence ends when the source has nothing more to say
/// (the end of a track) and throws when it fails.
///
/// ```swift
/// for try await fix in source.fixes() {
///     try await scheduler.locationDidChange(fix)
/// }
/// ```
public protocol LocationSource: Sendable {
    /// The fixes, in the order the source produces them.
    func fixes() -> AsyncThrowingStream<LocationFix, any Error>
}
