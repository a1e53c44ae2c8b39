import Foundation

/// Replays a recorded track (GPX or CSV, see ``LocationTrack``) as a location source, keeping the time between
/// fixes divided by a speed factor.
///
/// Waiting goes through an injected `sleep`, so tests replay instantly (speed 0, or a sleep that returns at
/// once); the default sleeps in real time. The fixes keep the timestamps of the track.
///
/// ```swift
/// let track = try LocationTrack(contentsOf: URL(fileURLWithPath: "Examples/LocationReplay/walk.gpx"))
/// for try await fix in ReplayLocationSource(track: track, speed: 60).fixes() {
///     try await scheduler.locationDidChange(fix)
/// }
/// ```
public struct ReplayLocationSource: LocationSource {
    /// The track replayed.
    public let track: LocationTrack
    /// How many times faster than recorded: 1 is real time, 10 ten times faster; 0 (or infinity) does not wait.
    public let speed: Double
    private let sleep: @Sendable (Duration) async throws -> Void

    /// Creates a replay.
    ///
    /// - Parameters:
    ///   - track: The fixes to replay, in order.
    ///   - speed: The speed factor; 0 or less, or infinity, replays without waiting.
    ///   - sleep: How to wait between fixes; `Task.sleep` by default.
    public init(
        track: LocationTrack, speed: Double = 1,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.track = track
        self.speed = speed
        self.sleep = sleep
    }

    /// The pause before the fix at `index`: its distance in time from the previous fix over the speed factor.
    public func delay(before index: Int) -> Duration {
        guard index > 0, speed > 0, speed.isFinite, index < track.fixes.count else { return .zero }
        let gap = track.fixes[index].timestamp.timeIntervalSince(track.fixes[index - 1].timestamp)
        return gap > 0 ? .milliseconds(Int64((gap / speed * 1000).rounded())) : .zero
    }

    /// The fixes of the track, paced by the speed factor.
    public func fixes() -> AsyncThrowingStream<LocationFix, any Error> {
        let replay = self
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for (index, fix) in replay.track.fixes.enumerated() {
                        let pause = replay.delay(before: index)
                        if pause > .zero { try await replay.sleep(pause) }
                        try Task.checkCancellation()
                        continuation.yield(fix)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
