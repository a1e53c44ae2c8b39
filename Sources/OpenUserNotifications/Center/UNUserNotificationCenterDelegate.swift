import Foundation

/// Handles notifications that arrive while the app runs and the person's answers to notifications.
///
/// Implement either the completion-handler or the `async` form of each method; whichever you implement is
/// called. Every method is optional.
///
/// ```swift
/// final class AppDelegate: NSObject, UNUserNotificationCenterDelegate {
///     func userNotificationCenter(_ center: UNUserNotificationCenter,
///                                 willPresent notification: UNNotification) async -> UNNotificationPresentationOptions {
///         [.banner, .sound]
///     }
///     func userNotificationCenter(_ center: UNUserNotificationCenter,
///                                 didReceive response: UNNotificationResponse) async {
///         print("chose", response.actionIdentifier)
///     }
/// }
/// ```
///
/// > Note: On Linux the methods are called on a background task, not on the main thread.
public protocol UNUserNotificationCenterDelegate: NSObjectProtocol {
    /// Decides how a notification that arrives while the app runs is presented. Without an answer it is not
    /// presented, as on Apple platforms.
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void)

    /// The `async` form of `userNotificationCenter(_:willPresent:withCompletionHandler:)`.
    func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification) async
        -> UNNotificationPresentationOptions

    /// Receives the person's answer: an action, a tap (``UNNotificationDefaultActionIdentifier``), text, or a
    /// dismissal (``UNNotificationDismissActionIdentifier``, only for categories with `.customDismissAction`).
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
        withCompletionHandler completionHandler: @escaping () -> Void)

    /// The `async` form of `userNotificationCenter(_:didReceive:withCompletionHandler:)`.
    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async

    /// Opens the app's own notification settings; `notification` is `nil` when opened from the settings.
    func userNotificationCenter(_ center: UNUserNotificationCenter, openSettingsFor notification: UNNotification?)
}

extension UNUserNotificationCenterDelegate {
    public func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void
    ) {
        DelegateProbe.current?.markUnimplemented()
        completionHandler([])
    }

    public func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification) async
        -> UNNotificationPresentationOptions
    {
        await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation, fallback: UNNotificationPresentationOptions())
            userNotificationCenter(center, willPresent: notification) { options in once.resume(options) }
        }
    }

    public func userNotificationCenter(
        _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
        withCompletionHandler completionHandler: @escaping () -> Void
    ) {
        completionHandler()
    }

    public func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {
        await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation, fallback: ())
            userNotificationCenter(center, didReceive: response) { once.resume(()) }
        }
    }

    public func userNotificationCenter(_ center: UNUserNotificationCenter, openSettingsFor notification: UNNotification?) {}
}

/// Resumes a continuation exactly once: with the app's answer, or with a fallback if the app drops its
/// completion handler without calling it.
final class ResumeOnce<T: Sendable>: @unchecked Sendable {  // state guarded by `lock`
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Never>?
    private let fallback: T

    init(_ continuation: CheckedContinuation<T, Never>, fallback: T) {
        self.continuation = continuation
        self.fallback = fallback
    }

    func resume(_ value: T) {
        lock.lock()
        let continuation = self.continuation
        self.continuation = nil
        lock.unlock()
        continuation?.resume(returning: value)
    }

    deinit { continuation?.resume(returning: fallback) }
}

/// Tells the center that a delegate left `willPresent` unimplemented, so it can apply the configured default.
final class DelegateProbe: @unchecked Sendable {  // `unimplemented` guarded by `lock`
    @TaskLocal static var current: DelegateProbe?
    private let lock = NSLock()
    private var unimplemented = false

    func markUnimplemented() {
        lock.lock()
        unimplemented = true
        lock.unlock()
    }

    var isUnimplemented: Bool {
        lock.lock()
        defer { lock.unlock() }
        return unimplemented
    }
}
