/// What became of a notification a ``ConfirmingPresenter`` handed over.
public enum PresentationOutcome: Sendable, Hashable {
    /// It was shown, or accepted by whatever shows it.
    case presented
    /// It was refused for good: recorded as skipped with this reason, and not presented again.
    case failed(String)
    /// It could not be handed over now: left unrecorded, presented again once its claim's lease ends.
    case retryLater(String)
}
