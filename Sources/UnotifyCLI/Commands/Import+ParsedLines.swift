import NotificationEngine
import NotificationModel

extension Import {
    /// The lines of an import file once parsed: its requests in file order, and its bad lines.
    ///
    /// The requests are three arrays of one order (their specs, line numbers and apps) rather than one array of
    /// (line, app, spec) items: a batch of one app is then a slice of ``specs`` (the whole array when the batch holds every request),
    /// not a regrouping copy (at 100,000 requests that copy, into arrays grown as it went, cost 110 ms of the
    /// import's single-threaded time).
    struct ParsedLines {
        /// The requests' specs, in file order.
        var specs: [RequestSpec]
        /// The file's line number of each request.
        var lines: [Int]
        /// The app each request is for.
        var apps: [String]
        /// The lines that are not requests, in file order.
        var bad: [BadLine]

        init(specs: [RequestSpec], lines: [Int], apps: [String], bad: [BadLine]) {
            precondition(specs.count == lines.count && specs.count == apps.count, "one line and one app per request")
            self.specs = specs
            self.lines = lines
            self.apps = apps
            self.bad = bad
        }

        /// How many requests there are.
        var count: Int { specs.count }

        /// The apps the requests are for.
        var appIDs: Set<String> { BatchRequest.distinctAppIDs(apps) }

        /// Up to `size` requests in file order, each stored in one transaction.
        struct Batch {
            /// The file's line numbers of its first and last requests.
            var firstLine: Int
            var lastLine: Int
            /// How many requests it has.
            var count: Int
            /// Its requests per app, apps in the order of their first request, each app's in file order, with their
            /// line numbers (to name a request the store refuses by its line).
            var requestsByApp: [(appID: String, specs: [RequestSpec], lines: [Int])]
        }

        /// The requests in batches of `size`, in file order, each built when it is asked for.
        func batches(of size: Int) -> Batches { Batches(parsed: self, size: size) }

        /// The requests of ``ParsedLines`` in batches of ``size``, in file order.
        struct Batches: Sequence, IteratorProtocol {
            let parsed: ParsedLines
            let size: Int
            private var start = 0

            init(parsed: ParsedLines, size: Int) {
                self.parsed = parsed
                self.size = size
            }

            mutating func next() -> Batch? {
                guard start < parsed.count else { return nil }
                let range = start..<Swift.min(start + size, parsed.count)
                start = range.upperBound
                return Batch(
                    firstLine: parsed.lines[range.lowerBound], lastLine: parsed.lines[range.upperBound - 1],
                    count: range.count, requestsByApp: requestsByApp(range))
            }

            /// The requests of `range` per app: the specs as they are when every one is for the same app (most
            /// files), without a copy when the range is all of them.
            private func requestsByApp(_ range: Range<Int>) -> [(appID: String, specs: [RequestSpec], lines: [Int])] {
                let first = parsed.apps[range.lowerBound]
                if parsed.apps[range].allSatisfy({ $0 == first }) {
                    let whole = range == parsed.specs.indices
                    return [
                        (
                            first, whole ? parsed.specs : Array(parsed.specs[range]),
                            whole ? parsed.lines : Array(parsed.lines[range])
                        )
                    ]
                }
                var byApp: [(appID: String, specs: [RequestSpec], lines: [Int])] = []
                var appIndex: [String: Int] = [:]
                for index in range {
                    let app = parsed.apps[index]
                    if let position = appIndex[app] {
                        byApp[position].specs.append(parsed.specs[index])
                        byApp[position].lines.append(parsed.lines[index])
                    } else {
                        appIndex[app] = byApp.count
                        byApp.append((app, [parsed.specs[index]], [parsed.lines[index]]))
                    }
                }
                return byApp
            }
        }
    }
}
