/// The rule every way in applies to an app's identifier (its bundle identifier): the CLI's `--app` and `push`'s
/// bundle, the daemon's `hello`, the API's centers.
///
/// Apple's bundle identifiers use letters, digits, hyphens and periods; we also take underscores (seen in
/// identifiers of Linux apps), and bound the length at 255 bytes. Empty, blank or control characters are refused,
/// so that an identifier can always be shown, used in a file name and matched.
///
/// ```swift
/// try AppIdentifier.validate("com.example.app")   // fine
/// try AppIdentifier.validate("")                  // AppIdentifier.Invalid: "an app identifier cannot be empty"
/// ```
public enum AppIdentifier {
    /// Why an identifier is refused: one sentence.
    public struct Invalid: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// The longest identifier accepted, in bytes.
    public static let maximumLength = 255

    /// Checks `identifier` against the rule above.
    public static func validate(_ identifier: String) throws(Invalid) {
        guard !identifier.isEmpty else { throw Invalid(description: "an app identifier cannot be empty") }
        guard identifier.utf8.count <= maximumLength else {
            throw Invalid(description: "an app identifier has at most \(maximumLength) bytes (got \(identifier.utf8.count))")
        }
        let allowed = identifier.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || ".-_".unicodeScalars.contains(scalar))
        }
        guard allowed else {
            throw Invalid(
                description: "'\(identifier.prefix(80))' is not an app identifier: use letters, digits, '.', '-' and '_' "
                    + "(such as com.example.app)")
        }
    }
}
