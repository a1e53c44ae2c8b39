import Foundation
import NotificationEngine
import NotificationModel
import NotificationPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the content extension executable an app declared (``ContentExtensionDeclaration/command``): one process per
/// view and per action, as iOS starts an extension's process when it needs it.
///
/// The process gets one ``ContentExtensionProcessMessage`` line on its standard input, then the end of the input,
/// and runs with `OPENUN_LAUNCH_REASON=contentExtension` and `OPENUN_BUNDLE_ID=<app>` in its environment. It answers
/// on its standard output and exits with status 0: the view's HTML (UTF-8, at most
/// ``WebCenterConfiguration/contentExtensionMaximumSize`` bytes) or an option's name (`doNotDismiss`, `dismiss`,
/// `dismissAndForwardAction`). More output than the limit, output that is not UTF-8, another exit status, or no
/// answer within the time limit (the process is then killed) is a ``ContentExtensionFailure``. Its standard error
/// is kept (the first 64 KiB) for the failure's message.
///
/// ```swift
/// let invite = ProcessContentExtension(appID: "com.example.chat", command: ["/opt/chat/bin/InviteView"],
///                                      maximumSize: 256 * 1024)
/// let html = try await invite.view(of: notification)
/// ```
public struct ProcessContentExtension: ContentExtension {
    /// The app whose extension it is.
    public let appID: String
    /// The executable and its arguments.
    public let command: [String]
    /// The largest answer taken, in bytes.
    public let maximumSize: Int

    /// Creates the extension of an app's declared command.
    public init(appID: String, command: [String], maximumSize: Int) {
        self.appID = appID
        self.command = command
        self.maximumSize = maximumSize
        signal(SIGPIPE, SIG_IGN)  // an extension that closed its input early cannot kill the daemon with our write
    }

    public func view(of notification: DeliveredNotification) async throws -> String {
        try await run(.view(appID: appID, notification: notification))
    }

    public func answer(_ response: ResponseSpec) async throws -> ContentExtensionResponseOption {
        let text = try await run(.response(appID: appID, response: response))
        let word = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let option = ContentExtensionResponseOption(rawValue: word) else {
            throw ContentExtensionFailure(
                "answered '\(word.prefix(80))', not doNotDismiss, dismiss or dismissAndForwardAction")
        }
        return option
    }

    /// Starts the process, hands it `message`, and returns its standard output once it exited with status 0.
    ///
    /// The time limit is the caller's (``ContentExtensions`` races this against the engine's clock); a cancelled
    /// call kills the process.
    private func run(_ message: ContentExtensionProcessMessage) async throws -> String {
        guard let executable = command.first else { throw ContentExtensionFailure("its command is empty") }
        var environment = ProcessInfo.processInfo.environment
        environment["OPENUN_LAUNCH_REASON"] = "contentExtension"
        environment["OPENUN_BUNDLE_ID"] = appID
        let process: SpawnedProcess
        do {
            process = try SpawnedProcess(
                executable: executable, arguments: Array(command.dropFirst()), environment: environment,
                standardInputPipe: true, standardOutput: .pipe, standardError: .capture)
        } catch {
            throw ContentExtensionFailure("could not be started: \(error)")
        }
        process.writeInput(try message.encodedLine())
        process.closeInput()
        let output = OneShot<[UInt8]?>()
        if let pipe = process.outputPipe {
            Self.readAll(pipe.fileDescriptor, of: process, limit: maximumSize, into: output)
        } else {
            output.resolve([])
        }
        let bytes = await withTaskCancellationHandler {
            await output.value()
        } onCancel: {
            process.send(SIGKILL)
            output.resolve(nil)
        }
        if Task.isCancelled {
            await process.stop(signal: SIGKILL, grace: .seconds(5))
            throw CancellationError()
        }
        guard let bytes else {
            await process.stop(signal: SIGKILL, grace: .seconds(5))
            throw ContentExtensionFailure("answered more than \(maximumSize) bytes")
        }
        let exit = await process.waitForExit(timeout: .seconds(5))
        guard exit.succeeded else {
            let said = exit.errorOutput.split(separator: "\n").first.map { ": \($0.prefix(200))" } ?? ""
            throw ContentExtensionFailure("\(exit.summary)\(said)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ContentExtensionFailure("answered bytes that are not UTF-8")
        }
        return text
    }

    /// Reads `descriptor` to its end on a thread of its own (never the cooperative pool) and resolves `output` with
    /// what it read, or with `nil` as soon as more than `limit` bytes came. The thread keeps `process` (which owns
    /// the descriptor) alive until it stops reading.
    private static func readAll(
        _ descriptor: Int32, of process: SpawnedProcess, limit: Int, into output: OneShot<[UInt8]?>
    ) {
        let thread = Thread {
            defer { withExtendedLifetime(process) {} }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                bytes.append(contentsOf: chunk[0..<count])
                if bytes.count > limit {
                    output.resolve(nil)
                    return
                }
            }
            output.resolve(bytes)
        }
        thread.name = "content extension output"
        thread.start()
    }
}
