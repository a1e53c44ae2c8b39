import NotificationModel

extension Import {
    /// The lines of an import file once parsed: its requests, in the chunks they were parsed in, and its bad lines.
    struct ParsedLines {
        /// The requests of each chunk of lines, chunks in file order.
        var chunks: [[Item]]
        /// The lines that are not requests, in file order.
        var bad: [BadLine]

        /// How many requests there are.
        var count: Int { chunks.reduce(0) { $0 + $1.count } }

        /// The apps the requests are for.
        var appIDs: Set<String> {
            var apps: Set<String> = []
            for chunk in chunks {
                for item in chunk { apps.insert(item.appID) }
            }
            return apps
        }

        /// Up to `size` requests in file order, each stored in one transaction.
        struct Batch {
            /// The file's line numbers of its first and last requests.
            var firstLine: Int
            var lastLine: Int
            /// How many requests it has.
            var count: Int
            /// Its requests per app, apps in the order of their first request, each app's in file order.
            var requestsByApp: [(appID: String, specs: [RequestSpec])]
        }

        /// The requests in batches of `size`, in file order, each built when it is asked for.
        func batches(of size: Int) -> Batches { Batches(chunks: chunks, size: size) }

        /// The requests of ``chunks`` in batches of ``size``, in file order.
        struct Batches: Sequence, IteratorProtocol {
            let chunks: [[Item]]
            let size: Int
            private var chunk = 0
            private var index = 0

            init(chunks: [[Item]], size: Int) {
                self.chunks = chunks
                self.size = size
            }

            mutating func next() -> Batch? {
                var batch: Batch?
                var appIndex: [String: Int] = [:]
                while chunk < chunks.count, batch?.count ?? 0 < size {
                    guard index < chunks[chunk].count else {
                        (chunk, index) = (chunk + 1, 0)
                        continue
                    }
                    let item = chunks[chunk][index]
                    index += 1
                    if batch == nil { batch = Batch(firstLine: item.line, lastLine: item.line, count: 0, requestsByApp: []) }
                    if let position = appIndex[item.appID] {
                        batch!.requestsByApp[position].specs.append(item.spec)
                    } else {
                        appIndex[item.appID] = batch!.requestsByApp.count
                        batch!.requestsByApp.append((item.appID, [item.spec]))
                    }
                    batch!.lastLine = item.line
                    batch!.count += 1
                }
                return batch
            }
        }
    }
}
