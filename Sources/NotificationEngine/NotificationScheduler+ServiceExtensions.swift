import Foundation
import Logging
import NotificationModel

// Service extensions (docs/remote-notifications.md, "Service extensions"): a push with `mutable-content` whose app
// has an extension is handed to it before it is shown. The engine keeps the time budget on its clock: at the
// deadline the extension hears `serviceExtensionTimeWillExpire()` and has a short grace to hand over its best
// attempt; an extension that crashes or never answers leaves the original content. While the extension works,
// the original content already waits in the store, due just after the deadline, so a crash of this process
// shows it after the restart instead of losing the push.

/// The engine's service extension state: the hosts of running apps and the runs in progress.
struct ServiceExtensionState {
    var attachedHosts: [String: any ServiceExtensionHost] = [:]
    var runs: [UInt64: Task<Void, Never>] = [:]
    var nextRunID: UInt64 = 1
}

extension NotificationScheduler {
    /// How long after the deadline and the grace a stored push waits before it is shown with its original content
    /// by an engine that did not start the extension (this one crashed meanwhile).
    static let serviceExtensionRecoveryMargin: TimeInterval = 5

    /// Registers the service extension host of the app's running process (its registered
    /// `UNNotificationServiceExtension`); it is asked before the app's declared executable.
    public func attachServiceExtension(_ host: any ServiceExtensionHost, appID: String) {
        serviceExtensionState.attachedHosts[appID] = host
    }

    /// Unregisters the app's in-process service extension host.
    public func detachServiceExtension(appID: String) {
        serviceExtensionState.attachedHosts[appID] = nil
    }

    /// Unregisters the app's in-process service extension host only if `host` is still the registered one (a
    /// newer process of the app may have taken over).
    public func detachServiceExtension(_ host: any ServiceExtensionHost & AnyObject, appID: String) {
        if let current = serviceExtensionState.attachedHosts[appID] as? AnyObject, current === host {
            serviceExtensionState.attachedHosts[appID] = nil
        }
    }

    /// Declares (or with `nil` removes) the executable that runs the app's service extension while the app does
    /// not run it in its own process.
    /// - Throws: ``EngineError`` with `invalidArgument` for a command that does not start with an absolute path,
    ///   `storeFailure` when the store fails.
    public func setServiceExtensionCommand(_ command: [String]?, appID: String) async throws {
        guard command.map({ !$0.isEmpty && $0[0].hasPrefix("/") }) ?? true else {
            throw EngineError(.invalidArgument, "a service extension command starts with an absolute executable path")
        }
        try await storeCall { try await store.setServiceExtensionCommand(command, appID: appID) }
    }

    /// Waits until every service extension run in progress has ended and its notification was made due (tests,
    /// and a clean shutdown).
    public func waitForServiceExtensions() async {
        while let run = serviceExtensionState.runs.values.first { await run.value }
    }

    /// Hands a push's request to the app's service extension when it has one.
    ///
    /// - Returns: `false` when no host started an extension (the caller delivers the request as it is).
    func startServiceExtension(for request: PendingRequest, deliver: Bool) async throws -> Bool {
        let hosts = [serviceExtensionState.attachedHosts[request.appID], serviceExtensionHost].compactMap { $0 }
        var started: (any ServiceExtensionRun)?
        for host in hosts {
            started = await host.startExtension(for: request.spec, appID: request.appID)
            if started != nil { break }
        }
        guard let run = started else { return false }
        let startedAt = clock.now
        var waiting = request
        waiting.nextFireDate = startedAt.addingTimeInterval(
            configuration.serviceExtensionTimeBudget + configuration.serviceExtensionGrace
                + Self.serviceExtensionRecoveryMargin)
        _ = try await storeCall { try await store.insertPending(waiting, cap: nil, at: startedAt) }
        storeDidChange()
        logger.debug(
            "handed a push to the app's service extension",
            metadata: ["app": "\(request.appID)", "request": "\(request.identifier)"])
        let id = serviceExtensionState.nextRunID
        serviceExtensionState.nextRunID += 1
        serviceExtensionState.runs[id] = Task {
            await self.completeServiceExtension(run, waiting: waiting, startedAt: startedAt, deliver: deliver)
            self.serviceExtensionState.runs[id] = nil
        }
        return true
    }

    /// What waiting for an extension's content gave.
    private enum ExtensionAnswer: Sendable {
        /// The content handler's content, or `nil` when the extension ended without calling it.
        case answered(NotificationPayload?)
        case timedOut
    }

    /// Waits for the extension within its budget and grace, then makes the request due with what it gave.
    private func completeServiceExtension(
        _ run: any ServiceExtensionRun, waiting: PendingRequest, startedAt: Date, deliver: Bool
    ) async {
        let metadata: Logger.Metadata = ["app": "\(waiting.appID)", "request": "\(waiting.identifier)"]
        let content = Task { await run.content() }
        let deadline = startedAt.addingTimeInterval(configuration.serviceExtensionTimeBudget)
        var answer = await answer(content, until: deadline)
        if case .timedOut = answer {
            logger.info("a service extension ran out of time: asking for its best attempt", metadata: metadata)
            await run.timeWillExpire()
            answer = await self.answer(content, until: deadline.addingTimeInterval(configuration.serviceExtensionGrace))
        }
        await run.finish()
        content.cancel()
        var modified: NotificationPayload?
        switch answer {
        case .answered(let given?): modified = checkedExtensionContent(given, appID: waiting.appID)
        case .answered(nil): logger.warning("a service extension ended without content: showing the original", metadata: metadata)
        case .timedOut: logger.warning("a service extension never answered: showing the original", metadata: metadata)
        }
        await makeDue(waiting, content: modified, deliver: deliver)
    }

    private func answer(_ content: Task<NotificationPayload?, Never>, until deadline: Date) async -> ExtensionAnswer {
        let clock = self.clock
        return await FirstAnswer.race(
            { .answered(await content.value) },
            orElse: {
                try? await clock.sleep(until: deadline)
                return .timedOut
            })
    }

    /// The extension's content with the attachments it may show: files inside the app's folder of the attachment
    /// data store (the extension's process validated them and moved them there); any other one is dropped.
    private func checkedExtensionContent(_ content: NotificationPayload, appID: String) -> NotificationPayload {
        var checked = content
        checked.attachments = content.attachments.filter { attachment in
            let kept = isInAttachmentStore(attachment.url)
            if !kept {
                logger.warning(
                    "dropped an attachment a service extension did not put in the attachment data store",
                    metadata: ["app": "\(appID)", "attachment": "\(attachment.url)"])
            }
            return kept
        }
        return checked
    }

    private func isInAttachmentStore(_ url: URL) -> Bool {
        guard url.isFileURL, let root = configuration.attachmentStoreRoot else { return false }
        let resolvedRoot = URL(fileURLWithPath: root).resolvingSymlinksInPath().path
        let folder = url.deletingLastPathComponent().resolvingSymlinksInPath().path
        return folder.hasPrefix(resolvedRoot + "/")
    }

    /// Makes the waiting request due now, with the extension's content when it gave one; nothing when another
    /// push with the same identifier replaced it meanwhile or it was already shown.
    private func makeDue(_ waiting: PendingRequest, content: NotificationPayload?, deliver: Bool) async {
        let now = clock.now
        let current = (try? await store.pendingRequests(appID: waiting.appID))?.first { $0.identifier == waiting.identifier }
        guard let current, current.spec == waiting.spec, current.addedAt == waiting.addedAt else {
            if let content {
                var unused = waiting.spec
                unused.content = content
                await discardAttachments(of: [unused], appID: waiting.appID)
            }
            return
        }
        var due = waiting
        if var content {
            // The extension's process may not know the app's name and icon; the original does.
            content.appAppearance = content.appAppearance ?? waiting.spec.content.appAppearance
            due.spec.content = content
        }
        due.nextFireDate = now
        do { _ = try await store.insertPending(due, cap: nil, at: now) } catch {
            logger.error(
                "could not store a service extension's content; the original shows after the deadline: \(error)",
                metadata: ["app": "\(waiting.appID)", "request": "\(waiting.identifier)"])
            return
        }
        storeDidChange()
        if deliver { await deliverDue() }
    }
}
