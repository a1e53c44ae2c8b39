import ArgumentParser
import Foundation
import NotificationDaemon
import Testing
import UnotifyCLI
import TestPrograms

/// Every command and code sample in README.md and docs/ is checked here, so that a stale line fails the suite:
///
/// - Swift samples must stand, line for line, in `Snippets/`, which this target compiles, or in a fixture program
///   under Tests/Fixtures, which the package builds.
/// - `unotify` and `unotifyd` commands (in code blocks, and in inline code that starts with one) are parsed by the
///   commands' own argument parsers; the files they name in the repository must exist.
/// - `swift build|run|test` must name products and tests the package has; bench executables only options their
///   sources handle; `install`, `systemctl` and the like only files and units the repository has.
/// - Python samples must parse (`ast.parse`), with the python the APNs client tests use, else the system's.
/// - `text` and `ini` blocks are data, not commands.
/// - `shell-script` blocks are whole scripts that a test reads from the document and runs as written (the openssl
///   recipe of docs/apns-endpoint.md: `ClientCertificateTests`), not commands checked one by one here.
///
/// A command the check has no rule for fails it, so that a new kind of sample gets a rule rather than no check.
@Suite("documentation samples")
struct DocSnippetTests {
    @Test("every Swift sample is compiled in Snippets/")
    func swiftSamplesCompile() throws {
        let compiled = try Repository.snippetLines()
        var missing: [String] = []
        for block in try Repository.documents().flatMap(\.blocks) where block.language == "swift" {
            let lines = block.lines.map(Self.normalized).filter { line in
                !line.isEmpty && !line.hasPrefix("import ") && !line.hasPrefix("#if") && line != "#else"
                    && line != "#endif"
            }
            if !Self.contains(compiled, lines) { missing.append("\(block.location): \(lines.first ?? "")") }
        }
        #expect(missing.isEmpty, "Swift samples not in Tests/DocumentationTests/Snippets:\n\(missing.joined(separator: "\n"))")
    }

    @Test("every command in a code block or inline code is one the package understands")
    func commandsAreCurrent() throws {
        var problems: [String] = []
        var checked = 0
        for document in try Repository.documents() {
            var commands: [(String, [String])] = []
            for block in document.blocks where Self.commandLanguages.contains(block.language) {
                for words in Shell.commands(in: block.lines) { commands.append((block.location, words)) }
            }
            for (location, words) in commands {
                checked += 1
                if let problem = Self.check(words) { problems.append("\(location): `\(words.joined(separator: " "))`: \(problem)") }
            }
            // Inline code names a command or an option in passing (`unotifyd --presenter`, `unotify push`): what it
            // names must exist, but it need not be complete.
            for (location, code) in document.inlineCode where code.hasPrefix("unotify ") || code.hasPrefix("unotifyd ") {
                guard !Self.isSynopsis(code) else { continue }
                // `<bundle-id>` and the like stand for a value: a valid one takes their place.
                let example = code.replacingOccurrences(of: #"<[a-z-]+>"#, with: "com.example.placeholder", options: .regularExpression)
                for words in Shell.commands(in: [example]) {
                    checked += 1
                    if let problem = Self.check(words), !problem.hasPrefix("Missing") {
                        problems.append("\(location): `\(words.joined(separator: " "))`: \(problem)")
                    }
                }
            }
        }
        #expect(checked > 20, "found only \(checked) commands: is the extraction broken?")
        #expect(problems.isEmpty, "stale commands in the docs:\n\(problems.joined(separator: "\n"))")
    }

    @Test("every Python sample parses")
    func pythonSamplesParse() async throws {
        let python = ["OPENUN_PYTHON"].compactMap { ProcessInfo.processInfo.environment[$0] }.first
            ?? ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let interpreter = try #require(python, "no python3 to parse the Python samples with")
        for block in try Repository.documents().flatMap(\.blocks) where block.language == "python" {
            let process = TestProcess()
            process.executableURL = URL(fileURLWithPath: interpreter)
            process.arguments = ["-c", "import ast, sys; ast.parse(sys.stdin.read())"]
            let input = Pipe(), errors = Pipe()
            process.standardInput = input
            process.standardError = errors
            try process.run()
            // Elided bodies (`...`) are Python's own placeholder, so the sample parses as written.
            input.fileHandleForWriting.write(Data(block.lines.joined(separator: "\n").utf8))
            try input.fileHandleForWriting.close()
            await process.exited()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == 0, "\(block.location) does not parse: \(message)")
        }
    }

    // MARK: - Rules

    private static let commandLanguages: Set<String> = ["", "sh", "bash", "console", "shell"]

    /// A usage line (`unotify apns log [--follow]`, `unotify add --app ID -- CMD…`) rather than a command.
    private static func isSynopsis(_ code: String) -> Bool {
        ["[", "…", "|", "...", "/--"].contains { code.contains($0) }
    }

    /// Why a command is stale, or `nil`.
    private static func check(_ words: [String]) -> String? {
        // Leading variable assignments (`OPENUN_BENCH=1 swift test ...`) set the command's environment.
        let words = Array(words.drop { $0.contains("=") && !$0.hasPrefix("-") })
        guard let first = words.first else { return nil }
        let arguments = Array(words.dropFirst())
        switch first {
        case "unotify":
            return parses { _ = try Unotify.parseAsRoot(Unotify.movingGlobalOptions(in: arguments)) }
                ?? Repository.missingFiles(in: arguments)
        case "unotifyd":
            return parses { _ = try DaemonOptions.parse(arguments) }
        case "swift":
            return checkSwift(arguments)
        case "sudo":
            return check(arguments)
        case "/usr/bin/time", "perf", "strace", "setsid":
            // A measuring (or grouping) wrapper around a built product (`perf record -g -- .build-rel/release/x`):
            // the product's command line is checked; `perf report` and the like run nothing of ours.
            guard let product = arguments.firstIndex(where: { $0.hasPrefix(".build") }) else { return nil }
            return check(Array(arguments[product...]))
        case "apt", "apt-get":
            // Only installing a package the repository's build makes: `apt install ./.build/deb/<name>_*.deb`.
            let local = arguments.filter { $0.hasPrefix("./") }
            return arguments.first == "install" && local.allSatisfy { $0.hasPrefix("./.build/deb/openusernotifications_") }
                ? nil : "apt only installs the package packaging/deb/build.sh makes"
        case "packaging/deb/build.sh":
            let options: Set<String> = ["--debug", "--bin-path", "--output", "--help", "-h"]
            return arguments.first { $0.hasPrefix("-") && !options.contains($0) }.map { "build.sh has no option \($0)" }
        case "scripts/test", ".ci/run":
            return FileManager.default.isExecutableFile(atPath: Repository.root.appendingPathComponent(first).path)
                ? nil : "\(first) is not an executable file of the repository"
        case "install":
            return Repository.missingFiles(in: arguments)
        case "systemctl":
            let units = arguments.filter { $0.hasSuffix(".socket") || $0.hasSuffix(".service") }
            return units.first { !Repository.exists("packaging/systemd/\($0)") }.map { "no unit \($0) in packaging/systemd" }
        case "curl":
            // The endpoint's curl requests are run by NotificationPushGatewayTests (EndpointTransportTests and the
            // unotifyd end-to-end push); here only that the headers it sends are ones the endpoint documents.
            let headers = arguments.filter { $0.lowercased().hasPrefix("apns-") }.map { String($0.prefix { $0 != ":" }) }
            return headers.first { !knownAPNsHeaders.contains($0.lowercased()) }.map { "unknown header \($0)" }
        default:
            // A built product run from its build folder: `.build/release/unotifyd --help`.
            if first.hasPrefix(".build"), let product = first.split(separator: "/").last.map(String.init) {
                if product == "unotify" || product == "unotifyd" { return check([product] + arguments) }
                return checkBench(product, arguments)
            }
            return "no rule for `\(first)`: add one to DocSnippetTests"
        }
    }

    private static let knownAPNsHeaders: Set<String> = [
        "apns-topic", "apns-push-type", "apns-priority", "apns-id", "apns-expiration", "apns-collapse-id",
    ]

    private static func checkSwift(_ arguments: [String]) -> String? {
        guard let verb = arguments.first else { return "`swift` alone" }
        let products = Repository.products()
        var rest = arguments.dropFirst()
        switch verb {
        case "run":
            while let word = rest.first, word.hasPrefix("-") { rest = rest.dropFirst(word == "-c" ? 2 : 1) }
            guard let product = rest.first else { return "`swift run` names no product" }
            if product == "unotify" { return check(["unotify"] + rest.dropFirst()) }
            return products.contains(product) ? nil : "no executable product \(product)"
        case "build", "test":
            var index = rest.startIndex
            while index < rest.endIndex {
                let word = rest[index]
                let value = index + 1 < rest.endIndex ? rest[index + 1] : ""
                if word == "--product", !products.contains(value) { return "no product \(value)" }
                if word == "--filter", !Repository.testSourcesMention(value) { return "no test named \(value)" }
                index += 1
            }
            return nil
        default:
            return "no rule for `swift \(verb)`"
        }
    }

    /// The bench executables parse their own options: each documented option must be one their sources handle, as a
    /// string (`"--quick"`) or, for swift-argument-parser's, as the property it comes from (`--swift-batch`: `var
    /// swiftBatch`).
    private static func checkBench(_ product: String, _ arguments: [String]) -> String? {
        guard let target = Repository.benchTargets[product] else { return "no bench executable \(product)" }
        let source = Repository.sources(of: target)
        func property(_ option: String) -> String {
            let words = option.drop { $0 == "-" }.split(separator: "-")
            return "var " + (words.first.map(String.init) ?? "") + words.dropFirst().map { $0.capitalized }.joined()
        }
        func handled(_ option: String) -> Bool {
            source.contains("\"\(option)\"") || source.contains(property(option) + " ")
                || source.contains(property(option) + ":")
                || (option == "--help" && source.contains("import ArgumentParser"))
        }
        return arguments.filter { $0.hasPrefix("-") }.map { String($0.prefix { $0 != "=" }) }
            .first { !handled($0) }.map { "\(product) has no option \($0)" }
    }

    private static func parses(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            let exit = Unotify.exitCode(for: error)
            return exit == .success ? nil : Unotify.message(for: error)
        }
    }

    static func normalized(_ line: String) -> String {
        line.trimmingCharacters(in: .whitespaces)
    }

    /// Whether `lines` stand as a contiguous run in `haystack`.
    static func contains(_ haystack: [String], _ lines: [String]) -> Bool {
        guard let first = lines.first else { return true }
        return haystack.indices.contains { start in
            haystack[start] == first && start + lines.count <= haystack.count
                && Array(haystack[start..<start + lines.count]) == lines
        }
    }
}
