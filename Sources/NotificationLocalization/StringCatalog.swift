import Foundation

/// An Xcode string catalog (`Localizable.xcstrings`): JSON with a `sourceLanguage` and, for each key,
/// `localizations[language].stringUnit.value`.
///
/// Plural and device variations (`localizations[language].variations.plural` / `.device`) are not chosen by count
/// or device: the `other` form is taken, as the value a catalog must always have. Substitutions (`%#@name@`) are
/// not expanded.
public struct StringCatalog: Sendable, Hashable {
    /// The language the keys are written in (`sourceLanguage`), the development language of the catalog.
    public var sourceLanguage: String
    /// For each key, its values by language as the catalog spells the language (`zh-Hans`, `en`, ...).
    public var values: [String: [String: String]]
    /// The keys marked `"shouldTranslate": false`: shown as themselves in every language.
    public var untranslatedKeys: Set<String>

    /// Creates a catalog.
    public init(sourceLanguage: String, values: [String: [String: String]], untranslatedKeys: Set<String> = []) {
        self.sourceLanguage = sourceLanguage
        self.values = values
        self.untranslatedKeys = untranslatedKeys
    }

    /// Why a catalog could not be read.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What was wrong.
        public var reason: String
        /// Creates an error.
        public init(_ reason: String) { self.reason = reason }
        /// The reason.
        public var description: String { reason }
    }

    /// Reads a catalog's JSON.
    ///
    /// - Throws: ``ParseError`` when the data is not a JSON object with a `strings` object.
    public static func parse(_ data: Data) throws -> StringCatalog {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw ParseError("not JSON: \(error.localizedDescription)")
        }
        guard let root = object as? [String: Any] else { throw ParseError("not a JSON object") }
        guard let strings = root["strings"] as? [String: Any] else { throw ParseError("no \"strings\" object") }
        let source = (root["sourceLanguage"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? "en"
        var values: [String: [String: String]] = [:]
        var untranslated: Set<String> = []
        for (key, entry) in strings {
            guard let entry = entry as? [String: Any] else { continue }
            if entry["shouldTranslate"] as? Bool == false { untranslated.insert(key) }
            var byLanguage: [String: String] = [:]
            for (language, localization) in entry["localizations"] as? [String: Any] ?? [:] {
                if let value = Self.value(of: localization) { byLanguage[language] = value }
            }
            values[key] = byLanguage
        }
        return StringCatalog(sourceLanguage: source, values: values, untranslatedKeys: untranslated)
    }

    /// The value of a localization: its `stringUnit.value`, or the `other` form of its variations.
    private static func value(of localization: Any, depth: Int = 0) -> String? {
        guard depth < 4, let localization = localization as? [String: Any] else { return nil }
        if let unit = localization["stringUnit"] as? [String: Any], let value = unit["value"] as? String {
            return value
        }
        guard let variations = localization["variations"] as? [String: Any] else { return nil }
        for kind in ["plural", "device"] + variations.keys.sorted() {
            if let forms = variations[kind] as? [String: Any], let other = forms["other"],
                let value = value(of: other, depth: depth + 1)
            {
                return value
            }
        }
        return nil
    }

    /// The catalog's languages, as it spells them.
    public var languages: Set<String> {
        var result: Set<String> = [sourceLanguage]
        for byLanguage in values.values { result.formUnion(byLanguage.keys) }
        return result
    }

    /// The value of a key in a language (matched without regard to case or `-` / `_`); for the source language, a
    /// key listed without a value of its own is its own value.
    public func value(forKey key: String, language: String) -> String? {
        guard let byLanguage = values[key] else { return nil }
        if untranslatedKeys.contains(key) { return key }
        let wanted = LanguageTag.normalized(language)
        if let match = byLanguage.first(where: { LanguageTag.normalized($0.key) == wanted }) { return match.value }
        if wanted == LanguageTag.normalized(sourceLanguage) { return key }
        return nil
    }
}
