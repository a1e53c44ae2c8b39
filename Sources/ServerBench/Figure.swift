import BenchSupport
import Foundation

/// One row of the summary table: a figure, the baseline measured in the same run, their ratio, and the issue's
/// target.
struct Figure: Sendable {
    var number: String
    var measure: String
    var result: String
    var baseline: String
    var ratio: String
    var target: String

    /// The summary table of `figures`, Markdown-shaped for docs/benchmarks.md.
    static func table(_ figures: [Figure]) -> String {
        var table = Table(["#", "Measure", "Result", "Baseline (same run)", "Ratio", "Target"])
        for figure in figures {
            table.add([figure.number, figure.measure, figure.result, figure.baseline, figure.ratio, figure.target])
        }
        return table.render()
    }
}

/// Writes a line of figures to standard output.
func say(_ line: String = "") {
    print(line)
    fflush(nil)  // all streams: into a file or a pipe, the lines of an interrupted run are kept
}

/// Writes progress to standard error.
func progress(_ line: String) {
    FileHandle.standardError.write(Data("unotify-server-bench: \(line)\n".utf8))
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
