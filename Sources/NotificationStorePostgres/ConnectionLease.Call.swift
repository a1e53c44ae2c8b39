import Synchronization

extension ConnectionLease {
    /// One call: where it stands, and its caller, answered exactly once by whichever comes first of its body, its
    /// timer and its connection's closing.
    final class Call<T: Sendable>: Sendable {
        /// Where a call stands.
        private enum Phase {
            case waiting
            case leased
            case gaveUp
            case answered
        }

        /// The call's phase, its caller, and what to stop once the caller is answered.
        private struct State {
            var phase = Phase.waiting
            var caller: CheckedContinuation<T, any Error>?
            var stops: [@Sendable () -> Void] = []
        }

        /// The call's number, unique in its lease.
        let number: UInt64
        private let state: Mutex<State>
        /// Whether the call counts among the calls in flight (``DatabaseMetrics/inFlight``): from its lease until it
        /// is answered or its work ends, whichever comes first.
        private let counted = Atomic<Bool>(false)

        /// Creates a call whose answer goes to `caller`.
        init(number: UInt64, caller: CheckedContinuation<T, any Error>) {
            self.number = number
            state = Mutex(State(caller: caller))
        }

        /// Adds what to stop once the caller is answered (runs it at once when the caller was answered already).
        func onAnswer(stop: @escaping @Sendable () -> Void) {
            let answered = state.withLock { state in
                guard case .answered = state.phase else {
                    state.stops.append(stop)
                    return false
                }
                return true
            }
            if answered { stop() }
        }

        /// Marks the call as having its connection; `false` when it gave up waiting (or was answered) already.
        func lease() -> Bool {
            state.withLock { state in
                guard case .waiting = state.phase else { return false }
                state.phase = .leased
                return true
            }
        }

        /// Starts counting the call in flight; `true` the first time only.
        func startCounting() -> Bool { !counted.exchange(true, ordering: .relaxed) }

        /// Stops counting the call in flight; `true` only for the first call after ``startCounting()``.
        func stopCounting() -> Bool {
            counted.compareExchange(expected: true, desired: false, ordering: .relaxed).exchanged
        }

        /// Gives up waiting for a connection: `true` unless the call has one already (or was answered).
        func giveUp() -> Bool {
            state.withLock { state in
                guard case .waiting = state.phase else { return false }
                state.phase = .gaveUp
                return true
            }
        }

        /// Answers the caller with `result` unless it was answered already.
        ///
        /// - Parameters:
        ///   - result: The answer.
        ///   - answering: Runs once this is known to answer the caller, before the caller resumes (the lease counts
        ///     its failures there, so a caller reading the figures next sees its own call counted).
        /// - Returns: Whether this answered the caller.
        @discardableResult
        func answer(_ result: Result<T, any Error>, answering: () -> Void = {}) -> Bool {
            let taken = state.withLock { state -> (CheckedContinuation<T, any Error>, [@Sendable () -> Void])? in
                guard let caller = state.caller else { return nil }
                let stops = state.stops
                state = State(phase: .answered, caller: nil, stops: [])
                return (caller, stops)
            }
            guard let (caller, stops) = taken else { return false }
            answering()
            caller.resume(with: result)
            for stop in stops { stop() }
            return true
        }

        /// Answers the caller with `error` unless it was answered already; `answering` runs first when it does (see
        /// ``answer(_:answering:)``).
        ///
        /// - Returns: Whether this answered the caller.
        @discardableResult
        func fail(_ error: any Error, answering: () -> Void = {}) -> Bool {
            answer(.failure(error), answering: answering)
        }
    }
}
