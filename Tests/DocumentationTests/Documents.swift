import Foundation

/// A Markdown file of the repository, read for its fenced code blocks and inline code.
struct Document {
    /// A fenced code block: its language (empty when unlabeled) and lines.
    struct Block {
        var language: String
        var lines: [String]
        /// `docs/x.md:12`, the line of the opening fence.
        var location: String
    }

    var path: String
    var blocks: [Block] = []
    /// Inline code spans outside the blocks, with their location.
    var inlineCode: [(location: String, code: String)] = []

    init(path: String, text: String) {
        self.path = path
        var open: Block?
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let location = "\(path):\(index + 1)"
            if line.hasPrefix("```") {
                if let block = open {
                    blocks.append(block)
                    open = nil
                } else {
                    open = Block(language: String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces), lines: [], location: location)
                }
            } else if open != nil {
                open?.lines.append(String(line))
            } else {
                // `code` spans: every other piece between backticks (double backticks are not used in these docs).
                let pieces = line.split(separator: "`", omittingEmptySubsequences: false)
                for (number, piece) in pieces.enumerated() where number % 2 == 1 && number < pieces.count - 1 {
                    inlineCode.append((location, String(piece)))
                }
            }
        }
    }
}

/// The repository this test target stands in, and what it has.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// README.md and every Markdown file under docs/.
    static func documents() throws -> [Document] {
        var paths = ["README.md"]
        let docs = root.appendingPathComponent("docs")
        if let walker = FileManager.default.enumerator(atPath: docs.path) {
            for case let path as String in walker where path.hasSuffix(".md") { paths.append("docs/" + path) }
        }
        return try paths.sorted().map { path in
            Document(path: path, text: try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8))
        }
    }

    /// The lines of every Swift file the package compiles for the docs' samples, trimmed: Snippets/, and the fixture
    /// programs under Tests/Fixtures (a sample that is a whole service extension stands there, and runs too).
    static func snippetLines() throws -> [String] {
        var files: [URL] = []
        for folder in ["Tests/DocumentationTests/Snippets", "Tests/Fixtures"] {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(atPath: base.path) else { continue }
            for case let path as String in walker where path.hasSuffix(".swift") {
                files.append(base.appendingPathComponent(path))
            }
        }
        return try files.sorted { $0.path < $1.path }.flatMap { file in
            // Each file apart, so that a run of lines cannot span two of them.
            try String(contentsOf: file, encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false)
                .map { DocSnippetTests.normalized(String($0)) }.filter { !$0.isEmpty } + ["\u{0}"]
        }
    }

    static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path)
    }

    /// The repository files an argument list names that do not exist: relative paths into folders the repository
    /// has (`Examples/...`, `packaging/...`); build products, home and absolute paths are not the repository's.
    static func missingFiles(in arguments: [String]) -> String? {
        let folders = ["Examples/", "packaging/", "docs/", "scripts/", "Sources/", "Tests/"]
        let missing = arguments.filter { argument in
            folders.contains { argument.hasPrefix($0) } && !exists(argument)
        }
        return missing.isEmpty ? nil : "no such file: \(missing.joined(separator: ", "))"
    }

    /// The names of the package's products (`.executable(name:` and `.library(name:` in Package.swift).
    static func products() -> Set<String> {
        let manifest = (try? String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)) ?? ""
        var names: Set<String> = []
        for kind in [".executable(name: \"", ".library(name: \""] {
            for piece in manifest.components(separatedBy: kind).dropFirst() {
                names.insert(String(piece.prefix { $0 != "\"" }))
            }
        }
        return names
    }

    /// The bench products and the source folders of their targets.
    static let benchTargets = [
        "unotify-bench": "UnotifyBench", "unotifyd-bench": "UnotifydBench", "unotify-server-bench": "ServerBench",
    ]

    /// The text of every Swift file of a target under Sources/.
    static func sources(of target: String) -> String {
        let folder = root.appendingPathComponent("Sources/\(target)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".swift") }.sorted()
            .compactMap { try? String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }
            .joined(separator: "\n")
    }

    /// Whether a `--filter` value names something in the test sources (a suite, test or type name).
    static func testSourcesMention(_ name: String) -> Bool {
        guard let walker = FileManager.default.enumerator(atPath: root.appendingPathComponent("Tests").path) else {
            return false
        }
        for case let path as String in walker where path.hasSuffix(".swift") {
            let text = (try? String(contentsOf: root.appendingPathComponent("Tests/" + path), encoding: .utf8)) ?? ""
            if text.contains(name) { return true }
        }
        return false
    }
}

/// Just enough of the shell's word splitting to read the docs' commands.
enum Shell {
    /// The commands of a block's lines: continuation lines joined, comments dropped, a leading `$ ` prompt removed,
    /// split at `&&`, `||`, `;` and `|`, each as its words with quotes removed.
    static func commands(in lines: [String]) -> [[String]] {
        var joined: [String] = []
        var pending = ""
        for line in lines {
            if line.hasSuffix("\\") {
                pending += line.dropLast() + " "
                continue
            }
            joined.append(pending + line)
            pending = ""
        }
        if !pending.isEmpty { joined.append(pending) }
        var commands: [[String]] = []
        for line in joined {
            var text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("$ ") { text.removeFirst(2) }
            var current: [String] = []
            for word in words(text) {
                if ["&&", "||", ";", "|"].contains(word) {
                    if !current.isEmpty { commands.append(current) }
                    current = []
                } else {
                    current.append(word)
                }
            }
            if !current.isEmpty { commands.append(current) }
        }
        return commands
    }

    /// Words of one line: quotes group and are removed, an unquoted `#` at a word's start ends the line.
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
                inWord = true
            case " ", "\t":
                if inWord { words.append(word) }
                word = ""
                inWord = false
            case "#" where !inWord:
                return words
            case ";":
                if inWord { words.append(word) }
                words.append(";")
                word = ""
                inWord = false
            default:
                word.append(character)
                inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }
}
