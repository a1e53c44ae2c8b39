import Foundation

/// A boolean expression over a device's tags: a push's `tag` target (docs/push-service.md).
///
/// Written as JSON, as JPush and Aliyun do: `{"tag": "news"}`, `{"and": [e, ...]}`, `{"or": [e, ...]}`,
/// `{"not": e}`, nested freely up to ``maximumDepth`` levels and ``maximumTags`` tags in all. A device matches
/// `{"tag": "news"}` when it has the tag `news`.
///
/// ```swift
/// // Devices tagged news and not muted.
/// let expression = try TagExpression(json: ["and": [["tag": "news"], ["not": ["tag": "muted"]]]])
/// let ids = try await store.deviceIDs(matching: expression, limit: 500)
/// ```
///
/// The store compiles an expression into SQL whose text holds only fixed words and `$n` placeholders; the tags are
/// bind parameters (``deviceQuery(after:limit:)``).
public indirect enum TagExpression: Sendable, Hashable {
    /// Devices with this tag.
    case tag(String)
    /// Devices matching every operand.
    case and([TagExpression])
    /// Devices matching at least one operand.
    case or([TagExpression])
    /// Devices not matching the operand.
    case not(TagExpression)

    /// The deepest nesting accepted: `{"tag": …}` alone is depth 1.
    public static let maximumDepth = 16
    /// The most tags one expression names.
    public static let maximumTags = 100
    /// The most operands of one `and` or `or`.
    public static let maximumOperands = 100

    /// Parses an expression from JSON text.
    ///
    /// - Throws: ``TagExpressionError`` naming where (a path such as `and[1].not`) and why, for text that is not
    ///   JSON or not an expression.
    public init(jsonText: Data) throws(TagExpressionError) {
        let value: Any
        do { value = try JSONSerialization.jsonObject(with: jsonText, options: [.fragmentsAllowed]) } catch {
            throw TagExpressionError(path: "", reason: "the expression is not valid JSON")
        }
        try self.init(json: value)
    }

    /// Parses an expression from a value `JSONSerialization` read (or one written as Swift literals).
    ///
    /// - Parameters:
    ///   - json: The expression: a dictionary with exactly one of `tag`, `and`, `or`, `not`.
    ///   - path: How errors name the expression itself (`target.tag` in the HTTP API); empty by default.
    /// - Throws: ``TagExpressionError`` naming where and why.
    public init(json: Any, path: String = "") throws(TagExpressionError) {
        var tags = 0
        self = try Self.parse(json, path: path, depth: 1, tags: &tags)
    }

    private static func parse(_ value: Any, path: String, depth: Int, tags: inout Int) throws(TagExpressionError)
        -> TagExpression
    {
        func child(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
        guard depth <= maximumDepth else {
            throw TagExpressionError(path: path, reason: "nested deeper than \(maximumDepth) levels")
        }
        guard let object = value as? [String: Any] else {
            throw TagExpressionError(
                path: path, reason: "an expression is an object with one of \"tag\", \"and\", \"or\", \"not\"")
        }
        guard object.count == 1, let entry = object.first else {
            throw TagExpressionError(
                path: path,
                reason:
                    "an expression has exactly one key of \"tag\", \"and\", \"or\", \"not\"; this one has \(object.keys.sorted())"
            )
        }
        let (key, operand) = (entry.key, entry.value)
        switch key {
        case "tag":
            guard let tag = operand as? String else {
                throw TagExpressionError(path: child("tag"), reason: "a tag is a string")
            }
            guard !tag.isEmpty, tag.count <= AudienceLimits.nameLength else {
                throw TagExpressionError(
                    path: child("tag"), reason: "a tag has 1 to \(AudienceLimits.nameLength) characters")
            }
            tags += 1
            guard tags <= maximumTags else {
                throw TagExpressionError(path: child("tag"), reason: "an expression names at most \(maximumTags) tags")
            }
            return .tag(tag)
        case "and", "or":
            guard let operands = operand as? [Any] else {
                throw TagExpressionError(path: child(key), reason: "\"\(key)\" takes an array of expressions")
            }
            guard !operands.isEmpty, operands.count <= maximumOperands else {
                throw TagExpressionError(
                    path: child(key), reason: "\"\(key)\" takes 1 to \(maximumOperands) expressions")
            }
            var parsed: [TagExpression] = []
            for (index, operand) in operands.enumerated() {
                parsed.append(try parse(operand, path: "\(child(key))[\(index)]", depth: depth + 1, tags: &tags))
            }
            return key == "and" ? .and(parsed) : .or(parsed)
        case "not":
            return .not(try parse(operand, path: child("not"), depth: depth + 1, tags: &tags))
        default:
            throw TagExpressionError(
                path: path, reason: "unknown operator \"\(key.prefix(40))\": use \"tag\", \"and\", \"or\" or \"not\"")
        }
    }

    /// The expression as JSON (the form it is parsed from).
    public var json: [String: Any] {
        switch self {
        case .tag(let tag): ["tag": tag]
        case .and(let operands): ["and": operands.map(\.json)]
        case .or(let operands): ["or": operands.map(\.json)]
        case .not(let operand): ["not": operand.json]
        }
    }

    /// Whether a device with these tags matches (the same rule the SQL applies; for tests and previews).
    public func matches(_ tags: Set<String>) -> Bool {
        switch self {
        case .tag(let tag): tags.contains(tag)
        case .and(let operands): operands.allSatisfy { $0.matches(tags) }
        case .or(let operands): operands.contains { $0.matches(tags) }
        case .not(let operand): !operand.matches(tags)
        }
    }
}

/// Why a tag expression did not parse: where, as a path into the expression (`and[1].not.tag`), and why.
public struct TagExpressionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Where in the expression: keys and array indexes from its root, empty for the root itself.
    public var path: String
    /// What is wrong there.
    public var reason: String

    /// Creates an error.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// For example `at and[1].not: an expression is an object with one of "tag", "and", "or", "not"`.
    public var description: String { path.isEmpty ? reason : "at \(path): \(reason)" }
}
