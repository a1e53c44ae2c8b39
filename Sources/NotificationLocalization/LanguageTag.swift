import Foundation

/// A language as POSIX locales (`zh_CN.UTF-8`, `sr_RS@latin`) and Apple's localization folders (`zh-Hans`,
/// `en_US`, `English`) name it, reduced to language, script and region.
public struct LanguageTag: Sendable, Hashable, CustomStringConvertible {
    /// The lowercase language code: `zh`, `en`, `pt`.
    public var language: String
    /// The script in title case (`Hans`, `Latn`), written or implied (`zh_CN` implies `Hans`, `zh_TW` `Hant`).
    public var script: String?
    /// Whether ``script`` was implied by the region rather than written.
    public var scriptIsImplied: Bool
    /// The uppercase region: `CN`, `US`, `419`.
    public var region: String?

    /// Creates a tag.
    public init(language: String, script: String? = nil, region: String? = nil, scriptIsImplied: Bool = false) {
        self.language = language
        self.script = script
        self.region = region
        self.scriptIsImplied = scriptIsImplied
    }

    /// `language-Script-REGION` with the parts there are.
    public var description: String { [language, script, region].compactMap { $0 }.joined(separator: "-") }

    /// The old English names of Apple's first localization folders (`English.lproj`), by language code.
    static let legacyNames: [String: String] = [
        "english": "en", "french": "fr", "german": "de", "japanese": "ja", "spanish": "es", "italian": "it",
        "dutch": "nl", "swedish": "sv", "danish": "da", "norwegian": "no", "finnish": "fi", "portuguese": "pt",
        "korean": "ko", "russian": "ru", "polish": "pl", "chinese": "zh",
    ]

    /// Whether a POSIX locale name stands for no language at all: `C`, `POSIX`, `C.UTF-8`.
    public static func isPOSIXLocale(_ name: String) -> Bool {
        let base = name.split(separator: ".", maxSplits: 1).first.map(String.init) ?? name
        return base == "C" || base == "POSIX"
    }

    /// Parses a POSIX locale name or a BCP 47 / Apple language identifier; `nil` for an empty name and for `C` /
    /// `POSIX`. The codeset (`.UTF-8`) is dropped; the modifiers `@latin` and `@cyrillic` become scripts, others
    /// are dropped.
    public init?(_ name: String) {
        var text = name.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, !Self.isPOSIXLocale(text) else { return nil }
        var modifierScript: String?
        if let at = text.firstIndex(of: "@") {
            switch text[text.index(after: at)...].lowercased() {
            case "latin": modifierScript = "Latn"
            case "cyrillic": modifierScript = "Cyrl"
            default: break
            }
            text = String(text[..<at])
        }
        if let dot = text.firstIndex(of: ".") { text = String(text[..<dot]) }
        let parts = text.split(whereSeparator: { $0 == "_" || $0 == "-" }).map(String.init)
        guard let first = parts.first, first.allSatisfy(\.isLetter) else { return nil }
        language = Self.legacyNames[first.lowercased()] ?? first.lowercased()
        script = modifierScript
        region = nil
        scriptIsImplied = false
        for part in parts.dropFirst() {
            if part.count == 4, part.allSatisfy(\.isLetter), script == nil {
                script = part.prefix(1).uppercased() + part.dropFirst().lowercased()
            } else if (part.count == 2 && part.allSatisfy(\.isLetter)) || (part.count == 3 && part.allSatisfy(\.isNumber)) {
                if region == nil { region = part.uppercased() }
            }
        }
        if language == "zh", script == nil {
            script = ["TW", "HK", "MO"].contains(region ?? "") ? "Hant" : "Hans"
            scriptIsImplied = true
        }
    }

    /// The forms of this tag to look for, most specific first, lowercased with `-`: for `zh_CN.UTF-8`
    /// `zh-hans-cn`, `zh-hans`, `zh-cn`, `zh`; for `en_US` `en-us`, `en`. A Traditional Chinese tag does not fall
    /// back to a bare `zh`, which names Simplified Chinese in practice.
    public var candidates: [String] {
        var result: [String] = []
        let language = language.lowercased()
        let script = script?.lowercased()
        let region = region?.lowercased()
        if let script, let region { result.append("\(language)-\(script)-\(region)") }
        if let script { result.append("\(language)-\(script)") }
        if let region { result.append("\(language)-\(region)") }
        if !(language == "zh" && script == "hant") { result.append(language) }
        var seen: Set<String> = []
        return result.filter { seen.insert($0).inserted }
    }

    /// A localization name as this module compares them: lowercase, `_` as `-`, legacy English names as codes
    /// (`English` → `en`), codeset and modifier dropped.
    public static func normalized(_ name: String) -> String {
        var text = name.lowercased()
        if let at = text.firstIndex(of: "@") { text = String(text[..<at]) }
        if let dot = text.firstIndex(of: ".") { text = String(text[..<dot]) }
        text = text.replacingOccurrences(of: "_", with: "-")
        return legacyNames[text] ?? text
    }

    /// The localizations to search, in order, for a person's preferred languages: each preference's
    /// ``candidates``, then the development language (where `C` / `POSIX` appears among the preferences, the
    /// development language takes that place and later preferences are ignored), then `base`.
    public static func searchOrder(preferences: [String], developmentLanguage: String) -> [String] {
        var result: [String] = []
        var seen: Set<String> = []
        func add(_ names: [String]) {
            for name in names where seen.insert(name).inserted { result.append(name) }
        }
        let development = LanguageTag(developmentLanguage)?.candidates ?? [normalized(developmentLanguage)]
        for preference in preferences {
            if isPOSIXLocale(preference.trimmingCharacters(in: .whitespaces)) { break }
            if let tag = LanguageTag(preference) { add(tag.candidates) }
        }
        add(development)
        add(["base"])
        return result
    }
}

/// The person's preferred languages, from the locale environment variables.
public enum UserLanguages {
    /// The preferred languages an environment names, most preferred first: the messages locale (`LC_ALL`, else
    /// `LC_MESSAGES`, else `LANG`; the first that is set and not empty), then each entry of `LANGUAGE`'s colon list.
    ///
    /// When the messages locale is `C` or `POSIX` the list is just that name, which stands for the development
    /// language; `LANGUAGE` is ignored then, as gettext ignores it. Unlike gettext, `LANGUAGE` comes after the
    /// locale, so that `LANG=zh_CN.UTF-8 command` shows Chinese even in a session whose `LANGUAGE` says English.
    /// An empty list (nothing set) also means the development language.
    public static func fromEnvironment(_ environment: [String: String]) -> [String] {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        if let locale, LanguageTag.isPOSIXLocale(locale) { return [locale] }
        var result: [String] = locale.map { [$0] } ?? []
        for entry in (environment["LANGUAGE"] ?? "").split(separator: ":") where !entry.isEmpty {
            result.append(String(entry))
        }
        return result
    }
}
