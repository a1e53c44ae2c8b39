import Foundation

extension PropertyListValue {
    /// The deepest nesting a stored `userInfo` may have: 32 levels of arrays and dictionaries below `userInfo`
    /// itself.
    ///
    /// Apple documents no limit; ours keeps everything that is accepted listable and deliverable: the wire protocol
    /// and the store wrap `userInfo` in a few more levels of JSON, and JSON decoders stop at a depth of their own
    /// (Foundation's at a few hundred). Real payloads nest a handful of levels.
    public static let maximumDepth = 32

    /// How deeply the value nests: 0 for a scalar, 1 for an array or dictionary of scalars.
    public var depth: Int {
        var deepest = 0
        switch self {
        case .array(let values):
            for value in values { deepest = Swift.max(deepest, value.depth) }
        case .dictionary(let values):
            for value in values.values { deepest = Swift.max(deepest, value.depth) }
        default: return 0
        }
        return 1 + deepest
    }

    /// Why a value is beyond what is accepted.
    public struct LimitError: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Checks what a `userInfo` must be for everything accepted to be listed, delivered and removed later: at most
    /// ``maximumDepth`` levels deep, and only finite numbers (JSON, which the store and the wire use, has no NaN or
    /// infinity).
    ///
    /// - Throws: ``LimitError`` naming where the value goes beyond a limit.
    public static func checkLimits(of dictionary: [String: PropertyListValue], path: String) throws(LimitError) {
        let depth = PropertyListValue.dictionary(dictionary).depth - 1
        guard depth <= maximumDepth else {
            throw LimitError(description: "\(path) nests \(depth) levels deep; at most \(maximumDepth) are accepted")
        }
        // The paths are spelled only when a number is not finite: spelling one per element cost every add (and
        // every line of `unotify import`) a few strings.
        guard !dictionary.values.allSatisfy(\.hasOnlyFiniteNumbers) else { return }
        try checkNumbers(.dictionary(dictionary), path: path)
    }

    /// Whether every number in the value is finite.
    private var hasOnlyFiniteNumbers: Bool {
        switch self {
        case .double(let number): number.isFinite
        case .array(let values): values.allSatisfy(\.hasOnlyFiniteNumbers)
        case .dictionary(let values): values.values.allSatisfy(\.hasOnlyFiniteNumbers)
        default: true
        }
    }

    private static func checkNumbers(_ value: PropertyListValue, path: String) throws(LimitError) {
        switch value {
        case .double(let number) where !number.isFinite:
            throw LimitError(description: "\(path) is \(number); numbers must be finite")
        case .array(let values):
            for (index, element) in values.enumerated() { try checkNumbers(element, path: "\(path)[\(index)]") }
        case .dictionary(let values):
            for (key, element) in values { try checkNumbers(element, path: "\(path)[\"\(key)\"]") }
        default: break
        }
    }
}
