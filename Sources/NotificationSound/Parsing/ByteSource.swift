import Foundation

/// Random access to the bytes of a sound file, read in small pieces.
protocol ByteSource {
    /// The total size in bytes.
    var length: Int64 { get }
    /// Up to `count` bytes starting at `offset` (fewer at the end, none past it).
    func read(at offset: Int64, count: Int) throws(SoundFileError) -> [UInt8]
}

/// A ``ByteSource`` over bytes already in memory.
struct DataByteSource: ByteSource {
    let data: Data

    var length: Int64 { Int64(data.count) }

    func read(at offset: Int64, count: Int) throws(SoundFileError) -> [UInt8] {
        guard offset >= 0, count > 0, offset < length else { return [] }
        let start = data.startIndex + Int(offset)
        let end = start + min(count, data.endIndex - start)
        return [UInt8](data[start..<end])
    }
}

/// A ``ByteSource`` over an open file, reading with `seek` + `read` and counting what it read.
final class FileByteSource: ByteSource {
    private let handle: FileHandle
    let length: Int64
    private var bytesRead = 0

    init(url: URL) throws(SoundFileError) {
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw SoundFileError(.unreadable, reason: "cannot open it (\(Self.describe(error)))")
        }
        do {
            length = Int64(clamping: try handle.seekToEnd())
        } catch {
            try? handle.close()
            throw SoundFileError(.unreadable, reason: "cannot find its size (\(Self.describe(error)))")
        }
    }

    func read(at offset: Int64, count: Int) throws(SoundFileError) -> [UInt8] {
        guard offset >= 0, count > 0, offset < length else { return [] }
        bytesRead += count
        guard bytesRead <= SoundFileInfo.maximumBytesRead else {
            throw SoundFileError(.malformed, reason: "its header needs more than \(SoundFileInfo.maximumBytesRead) bytes")
        }
        do {
            try handle.seek(toOffset: UInt64(offset))
            return [UInt8](try handle.read(upToCount: count) ?? Data())
        } catch {
            throw SoundFileError(.unreadable, reason: "reading failed (\(Self.describe(error)))")
        }
    }

    func close() {
        try? handle.close()
    }

    private static func describe(_ error: any Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}
