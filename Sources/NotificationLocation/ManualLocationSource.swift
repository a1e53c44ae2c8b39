import Synchronization

/// A source fed by hand: `unotify location set <lat> <lon>`, or a test that moves the device.
///
/// Each call to ``report(_:)`` reaches every sequence made by ``fixes()`` that is still being iterated; ``finish()``
/// ends them. Fixes reported while nobody iterates are not kept.
///
/// ```swift
/// let source = ManualLocationSource()
/// source.report(LocationFix(latitude: 51.5, longitude: -0.12, timestamp: clock.now))
/// ```
public final class ManualLocationSource: LocationSource {
    private struct State {
        var continuations: [Int: AsyncThrowingStream<LocationFix, any Error>.Continuation] = [:]
        var nextID = 0
        var finished = false
    }

    private let state = Mutex(State())

    /// Creates a source with no listeners.
    public init() {}

    /// A sequence of the fixes reported from now on.
    public func fixes() -> AsyncThrowingStream<LocationFix, any Error> {
        let (stream, continuation) = AsyncThrowingStream<LocationFix, any Error>.makeStream()
        let id = state.withLock { state -> Int? in
            guard !state.finished else { return nil }
            defer { state.nextID += 1 }
            state.continuations[state.nextID] = continuation
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Reports a fix to every current listener.
    public func report(_ fix: LocationFix) {
        let listeners = state.withLock { Array($0.continuations.values) }
        for listener in listeners { listener.yield(fix) }
    }

    /// Ends every sequence; later ones end at once.
    public func finish() {
        let listeners = state.withLock { state in
            state.finished = true
            defer { state.continuations.removeAll() }
            return Array(state.continuations.values)
        }
        for listener in listeners { listener.finish() }
    }
}
