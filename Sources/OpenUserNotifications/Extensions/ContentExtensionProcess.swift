import Foundation
import Logging
import NotificationEngine
import NotificationModel

/// Runs a ``UNNotificationContentExtension`` as the executable an app declared for its content extension: the
/// `main` of that executable.
///
/// The web center starts the executable when it needs the extension: to draw a notification, or to hand it an
/// action pressed below the view. This reads what the system asks on standard input
/// (`ContentExtensionProcessMessage`), makes an instance, calls
/// ``UNNotificationContentExtension/didReceive(_:)`` or
/// ``UNNotificationContentExtension/didReceive(_:completionHandler:)``, writes the answer to standard output (the
/// view's HTML, or the option's name) and returns; the process then exits with status 0.
///
/// ```swift
/// // Sources/InviteView/main.swift
/// import OpenUserNotifications
///
/// final class InviteView: UNNotificationContentExtension { … }
/// await ContentExtensionProcess.run { InviteView() }
/// ```
///
/// The app declares the executable and its categories in the store the daemon uses (see docs/web-center.md).
public enum ContentExtensionProcess {
    /// Answers the system's one question on standard input with a new extension instance.
    ///
    /// - Parameter makeExtension: Makes the extension instance.
    /// - Returns: Whether an answer was written (`false` when standard input held no question).
    @discardableResult
    public static func run(_ makeExtension: @escaping @Sendable () -> any UNNotificationContentExtension) async
        -> Bool
    {
        let logger = Logger(label: "OpenUserNotifications.contentExtension")
        let question = OneShot<ContentExtensionProcessMessage?>()
        LineReader.start(
            FileHandle.standardInput,
            line: { line in
                if let message = ContentExtensionProcessMessage.decode(line: line) {
                    question.resolve(message)
                } else {
                    logger.warning("ignored a line on standard input that is not a content extension message")
                }
            },
            end: { question.resolve(nil) })
        guard let message = await question.value() else {
            logger.error("no question on standard input")
            return false
        }
        let answer = await Self.answer(message, with: makeExtension())
        FileHandle.standardOutput.write(Data(answer.utf8))
        return true
    }

    /// What an extension instance answers to one message: the HTML, or the option's name.
    package static func answer(
        _ message: ContentExtensionProcessMessage, with instance: any UNNotificationContentExtension
    ) async -> String {
        switch message {
        case .view(_, let notification):
            return await instance.didReceive(UNNotification(delivered: notification))
        case .response(_, let spec):
            let chosen = OneShot<UNNotificationContentExtensionResponseOption>()
            instance.didReceive(UNNotificationResponse.make(spec)) { option in chosen.resolve(option) }
            return await chosen.value().engineOption.rawValue
        }
    }
}
