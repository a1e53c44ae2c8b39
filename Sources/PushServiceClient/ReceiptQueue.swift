import Foundation

/// The receipts not yet accepted by the server, in a JSON-lines file (`receipts.jsonl`) in the app's folder.
///
/// Every change rewrites the file through a temporary file, `fsync` and a rename: after a crash or a restart the file
/// holds the queue as it was before or after the change. A line that is not a receipt (a torn or hand-edited file) is
/// skipped and reported in ``skippedLines``, and left out of the next rewrite.
struct ReceiptQueue {
    /// The queue file.
    let file: URL
    /// The temporary file each rewrite goes through.
    let temporary: URL
    /// The receipts, oldest first.
    private(set) var receipts: [QueuedReceipt]
    /// The lines of the file that were not receipts when it was read (1-based line number and the line, cut to 200
    /// characters).
    let skippedLines: [(number: Int, line: String)]

    /// The queue file's name in the folder.
    static let fileName = "receipts.jsonl"

    /// Reads the queue in `folder`, creating the folder when missing.
    ///
    /// - Throws: ``PushServiceClientError`` when the folder cannot be made or the file cannot be read.
    init(folder: URL) throws {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw PushServiceClientError("cannot make the receipt queue folder \(folder.path): \(error)")
        }
        file = folder.appendingPathComponent(Self.fileName)
        temporary = folder.appendingPathComponent(Self.fileName + ".tmp")
        var receipts: [QueuedReceipt] = []
        var skipped: [(Int, String)] = []
        if FileManager.default.fileExists(atPath: file.path) {
            let data: Data
            do { data = try Data(contentsOf: file) } catch {
                throw PushServiceClientError("cannot read the receipt queue \(file.path): \(error)")
            }
            let decoder = JSONDecoder()
            for (index, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                .enumerated() where !line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") })
            {
                if let receipt = try? decoder.decode(QueuedReceipt.self, from: Data(line)), receipt.isWellFormed {
                    receipts.append(receipt)
                } else {
                    skipped.append((index + 1, String(decoding: line.prefix(200), as: UTF8.self)))
                }
            }
        }
        self.receipts = receipts
        skippedLines = skipped
    }

    /// Adds a receipt at the end, on disk before it returns.
    mutating func append(_ receipt: QueuedReceipt) throws {
        try save(receipts + [receipt])
    }

    /// Removes the first `count` receipts (those sent), on disk before it returns.
    mutating func removeFirst(_ count: Int) throws {
        try save(Array(receipts.dropFirst(count)))
    }

    /// Writes `new` as the queue, then keeps it in memory.
    private mutating func save(_ new: [QueuedReceipt]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = Data()
        for receipt in new {
            data.append(try encoder.encode(receipt))
            data.append(UInt8(ascii: "\n"))
        }
        try Platform.writeDurably(data, to: file, through: temporary)
        receipts = new
    }
}
