import Foundation
import Logging
import NotificationAttachments
import NotificationEngine
import NotificationModel
import Synchronization

/// Runs a `UNNotificationServiceExtension` subclass in this process: a new instance per push, as iOS makes one
/// per extension launch. The engine (or the daemon, through the app's connection) keeps the time budget.
///
/// The content the extension passes to its content handler is converted as `add` converts content, and its
/// attachments are checked by Apple's rules and moved into the app's attachment data store here, in this
/// process; an attachment that fails is dropped (and logged) and the notification is still shown.
package final class InProcessServiceExtensionHost: ServiceExtensionHost {
    private let makeExtension: @Sendable () -> UNNotificationServiceExtension
    private let configuration: OpenUserNotificationsConfiguration
    private let logger = Logger(label: "OpenUserNotifications.serviceExtension")

    package init(
        configuration: OpenUserNotificationsConfiguration,
        makeExtension: @escaping @Sendable () -> UNNotificationServiceExtension
    ) {
        self.configuration = configuration
        self.makeExtension = makeExtension
    }

    package func startExtension(for request: RequestSpec, appID: String) async -> (any ServiceExtensionRun)? {
        let run = InProcessServiceExtensionRun(instance: makeExtension())
        let configuration = configuration, logger = logger
        run.start(UNNotificationRequest(spec: request)) { payload in
            await UNNotificationAttachment.storeForServiceExtension(
                payload, appID: appID, configuration: configuration, logger: logger)
        }
        return run
    }
}

/// One extension instance working on one request.
package final class InProcessServiceExtensionRun: ServiceExtensionRun, @unchecked Sendable {
    // The instance is touched on the task that starts it and by `timeWillExpire`, as iOS calls an extension from
    // its own queue; `answer` is guarded by its mutex.
    private let instance: UNNotificationServiceExtension
    private let answer = OneShot<NotificationPayload?>()

    package init(instance: UNNotificationServiceExtension) {
        self.instance = instance
    }

    /// Calls `didReceive(_:withContentHandler:)`; the first content handed to the handler becomes the answer,
    /// after `finishing` stored its attachments.
    package func start(
        _ request: UNNotificationRequest, finishing: @escaping @Sendable (NotificationPayload) async -> NotificationPayload
    ) {
        let answer = answer
        instance.didReceive(request) { content in
            guard answer.claim() else { return }
            guard let payload = try? content.payload() else {
                answer.resolve(nil)  // content that cannot be stored: the original is shown
                return
            }
            Task { answer.resolve(await finishing(payload)) }
        }
    }

    package func content() async -> NotificationPayload? {
        await answer.value()
    }

    package func timeWillExpire() async {
        instance.serviceExtensionTimeWillExpire()
    }

    package func finish() async {
        answer.resolve(nil)  // nobody waits any longer; a late handler call changes nothing
    }
}

extension UNNotificationAttachment {
    /// The attachments of a service extension's content, checked by Apple's rules and moved into the app's data
    /// store one by one; one that fails is dropped and logged (the notification still shows).
    package static func storeForServiceExtension(
        _ payload: NotificationPayload, appID: String, configuration: OpenUserNotificationsConfiguration, logger: Logger
    ) async -> NotificationPayload {
        guard !payload.attachments.isEmpty else { return payload }
        let store = AttachmentStore(rootPath: configuration.resolvedAttachmentStorePath)
        var checked = payload
        checked.attachments = []
        for attachment in payload.attachments {
            do {
                checked.attachments.append(
                    try moveIntoStore(attachment, store: store, appID: appID, configuration: configuration).1)
            } catch {
                logger.warning(
                    "dropped an attachment of a service extension: \(publicError(error))",
                    metadata: ["app": "\(appID)", "attachment": "\(attachment.identifier)"])
            }
        }
        return checked
    }
}
