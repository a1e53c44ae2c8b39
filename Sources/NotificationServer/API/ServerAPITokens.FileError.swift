extension ServerAPITokens {
    /// Why a token file was refused: the line at fault (1-based; `nil` for the file as a whole) and what is wrong.
    ///
    /// The message never contains a token. A struct, so new cases never break callers.
    ///
    /// ```swift
    /// do { _ = try ServerAPITokens(parsing: "ci short\n") } catch { print(error) }
    /// // line 1: the token of 'ci' must be at least 16 characters without spaces or control characters
    /// ```
    public struct FileError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The line at fault, counted from 1; `nil` when the file as a whole is (no token, or it cannot be read).
        public var line: Int?
        /// What is wrong.
        public var message: String

        /// Creates an error.
        public init(line: Int?, _ message: String) {
            self.line = line
            self.message = message
        }

        public var description: String { line.map { "line \($0): \(message)" } ?? message }
    }
}
