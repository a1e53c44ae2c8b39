import Foundation
import NotificationEngine
import NotificationModel
import Synchronization

/// Registers an app for remote notifications and routes its background pushes: the analogue of
/// `UIApplication.registerForRemoteNotifications()`, `unregisterForRemoteNotifications()` and
/// `isRegisteredForRemoteNotifications`, under our own name.
///
/// ```swift
/// let remote = RemoteNotificationRegistration.current()
/// remote.delegate = appDelegate
/// remote.registerForRemoteNotifications()      // → appDelegate.didRegisterForRemoteNotifications(withDeviceToken:)
/// ```
///
/// The device token is 32 random bytes, the same for the app on this machine (this store) until it
/// unregisters; registering again after that issues a new one, and the old one answers 410 `Unregistered`.
/// Setting ``delegate`` marks the app as running for background pushes: the one that waited while it did not run
/// is handed over then.
///
/// Registering works in both modes (with the daemon, the token lives in the daemon's store and its APNs endpoint
/// accepts pushes to it).
///
/// > Note: Background pushes (content-available only) reach a running app's delegate in embedded mode; with the
/// > daemon they wait for the app's next launch (its launch command), since the daemon's protocol does not forward
/// > them to a running app yet.
public final class RemoteNotificationRegistration: Sendable {
    /// The center whose app registers.
    public let center: UNUserNotificationCenter
    private let state = Mutex<State>(State())
    private let receiver: Receiver

    private struct State {
        weak var delegate: (any RemoteNotificationDelegate)?
        var attachment: Task<Void, Never>?
    }

    /// Creates a registration for a center's app (tests use the centers of `NotificationTestSystem`).
    public init(center: UNUserNotificationCenter) {
        self.center = center
        receiver = Receiver()
        receiver.owner.withLock { $0 = Weak(value: self) }
    }

    private static let shared = Mutex<RemoteNotificationRegistration?>(nil)

    /// The registration of the app's shared center, `UNUserNotificationCenter.current()`.
    public static func current() -> RemoteNotificationRegistration {
        shared.withLock { current in
            if let current { return current }
            let made = RemoteNotificationRegistration(center: .current())
            current = made
            return made
        }
    }

    /// Receives the device token and background pushes. Setting it makes the app "running" for pushes; `nil`
    /// stops that.
    public var delegate: (any RemoteNotificationDelegate)? {
        get { state.withLock { $0.delegate } }
        set {
            guard let scheduler else {
                state.withLock { $0.delegate = newValue }
                return
            }
            let receiver = self.receiver, app = center.bundleIdentifier
            state.withLock { state in
                state.delegate = newValue
                let previous = state.attachment
                let attach = newValue != nil
                state.attachment = Task {
                    await previous?.value
                    if attach {
                        await scheduler.attachRemoteReceiver(receiver, appID: app)
                    } else {
                        await scheduler.detachRemoteReceiver(appID: app)
                    }
                }
            }
        }
    }

    /// Waits until the last change of ``delegate`` reached the engine (tests).
    public func settle() async {
        await state.withLock { $0.attachment }?.value
    }

    /// Registers the app and tells the delegate the device token (or the error), as
    /// `registerForRemoteNotifications()` does.
    public func registerForRemoteNotifications() {
        Task {
            do {
                let token = try await register()
                delegate?.didRegisterForRemoteNotifications(withDeviceToken: token)
            } catch {
                delegate?.didFailToRegisterForRemoteNotificationsWithError(error)
            }
        }
    }

    /// Registers the app and returns its device token: 32 bytes, stable until ``unregisterForRemoteNotifications()``.
    /// - Throws: ``RemoteNotificationRegistrationError`` when the store or the daemon fails.
    public func register() async throws -> Data {
        do {
            return try await center.backend.registerForRemoteNotifications(
                appID: center.bundleIdentifier, bundleDirectory: UserNotificationLocalization.bundleDirectory
            ).token.bytes
        } catch let error as EngineError {
            throw RemoteNotificationRegistrationError(error.message)
        }
    }

    /// Unregisters the app: pushes to its token answer 410 `Unregistered` from now on.
    public func unregisterForRemoteNotifications() async throws {
        do { _ = try await center.backend.unregisterForRemoteNotifications(appID: center.bundleIdentifier) } catch let error as EngineError {
            throw RemoteNotificationRegistrationError(error.message)
        }
    }

    /// Whether the app has an active device token.
    public func isRegisteredForRemoteNotifications() async -> Bool {
        (try? await center.backend.pushRegistration(appID: center.bundleIdentifier))?.isActive ?? false
    }

    private var scheduler: NotificationScheduler? { center.backend as? NotificationScheduler }

    /// Hands a push to the delegate and waits for its completion handler.
    fileprivate func handOver(_ push: RemoteNotification) async -> Bool {
        guard let delegate else { return false }
        let userInfo = Dictionary(
            uniqueKeysWithValues: push.content.userInfo.map { (AnyHashable($0.key), $0.value.foundationValue) })
        let box = UserInfoBox(userInfo)
        _ = await withCheckedContinuation { (continuation: CheckedContinuation<RemoteNotificationFetchResult, Never>) in
            let once = Mutex(false)
            delegate.didReceiveRemoteNotification(box.userInfo) { result in
                guard once.withLock({ done in
                    defer { done = true }
                    return !done
                }) else { return }
                continuation.resume(returning: result)
            }
        }
        return true
    }
}

/// The engine-side receiver; holds its registration weakly so that the registration can go away.
private final class Receiver: RemoteNotificationReceiver {
    let owner = Mutex<Weak>(Weak(value: nil))

    func didReceiveRemoteNotification(_ notification: RemoteNotification) async -> Bool {
        guard let registration = owner.withLock({ $0.value }) else { return false }
        return await registration.handOver(notification)
    }
}

private struct Weak {
    weak var value: RemoteNotificationRegistration?
}

/// A `userInfo` built from `Sendable` values, passed to the delegate on this task.
private struct UserInfoBox: @unchecked Sendable {  // immutable: property-list values only
    let userInfo: [AnyHashable: Any]
    init(_ userInfo: [AnyHashable: Any]) { self.userInfo = userInfo }
}
