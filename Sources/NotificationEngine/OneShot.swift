import Synchronization

/// A value given once and awaited by one reader: `claim` marks the first giver, `resolve` hands the value over.
public final class OneShot<Value: Sendable>: Sendable {
    private struct State {
        var claimed = false
        var value: Value?
        var resolved = false
        var waiter: CheckedContinuation<Value, Never>?
    }

    private let state = Mutex(State())

    public init() {}

    /// Whether this caller is the first to give a value.
    public func claim() -> Bool {
        state.withLock { state in
            defer { state.claimed = true }
            return !state.claimed
        }
    }

    /// Hands over the value; later calls do nothing.
    public func resolve(_ value: Value) {
        let waiter = state.withLock { state -> CheckedContinuation<Value, Never>? in
            guard !state.resolved else { return nil }
            state.resolved = true
            state.claimed = true
            state.value = value
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: value)
    }

    /// Waits for the value.
    public func value() async -> Value {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Value? in
                if state.resolved { return state.value }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
