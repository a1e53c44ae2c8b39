import Foundation

/// The bench's command line: sizes, durations and budgets.
struct BenchOptions: Sendable {
    /// Pending requests for the delivery, idle, add and restart figures at the main size.
    var pending = 100_000
    /// The large size for the add and restart figures; 0 skips it.
    var large = 1_000_000
    var quick = false
    /// How long the idle-engine and idle-baseline periods last.
    var idleSeconds: Double = 60
    /// Requests due during the delivery test.
    var deliveryCount = 300
    /// The span (seconds) over which they fall due.
    var deliverySpan: Double = 15
    /// Seconds between the start of the delivery test and the first due instant.
    var deliveryLead: Double = 3
    /// Requests added on top of a filled store to measure add throughput at that size.
    var marginal = 10_000
    /// Longest projected time (seconds) for a one-transaction-per-row fill of the large size; above it the bench
    /// fills through its own batched path instead.
    var perRowBudget: Double = 300
    /// How many times each restart is measured (the median is reported).
    var restartRepeats = 5
    /// Requests added at once for figure 4 (bulk); 0 skips the figure.
    var bulk = 100_000
    /// Pending requests the store holds before figure 4's bulk adds.
    var bulkBase = 1_000_000
    /// Requests per transaction of figure 4's batched add, `unotify import --batch-size` and raw batched insert.
    var bulkBatch = 10_000
    /// Seed of the request generator.
    var seed: UInt64 = 42
    /// The figures to run (`--only`); `nil` runs them all. Figures 1, 2 and 3 share one store, so any of them runs
    /// the three.
    var only: Set<Int>?

    /// Whether figure `number` runs.
    func runs(_ number: Int) -> Bool {
        guard let only else { return true }
        return number == 4 ? only.contains(4) : !only.isDisjoint(with: [1, 2, 3])
    }

    static let usage = """
        usage: unotify-bench [--quick] [--pending N] [--large N] [--idle-seconds S] [--delivery-count N]
                             [--delivery-span S] [--delivery-lead S] [--marginal N] [--per-row-budget S]
                             [--restart-repeats N] [--bulk N] [--bulk-base N] [--bulk-batch N] [--seed N]
                             [--only LIST]

          --quick              small sizes, 10 s idle periods: finishes in about a minute
                               (pending 5k, large 50k, 100 dues over 4 s, marginal 1k, per-row budget 3 s,
                               3 restarts, bulk 10k into 50k)
          --pending N          pending requests for figures 1-3 (default 100000; 100k, 1M suffixes accepted)
          --large N            large size for the add/restart figures (default 1000000; 0 skips it)
          --idle-seconds S     idle period for figure 3 (default 60)
          --delivery-count N   requests due during figure 1 (default 300)
          --delivery-span S    seconds over which they fall due (default 15)
          --delivery-lead S    seconds before the first due instant (default 3)
          --marginal N         requests added on top of a filled store (default 10000)
          --per-row-budget S   longest projected one-transaction-per-row fill of the large size before the
                               bench switches to its own batched raw-schema path (default 300)
          --restart-repeats N  restarts measured per case; the median is reported (default 5)
          --bulk N             requests added at once for figure 4 (default 100000; 0 skips it)
          --bulk-base N        pending requests in the store before figure 4 (default 1000000)
          --bulk-batch N       requests per transaction of figure 4's batched add, of its `unotify import
                               --batch-size` and of its raw batched insert (1-100000, default 10000)
          --only LIST          run only these figures, comma-separated (1, 2 and 3 share a store and run
                               together): --only 4 measures the bulk figure alone
        Flags given after --quick override its values.
        """

    struct UsageError: Error, CustomStringConvertible {
        var description: String
        /// `--help` was asked for: print the usage to standard output and succeed.
        var isHelp = false
    }

    static func parse(_ arguments: [String]) throws -> BenchOptions {
        var options = BenchOptions()
        // Split `--flag=value` into two words.
        var words: [String] = []
        for argument in arguments {
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                words.append(String(argument[..<equals]))
                words.append(String(argument[argument.index(after: equals)...]))
            } else {
                words.append(argument)
            }
        }
        if words.contains("--quick") || words.contains("-q") {
            options.quick = true
            options.pending = 5_000
            options.large = 50_000
            options.idleSeconds = 10
            options.deliveryCount = 100
            options.deliverySpan = 4
            options.deliveryLead = 1.5
            options.marginal = 1_000
            options.perRowBudget = 3
            options.restartRepeats = 3
            options.bulk = 10_000
            options.bulkBase = 50_000
        }
        var index = 0
        func value(_ flag: String) throws -> String {
            index += 1
            guard index < words.count else { throw UsageError(description: "\(flag) needs a value") }
            return words[index]
        }
        func count(_ flag: String) throws -> Int {
            let text = try value(flag)
            guard let number = parseCount(text), number >= 0 else {
                throw UsageError(description: "\(flag): '\(text)' is not a count")
            }
            return number
        }
        func seconds(_ flag: String) throws -> Double {
            let text = try value(flag)
            guard let number = Double(text), number.isFinite, number >= 0 else {
                throw UsageError(description: "\(flag): '\(text)' is not a number of seconds")
            }
            return number
        }
        func figures(_ flag: String) throws -> Set<Int> {
            let text = try value(flag)
            let numbers = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !numbers.isEmpty, numbers.allSatisfy({ $0.map { (1...4).contains($0) } ?? false }) else {
                throw UsageError(description: "\(flag): '\(text)' is not a list of figures 1-4")
            }
            return Set(numbers.compactMap { $0 })
        }
        while index < words.count {
            let word = words[index]
            switch word {
            case "--quick", "-q": break
            case "--pending": options.pending = try count(word)
            case "--large": options.large = try count(word)
            case "--idle-seconds": options.idleSeconds = try seconds(word)
            case "--delivery-count": options.deliveryCount = try count(word)
            case "--delivery-span": options.deliverySpan = try seconds(word)
            case "--delivery-lead": options.deliveryLead = try seconds(word)
            case "--marginal": options.marginal = try count(word)
            case "--per-row-budget": options.perRowBudget = try seconds(word)
            case "--restart-repeats": options.restartRepeats = max(1, try count(word))
            case "--bulk": options.bulk = try count(word)
            case "--bulk-base": options.bulkBase = try count(word)
            case "--bulk-batch": options.bulkBatch = try count(word)
            case "--seed": options.seed = UInt64(try count(word))
            case "--only": options.only = try figures(word)
            case "--help", "-h": throw UsageError(description: usage, isHelp: true)
            default: throw UsageError(description: "unknown argument '\(word)'\n\n\(usage)")
            }
            index += 1
        }
        guard options.pending > 0 else { throw UsageError(description: "--pending must be at least 1") }
        guard (1...100_000).contains(options.bulkBatch) else {
            throw UsageError(description: "--bulk-batch takes 1...100000 (unotify import's --batch-size range)")
        }
        guard options.deliveryCount > 0 else { throw UsageError(description: "--delivery-count must be at least 1") }
        return options
    }

    /// `100000`, `100_000`, `100k`, `1M`.
    private static func parseCount(_ text: String) -> Int? {
        var digits = text.replacingOccurrences(of: "_", with: "").lowercased()
        var scale = 1
        if digits.hasSuffix("k") {
            scale = 1_000
            digits.removeLast()
        } else if digits.hasSuffix("m") {
            scale = 1_000_000
            digits.removeLast()
        }
        return Int(digits).map { $0 * scale }
    }
}
