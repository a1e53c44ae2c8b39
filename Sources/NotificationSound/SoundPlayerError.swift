/// Why ``SoundPlayer`` could not play a sound.
///
/// A struct wrapping a ``Code``, so new kinds of failure can be added without breaking callers.
public struct SoundPlayerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Int, Sendable, Hashable {
        /// The player program could not be started.
        case spawnFailed = 1
        /// The player ran but exited with a non-zero status or was killed by a signal.
        case playerFailed = 2
        /// The player did not finish within ``SoundPlayer/timeout`` and was killed with `SIGKILL`.
        case timedOut = 3
        /// No file for the default sound was found that this player can play.
        case noDefaultSound = 4
        /// This player cannot play the file's format (aplay plays only WAV).
        case unsupportedFormat = 5
    }

    /// The kind of failure.
    public let code: Code
    /// What happened, for the log; includes the end of the player's standard error when it failed.
    public let message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: What happened.
    public init(_ code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The ``message``.
    public var description: String { message }
}
