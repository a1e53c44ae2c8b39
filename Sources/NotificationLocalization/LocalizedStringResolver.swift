import Foundation
import NotificationModel
import Synchronization

/// Resolves ``LocalizableString`` values when a notification is delivered: looks the key up in the app's tables
/// for the person's languages of that moment and formats the arguments.
///
/// The tables of an app's bundle directory:
/// - `<language>.lproj/Localizable.strings` (``StringsFile``), the folder named `zh-Hans`, `zh_CN`, `en`,
///   `English`, ... (compared without regard to case or `-` / `_`), and `Base.lproj/Localizable.strings`;
/// - `Localizable.xcstrings` (``StringCatalog``).
///
/// For each language of ``LanguageTag/searchOrder(preferences:developmentLanguage:)`` the `.lproj` table is
/// searched, then the catalog; the first that has the key gives the format. The development language is
/// `CFBundleDevelopmentRegion` of `<bundle>/Info.plist`, else the catalog's `sourceLanguage`, else `en`. A key
/// that no table has is its own format. Parsed tables are cached by path, modification date and size, so a table
/// replaced by an app update is read again.
public final class LocalizedStringResolver: Sendable {
    /// The resolver the engine uses, whose cache every delivery shares.
    public static let shared = LocalizedStringResolver()

    private let cache = Mutex<[String: CachedTable]>([:])

    /// Creates a resolver with an empty cache.
    public init() {}

    /// Something that went wrong or was missing while resolving; the text still resolves (to the key at worst).
    public struct Issue: Sendable, Hashable, CustomStringConvertible {
        /// The kinds of issue.
        public enum Kind: Sendable, Hashable {
            /// No table of the bundle has the key: the key is shown.
            case missingKey
            /// A table exists but cannot be read: it is skipped.
            case unreadableTable
            /// The bundle directory does not exist (or is not a folder): the key is shown.
            case missingBundle
        }

        /// What kind of issue.
        public var kind: Kind
        /// A sentence for the log.
        public var message: String

        /// Creates an issue.
        public init(_ kind: Kind, _ message: String) {
            self.kind = kind
            self.message = message
        }

        /// The message.
        public var description: String { message }
    }

    /// A resolved text and the issues met on the way.
    public struct Resolution: Sendable, Hashable {
        /// The text to show.
        public var text: String
        /// What the log should say.
        public var issues: [Issue]

        /// Creates a resolution.
        public init(text: String, issues: [Issue] = []) {
            self.text = text
            self.issues = issues
        }
    }

    // MARK: - Resolving

    /// The notification content to deliver: title, subtitle and body with every encoded segment resolved.
    ///
    /// In the body, each `%` a resolved segment produces is written as `%%`, because body text follows the
    /// printf rule (`%%` shows one `%`) and presenters apply it when they show the body: the formatted text is
    /// shown exactly, with its `%` collapsed once only. Text around the segments is left as it is.
    public func resolve(_ payload: NotificationPayload, languages: [String]) -> (payload: NotificationPayload, issues: [Issue]) {
        var payload = payload
        var issues: [Issue] = []
        for (path, escaping) in [(\NotificationPayload.title, false), (\.subtitle, false), (\.body, true)] {
            guard LocalizableString.mayContainEncoded(payload[keyPath: path]) else { continue }
            let resolution = resolve(text: payload[keyPath: path], languages: languages, escapingPercent: escaping)
            payload[keyPath: path] = resolution.text
            issues += resolution.issues
        }
        return (payload, issues)
    }

    /// A text with each encoded segment replaced by its resolved string; other text is left as it is.
    ///
    /// - Parameter escapingPercent: Whether each `%` of a resolved segment is doubled (for body text).
    public func resolve(text: String, languages: [String], escapingPercent: Bool = false) -> Resolution {
        resolve(text: text, languages: languages, escapingPercent: escapingPercent, depth: 0)
    }

    private func resolve(text: String, languages: [String], escapingPercent: Bool, depth: Int) -> Resolution {
        guard LocalizableString.mayContainEncoded(text) else { return Resolution(text: text) }
        var result = Resolution(text: "")
        for segment in LocalizableString.segments(of: text) {
            switch segment {
            case let .text(plain):
                result.text += plain
            case let .localizable(value):
                let resolved = resolve(value, languages: languages, depth: depth)
                result.text += escapingPercent ? resolved.text.replacingOccurrences(of: "%", with: "%%") : resolved.text
                result.issues += resolved.issues
            }
        }
        return result
    }

    /// One localizable string: its format for the languages, formatted with its arguments. A text argument that
    /// is itself a localizable string is resolved first.
    public func resolve(_ value: LocalizableString, languages: [String]) -> Resolution {
        resolve(value, languages: languages, depth: 0)
    }

    private func resolve(_ value: LocalizableString, languages: [String], depth: Int) -> Resolution {
        var issues: [Issue] = []
        var format = value.key
        if let directory = value.bundleDirectory {
            let lookup = lookUp(key: value.key, bundleDirectory: directory, languages: languages)
            issues += lookup.issues
            if let found = lookup.value { format = found }
        }
        var arguments = value.arguments
        if depth < 3 {
            for (index, argument) in arguments.enumerated() {
                guard case let .string(text) = argument, LocalizableString.mayContainEncoded(text) else { continue }
                let nested = resolve(text: text, languages: languages, escapingPercent: false, depth: depth + 1)
                arguments[index] = .string(nested.text)
                issues += nested.issues
            }
        }
        return Resolution(text: NotificationFormat.format(format, arguments: arguments), issues: issues)
    }

    // MARK: - Looking up

    /// The value of a key in the bundle's tables for the languages, and the localization it came from (as the
    /// search order spells it); `nil` value when no table has it.
    public func lookUp(key: String, bundleDirectory: String, languages: [String]) -> (value: String?, language: String?, issues: [Issue]) {
        var issues: [Issue] = []
        let bundle = BundleTables.scan(bundleDirectory)
        guard bundle.exists else {
            return (nil, nil, [Issue(.missingBundle, "the bundle directory \(bundleDirectory) does not exist: \"\(key)\" is shown as the key")])
        }
        // A bundle without tables has nothing to localize: the key is the text, and nothing is missing.
        guard bundle.catalogPath != nil || !bundle.stringsPaths.isEmpty else { return (nil, nil, []) }
        var catalog: StringCatalog?
        if let path = bundle.catalogPath {
            switch table(at: path) {
            case let .catalog(value): catalog = value
            case let .failed(reason): issues.append(Issue(.unreadableTable, "cannot read \(path): \(reason); it is skipped"))
            case .strings: break
            }
        }
        let development = bundle.developmentRegion ?? catalog?.sourceLanguage ?? "en"
        var unreadable: Set<String> = []
        for language in LanguageTag.searchOrder(preferences: languages, developmentLanguage: development) {
            for path in bundle.stringsPaths[language] ?? [] {
                switch table(at: path) {
                case let .strings(entries):
                    if let value = entries[key] { return (value, language, issues) }
                case let .failed(reason):
                    if unreadable.insert(path).inserted {
                        issues.append(Issue(.unreadableTable, "cannot read \(path): \(reason); it is skipped"))
                    }
                case .catalog: break
                }
            }
            if let value = catalog?.value(forKey: key, language: language) { return (value, language, issues) }
        }
        issues.append(Issue(.missingKey, "no table in \(bundleDirectory) has \"\(key)\" for \(languages): the key is shown"))
        return (nil, nil, issues)
    }

    /// Whether a folder holds any `Localizable` table (`*.lproj/Localizable.strings` or `Localizable.xcstrings`).
    public static func hasTables(in bundleDirectory: String) -> Bool {
        let bundle = BundleTables.scan(bundleDirectory)
        return bundle.catalogPath != nil || !bundle.stringsPaths.isEmpty
    }

    // MARK: - The cache

    private enum ParsedTable: Sendable {
        case strings([String: String])
        case catalog(StringCatalog)
        case failed(String)
    }

    private struct CachedTable: Sendable {
        var modified: Date?
        var size: Int?
        var table: ParsedTable
    }

    /// The parsed table at a path, from the cache while the file's modification date and size are unchanged.
    private func table(at path: String) -> ParsedTable {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let modified = attributes?[.modificationDate] as? Date
        let size = (attributes?[.size] as? NSNumber)?.intValue
        if let cached = cache.withLock({ $0[path] }), cached.modified == modified, cached.size == size {
            return cached.table
        }
        let parsed: ParsedTable
        if let data = FileManager.default.contents(atPath: path) {
            do {
                parsed = path.hasSuffix(".xcstrings") ? .catalog(try StringCatalog.parse(data)) : .strings(try StringsFile.parse(data))
            } catch {
                parsed = .failed("\(error)")
            }
        } else {
            parsed = .failed("cannot open the file")
        }
        cache.withLock { $0[path] = CachedTable(modified: modified, size: size, table: parsed) }
        return parsed
    }

    /// Forgets every parsed table.
    public func removeCachedTables() {
        cache.withLock { $0.removeAll() }
    }
}

/// The tables a bundle directory holds, found by listing it.
struct BundleTables {
    /// Whether the directory exists.
    var exists = false
    /// `Localizable.strings` paths by normalized localization name (`zh-hans`, `en-us`, `base`).
    var stringsPaths: [String: [String]] = [:]
    /// `Localizable.xcstrings`, when present.
    var catalogPath: String?
    /// `CFBundleDevelopmentRegion` of `Info.plist`, when present.
    var developmentRegion: String?

    static func scan(_ directory: String) -> BundleTables {
        var result = BundleTables()
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else { return result }
        result.exists = true
        let base = URL(fileURLWithPath: directory, isDirectory: true)
        let names = (try? fileManager.contentsOfDirectory(atPath: directory)) ?? []
        for name in names.sorted() {
            if name == "Localizable.xcstrings" {
                result.catalogPath = base.appendingPathComponent(name).path
            } else if name.lowercased().hasSuffix(".lproj") {
                let path = base.appendingPathComponent(name).appendingPathComponent("Localizable.strings").path
                guard fileManager.fileExists(atPath: path) else { continue }
                result.stringsPaths[LanguageTag.normalized(String(name.dropLast(6))), default: []].append(path)
            }
        }
        if let data = fileManager.contents(atPath: base.appendingPathComponent("Info.plist").path),
            let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
            let region = plist["CFBundleDevelopmentRegion"] as? String, !region.isEmpty
        {
            result.developmentRegion = region
        }
        return result
    }
}
