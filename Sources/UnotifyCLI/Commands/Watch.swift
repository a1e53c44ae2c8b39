import ArgumentParser
import Foundation
import NotificationStoreSQLite

/// `unotify watch`: run the engine in the foreground, showing notifications as they fall due.
struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Stay in the foreground and deliver every app's notifications to the terminal.",
        discussion: "Missed fires are delivered (or skipped) by their policy on start. Requests other processes add "
            + "are noticed at once. Stop with Ctrl-C.")

    @OptionGroup var global: GlobalOptions
    @Option(name: .customLong("for"), help: "Stop after this long (90, 5m, ...); default: until interrupted.")
    var duration: String?

    func run() async throws {
        try await reportingErrors {
            let limit = try duration.map { text -> TimeInterval in
                guard let seconds = parseDurationArgument(text) else {
                    throw ValidationError(
                        "--for takes a number of seconds from 0 up to 100 years, with an optional unit (90, 5m, 2h, 1d), "
                            + "not '\(text)'")
                }
                return seconds
            }
            let context = try CLIContext(global)
            guard let scheduler = context.scheduler else {
                throw CLIError(
                    "unotifyd is running and delivers the notifications; `unotify status` shows it "
                        + "(or pass --mode embedded to watch a store yourself)")
            }
            let monitor = StoreFileMonitor(storePath: context.storePath) { scheduler.storeDidChange() }
            FileHandle.standardError.write(Data("unotify: watching \(context.storePath)\n".utf8))
            let loop = Task { await scheduler.run() }
            if let limit {
                try? await Task.sleep(for: .seconds(limit))
            } else {
                await Self.waitForInterrupt()
            }
            loop.cancel()
            await loop.value
            withExtendedLifetime(monitor) {}
        }
    }

    /// Suspends until SIGINT or SIGTERM (unblocked first, in case the parent started us with them blocked).
    static func waitForInterrupt() async {
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        sigaddset(&unblocked, SIGINT)
        sigaddset(&unblocked, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = OnceFlag()
            var sources: [any DispatchSourceSignal] = []
            for signalNumber in [SIGINT, SIGTERM] {
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
                source.setEventHandler { if once.claim() { continuation.resume() } }
                source.resume()
                sources.append(source)
            }
            SignalSources.keep(sources)
        }
    }
}

/// Keeps signal sources alive for the life of the process.
private enum SignalSources {
    nonisolated(unsafe) static var kept: [any DispatchSourceSignal] = []  // written once, on the main task
    static func keep(_ sources: [any DispatchSourceSignal]) { kept = sources }
}

/// True for the first caller only.
private final class OnceFlag: @unchecked Sendable {  // `claimed` guarded by `lock`
    private let lock = NSLock()
    private var claimed = false
    func claim() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if claimed { return false }
        claimed = true
        return true
    }
}

import NotificationModel

func parseDurationArgument(_ text: String) -> TimeInterval? { parseDuration(text) }
