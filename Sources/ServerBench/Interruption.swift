import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What SIGINT and SIGTERM do during a run: remove the bench's folders and exit with 130; the exit runs
/// `PostgresTestServer`'s exit handler, which stops the throwaway server and removes its folder.
///
/// ```swift
/// let interruption = Interruption(removing: folder)
/// interruption.remove(sideFolder)   // once it exists
/// defer { interruption.cancel() }
/// ```
final class Interruption: Sendable {
    private let state = Mutex<(paths: [String], sources: [any DispatchSourceSignal])>(([], []))

    /// Installs the handlers; `path` is removed on a signal.
    init(removing path: String) {
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            return DispatchSource.makeSignalSource(signal: number, queue: .global())
        }
        state.withLock { $0 = ([path], sources) }
        for source in sources {
            source.setEventHandler { [self] in
                let paths = state.withLock { $0.paths }
                for path in paths { try? FileManager.default.removeItem(atPath: path) }
                progress(
                    "interrupted: removed \(paths.joined(separator: ", ")); the PostgreSQL server stops as the process exits"
                )
                exit(130)
            }
            source.resume()
        }
    }

    /// Removes `path` too on a signal.
    func remove(_ path: String) {
        state.withLock { $0.paths.append(path) }
    }

    /// Uninstalls the handlers.
    func cancel() {
        state.withLock { state in for source in state.sources { source.cancel() } }
    }
}
