import Foundation

/// Where commands print: standard output, or a buffer in tests.
enum CLIOutput {
    @TaskLocal static var sink: (@Sendable (String) -> Void)?

    static func print(_ text: String) {
        let line = text.hasSuffix("\n") ? text : text + "\n"
        if let sink {
            sink(line)
            return
        }
        do {
            try FileHandle.standardOutput.write(contentsOf: Data(line.utf8))
        } catch {
            // The reader went away (`unotify list | head -3`): stop quietly, as other command-line tools do, with the
            // status a shell reports for SIGPIPE. Nothing else can be done with the rest of the output.
            exit(141)
        }
    }

    /// Prints a JSON value, keys sorted, for `--json`.
    static func printJSON(_ value: Any) throws {
        let data = try JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        print(String(decoding: data, as: UTF8.self))
    }

    /// One value as one line of JSON (JSON Lines, for streams such as `apns log --follow --json`), dates in ISO 8601.
    static func printJSONLine<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// An instant as ISO 8601 in UTC, `2026-03-08T11:00:00Z`.
    static func iso(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!))
    }
}
