import ArgumentParser
import Foundation
import NotificationEngine
import NotificationModel
import OpenUserNotifications
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `unotify import`: many requests from a JSON Lines file, in batches of one transaction each.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Schedule many requests from a JSON Lines file: one request per line, add's options as its keys.",
        discussion: """
            Each line is a JSON object whose keys are add's long options without the dashes, plus "app" (default: \
            --app): {"id": "r1", "title": "Standup", "calendar": "weekday=2,hour=9", "repeats": true, \
            "user-info": {"room": 4}}. A flag (repeats, strict, on-entry, ...) is true or false, a badge a whole \
            number (0 clears the badge). Blank lines are skipped. Every line is checked before anything is stored: a \
            bad line is reported with its number and nothing is imported (--skip-invalid imports the others). \
            Requests are stored in batches of --batch-size lines in file order, each one transaction: all of a batch \
            or none of it. Through unotifyd, or when a batch has attachments, each app's requests in a batch are one \
            transaction (through unotifyd, one per message of about 1 MiB); if a batch then fails, the error says \
            what of it was stored.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "A .jsonl file, or - for standard input.")
    var file: String

    @Option(name: .customLong("batch-size"), help: "Requests stored per transaction (1...100000).")
    var batchSize = 10_000

    @Flag(name: .customLong("skip-invalid"), help: "Import the valid lines and report the bad ones, instead of importing nothing.")
    var skipInvalid = false

    func validate() throws {
        guard (1...100_000).contains(batchSize) else { throw ValidationError("--batch-size takes 1...100000 (got \(batchSize))") }
    }

    /// A line that did not.
    struct BadLine {
        var line: Int
        var message: String
    }

    func run() async throws {
        try await reportingErrors {
            let started = ContinuousClock.now
            let data = try readInput()
            let context = try CLIContext(global)
            let parsed = parse(data, context: context)
            let bad = parsed.bad
            report(bad)
            if !bad.isEmpty, !skipInvalid {
                throw CLIError(
                    "nothing imported: \(bad.count) bad line\(bad.count == 1 ? "" : "s") of \(parsed.count + bad.count) "
                        + "(fix \(bad.count == 1 ? "it" : "them"), or pass --skip-invalid to import the others)",
                    exitStatus: 65)
            }
            let appIDs = parsed.appIDs
            for app in appIDs.sorted() {
                try await Add.authorizeIfAsked(context.backend, appID: app)
            }
            let progress = Progress(total: parsed.count, enabled: !global.json && isatty(STDERR_FILENO) == 1)
            var discarded: [String] = []
            var stored = 0
            for batch in parsed.batches(of: batchSize) {
                do throws(BatchFailure) {
                    discarded += try await store(batch, context: context)
                } catch let failure {
                    progress.finish()
                    let lines = "lines \(batch.firstLine)-\(batch.lastLine)"
                    var before = stored == 0
                        ? "nothing was imported before it"
                        : "\(stored) requests (up to line \(batch.firstLine - 1)) were imported before it"
                    if context.daemon != nil {
                        // DaemonBackend sends an app's batch in messages of about 1 MiB, each its own transaction.
                        before += " (through unotifyd, requests of the failing app sent in an earlier message of the "
                            + "batch, about 1 MiB each, may be stored too)"
                    }
                    guard !failure.storedApps.isEmpty else {
                        throw CLIError(
                            "stopped at the batch of \(lines), of which nothing is stored: \(Self.message(failure.error)); "
                                + before)
                    }
                    // Each app's part of a batch is its own transaction: say which parts were stored.
                    let storedCount = failure.storedApps.reduce(0) { $0 + $1.count }
                    let storedApps = failure.storedApps.map { "\($0.appID) (\($0.count))" }.joined(separator: ", ")
                    throw CLIError(
                        "stopped at the batch of \(lines), at its requests for \(failure.appID): "
                            + "\(Self.message(failure.error)); of that batch, the requests for \(storedApps) were stored "
                            + "(\(storedCount) in all), those for \(failure.appID) and any app after it were not; " + before)
                }
                stored += batch.count
                progress.update(stored)
            }
            progress.finish()
            let seconds = (ContinuousClock.now - started).seconds
            let apps = appIDs.count
            if global.json {
                try CLIOutput.printJSON([
                    "imported": stored, "apps": apps, "seconds": seconds, "discarded": discarded,
                    "invalid": bad.map { ["line": $0.line, "error": $0.message] as [String: Any] },
                ])
            } else {
                let rate = seconds > 0 ? Int(Double(stored) / seconds) : stored
                var summary = "imported \(stored) request\(stored == 1 ? "" : "s") for \(apps) app\(apps == 1 ? "" : "s") "
                    + "in \(String(format: "%.2f", seconds)) s (\(rate)/s)"
                if !bad.isEmpty { summary += "; \(bad.count) bad line\(bad.count == 1 ? "" : "s") skipped" }
                if !discarded.isEmpty { summary += "; \(discarded.count) discarded by the pending cap" }
                CLIOutput.print(summary)
            }
        }
    }

    private func readInput() throws -> Data {
        if file == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        guard let data = FileManager.default.contents(atPath: file) else {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory)
            throw ValidationError(exists ? "cannot read \(file)\(isDirectory.boolValue ? ": it is a folder" : "")" : "no file \(file)")
        }
        return data
    }

    /// Every line, as a request or as the reason it is not one, in file order. Lines are parsed in chunks on every
    /// core (parsing costs about as much as storing). Each chunk writes its requests' specs straight into the slots of
    /// its lines in one array for the whole file, and the slots of blank and bad lines are closed up afterwards (moves,
    /// not copies): the specs are not copied from the chunks into one array (at 100,000 requests that copy and its
    /// fresh pages cost a sixth of the import's CPU), nor later into batches (``ParsedLines``).
    private func parse(_ data: Data, context: CLIContext) -> ParsedLines {
        let lines = Self.lineRanges(in: data)
        let chunk = 4_096
        let chunks = (lines.count + chunk - 1) / chunk
        let results = Mutex([ParsedChunk?](repeating: nil, count: chunks))
        let (appID, configuration) = (context.appID, context.configuration)
        let specs = [RequestSpec](unsafeUninitializedCapacity: lines.count) { buffer, count in
            let slots = Slots(base: buffer.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: chunks) { part in
                let range = part * chunk..<min((part + 1) * chunk, lines.count)
                let parsed = data.withUnsafeBytes { bytes in
                    Self.parse(
                        lines[range].lazy.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) },
                        firstLine: range.lowerBound + 1, into: slots.base + range.lowerBound, appID: appID,
                        configuration: configuration)
                }
                results.withLock { $0[part] = parsed }
            }
            // Close up the slots left empty: each chunk's filled slots, in order, moved down to the next free one.
            let base = buffer.baseAddress!
            var next = 0
            results.withLock { parts in
                for (part, parsed) in parts.enumerated() {
                    for offset in parsed!.filled {
                        let slot = part * chunk + offset
                        if slot != next { (base + next).moveInitialize(from: base + slot, count: 1) }
                        next += 1
                    }
                }
            }
            count = next
        }
        let parts = results.withLock { $0.map { $0! } }
        return ParsedLines(
            specs: specs, lines: parts.flatMap(\.lines), apps: parts.flatMap(\.apps), bad: parts.flatMap(\.bad))
    }

    /// What one chunk of lines gave, beside the specs it wrote into its slots.
    private struct ParsedChunk: Sendable {
        /// The offsets in the chunk of the lines that are requests (their slots hold their specs), in order.
        var filled: [Int] = []
        /// Their line numbers in the file and their apps.
        var lines: [Int] = []
        var apps: [String] = []
        /// The chunk's bad lines.
        var bad: [BadLine] = []
    }

    /// The specs' slots of ``parse(_:context:)``, one per line of the file.
    private struct Slots: @unchecked Sendable {  // no lock: each chunk of lines initializes its own lines' slots only
        let base: UnsafeMutablePointer<RequestSpec>
    }

    /// The byte ranges of `data`'s lines, without their line feeds: as many as there are line feeds, plus one.
    static func lineRanges(in data: Data) -> [Range<Int>] {
        data.withUnsafeBytes { bytes -> [Range<Int>] in
            guard let base = bytes.baseAddress else { return [0..<0] }
            var ranges: [Range<Int>] = []
            var start = 0
            while start < bytes.count,
                let found = memchr(base + start, 0x0A, bytes.count - start)
            {
                let end = base.distance(to: UnsafeRawPointer(found))
                ranges.append(start..<end)
                start = end + 1
            }
            ranges.append(start..<bytes.count)
            return ranges
        }
    }

    /// The lines of one chunk; `firstLine` is the number of its first line in the file. The spec of the line at
    /// offset `i` in the chunk is initialized at `slots + i`, for the offsets the result lists as filled.
    ///
    /// Each line is read by ``RequestFields/direct(line:)`` and its spec built by
    /// ``RequestFields/directSpec()``, without `JSONSerialization` and the `UNNotificationRequest` round trip; a line
    /// either of them does not take, or that any check refuses, is read again the slow way (`JSONSerialization`,
    /// ``RequestFields/init(json:)``, ``RequestFields/request()``), which makes the same request of what the fast
    /// way takes and reports what is wrong with the rest.
    private static func parse(
        _ lines: some Collection<UnsafeRawBufferPointer>, firstLine: Int, into slots: UnsafeMutablePointer<RequestSpec>,
        appID defaultApp: String, configuration: OpenUserNotificationsConfiguration
    ) -> ParsedChunk {
        var parsed = ParsedChunk()
        parsed.filled.reserveCapacity(lines.count)
        parsed.lines.reserveCapacity(lines.count)
        parsed.apps.reserveCapacity(lines.count)
        var appearances = Appearances(configuration: configuration)
        let now = Date()
        let calendar = Calendar.current
        for (offset, line) in lines.enumerated() {
            let lineNumber = firstLine + offset
            var bytes = line
            if bytes.last == 0x0D { bytes = UnsafeRawBufferPointer(rebasing: bytes.dropLast()) }
            guard bytes.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { continue }
            if let (fields, app) = RequestFields.direct(line: bytes),
                let (appID, spec) = try? directRequest(
                    fields, app: app, appID: defaultApp, now: now, calendar: calendar, appearances: &appearances)
            {
                (slots + offset).initialize(to: spec)
                parsed.filled.append(offset)
                parsed.lines.append(lineNumber)
                parsed.apps.append(appID)
                continue
            }
            do {
                guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
                    throw ValidationError("not a JSON object")
                }
                let fields = try RequestFields(json: object)
                var appID = defaultApp
                if let value = object["app"] {
                    if let app = value as? String {
                        try AppIdentifier.validate(app)
                        appID = app
                    } else if !RequestFields.isNull(value) {
                        throw ValidationError("'app' must be a string")
                    }
                }
                var spec = try fields.request().spec()
                _ = try NotificationScheduler.checkedFirstFireDate(of: spec, at: now, calendar: calendar)
                spec.content.appAppearance = try spec.content.appAppearance ?? appearances.appearance(for: fields)
                (slots + offset).initialize(to: spec)
                parsed.filled.append(offset)
                parsed.lines.append(lineNumber)
                parsed.apps.append(appID)
            } catch {
                parsed.bad.append(BadLine(line: lineNumber, message: message(error)))
            }
        }
        return parsed
    }

    /// A line read the fast way (``parse(_:firstLine:into:appID:configuration:)``): its app and spec; `nil` when
    /// it has something only the slow way takes.
    /// - Throws: Whatever check refuses the line (the slow way then reports it).
    private static func directRequest(
        _ fields: RequestFields, app: String?, appID defaultApp: String, now: Date, calendar: Calendar,
        appearances: inout Appearances
    ) throws -> (appID: String, spec: RequestSpec)? {
        var appID = defaultApp
        if let app {
            try AppIdentifier.validate(app)
            appID = app
        }
        guard var spec = try fields.directSpec() else { return nil }
        _ = try NotificationScheduler.checkedFirstFireDate(of: spec, at: now, calendar: calendar)
        spec.content.appAppearance = try appearances.appearance(for: fields)
        return (appID, spec)
    }

    /// Stores one batch, attachments moved into the data store first. In embedded mode a batch is one transaction
    /// (``NotificationScheduler/add(contentsOf:)`` takes requests of several apps), unless it has attachments, which
    /// are moved per app; through `unotifyd`, or with attachments, each app's requests are one transaction (the
    /// daemon's batch add is one app's), and the apps stored before one that fails stay stored: the
    /// ``BatchFailure`` names them.
    /// - Returns: The identifiers the pending cap discarded.
    private func store(_ batch: ParsedLines.Batch, context: CLIContext) async throws(BatchFailure) -> [String] {
        let byApp = batch.requestsByApp
        if byApp.count > 1, let scheduler = context.scheduler,
            !byApp.contains(where: { $0.specs.contains { !$0.content.attachments.isEmpty } })
        {
            let requests = byApp.flatMap { app, specs, _ in specs.map { BatchRequest(appID: app, spec: $0) } }
            do {
                return try await scheduler.add(contentsOf: requests).discarded.map(\.identifier)
            } catch {
                throw BatchFailure(error: Self.namingLines(error, byApp.flatMap(\.lines)), appID: byApp[0].appID)
            }
        }
        var discarded: [String] = []
        var storedApps: [(appID: String, count: Int)] = []
        let configuration = context.configuration
        for (app, specs, lines) in byApp {
            do {
                let result = try await UNNotificationAttachment.add(specs, appID: app, configuration: configuration) {
                    try await context.backend.add(contentsOf: $0, appID: app)
                }
                discarded += result.discarded.map(\.identifier)
                storedApps.append((app, specs.count))
            } catch {
                throw BatchFailure(error: Self.namingLines(error, lines), appID: app, storedApps: storedApps)
            }
        }
        return discarded
    }

    /// `error`, with the requests a ``BatchAddError`` refuses named by their lines (the engine names them by their
    /// index among the requests it was given, `lines` the line of each).
    private static func namingLines(_ error: any Error, _ lines: [Int]) -> any Error {
        guard let error = error as? BatchAddError else { return error }
        let refused = error.refusals.map { refusal in
            lines.indices.contains(refusal.index)
                ? "line \(lines[refusal.index]): \(refusal.error.message)" : refusal.error.message
        }
        return CLIError(
            refused.prefix(3).joined(separator: "; ") + (refused.count > 3 ? "; and \(refused.count - 3) more" : ""))
    }

    /// A batch that could not be stored whole: the app whose requests failed, and the apps of the batch stored before.
    struct BatchFailure: Error {
        var error: any Error
        var appID: String
        var storedApps: [(appID: String, count: Int)] = []
    }

    private func report(_ bad: [BadLine]) {
        guard !global.json || !skipInvalid else { return }  // --json --skip-invalid: in the summary
        let shown = 20
        for line in bad.prefix(shown) { CLIContext.say("line \(line.line): \(line.message)") }
        if bad.count > shown { CLIContext.say("... and \(bad.count - shown) more bad lines") }
    }

    static func message(_ error: any Error) -> String {
        switch error {
        case let error as ValidationError: error.message
        case let error as EngineError: error.message
        case let error as UNError: error.localizedReason
        case let error as NotificationRequestError: error.message
        case let error as BatchAddError: error.description
        default: "\(error)"
        }
    }
}

/// A progress bar on standard error, redrawn at most ten times a second.
private final class Progress {
    let total: Int
    let enabled: Bool
    private var lastDrawn = ContinuousClock.now - .seconds(1)
    private var drawn = false

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled
    }

    func update(_ done: Int) {
        guard enabled, total > 0 else { return }
        let now = ContinuousClock.now
        guard now - lastDrawn >= .milliseconds(100) || done == total else { return }
        lastDrawn = now
        drawn = true
        let width = 30
        let filled = width * done / total
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        FileHandle.standardError.write(Data("\rimporting [\(bar)] \(done)/\(total) (\(100 * done / total)%)".utf8))
    }

    func finish() {
        if drawn { FileHandle.standardError.write(Data("\n".utf8)) }
        drawn = false
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    fileprivate var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
