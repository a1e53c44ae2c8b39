import Foundation
import Synchronization

#if os(Linux)
import Glibc
#else
#error("NotificationGeoClueTests: unsupported operating system")
#endif

/// A Unix-socket server that sends NMEA sentences to every client, every 300 ms, on a thread of its own, as a GPS
/// daemon would: GeoClue's `network-nmea` source (`--nmea-socket`) connects to it.
final class NMEAServer: Sendable {
    let path: String
    private let listener: Int32
    private let stopped = Atomic<Bool>(false)
    private let done = Mutex<CheckedContinuation<Void, Never>?>(nil)
    private let finished = Atomic<Bool>(false)

    /// Listens at `path` and starts serving `sentences` (without the line ends) on a thread.
    init(path: String, sentences: [String]) throws {
        self.path = path
        unlink(path)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw FixtureError("socket failed: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            throw FixtureError("socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(descriptor, 4) == 0 else {
            close(descriptor)
            throw FixtureError("cannot listen at \(path): errno \(errno)")
        }
        listener = descriptor
        let payload = Array(sentences.map { $0 + "\r\n" }.joined().utf8)
        Thread.detachNewThread { [self] in serve(payload) }
    }

    /// Blocking accept/poll/write loop; runs on its own thread.
    private func serve(_ payload: [UInt8]) {
        var clients: [Int32] = []
        var nextSend = ContinuousClock.now
        while !stopped.load(ordering: .acquiring) {
            var descriptors = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            if poll(&descriptors, 1, 100) > 0 {
                let client = accept(listener, nil, nil)
                if client >= 0 {
                    _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                    clients.append(client)
                }
            }
            guard ContinuousClock.now >= nextSend else { continue }
            nextSend = ContinuousClock.now.advanced(by: .milliseconds(300))
            clients.removeAll { client in
                let written = payload.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if written < 0 { close(client) }
                return written < 0
            }
        }
        for client in clients { close(client) }
        close(listener)
        unlink(path)
        finished.store(true, ordering: .releasing)
        done.withLock { $0?.resume() }
    }

    /// Stops serving and waits until the thread has closed its sockets.
    func stop() async {
        stopped.store(true, ordering: .releasing)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = done.withLock { waiting -> Bool in
                if finished.load(ordering: .acquiring) { return true }
                waiting = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// A `$GPGGA` sentence with its checksum, for a fix at `latitude`, `longitude` (degrees) at `time` (`hhmmss`).
    static func gga(latitude: Double, longitude: Double, time: String) -> String {
        func field(_ degrees: Double, width: Int) -> String {
            let whole = Int(abs(degrees))
            let minutes = (abs(degrees) - Double(whole)) * 60
            return String(format: "%0\(width)d%06.3f", whole, minutes)
        }
        let body =
            "GPGGA,\(time),\(field(latitude, width: 2)),\(latitude >= 0 ? "N" : "S"),"
            + "\(field(longitude, width: 3)),\(longitude >= 0 ? "E" : "W"),1,08,0.9,35.0,M,46.9,M,,"
        let checksum = body.utf8.reduce(UInt8(0), ^)
        return "$" + body + "*" + String(format: "%02X", checksum)
    }
}
