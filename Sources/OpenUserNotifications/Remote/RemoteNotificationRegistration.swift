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
/// accepts pushes to it, and background pushes reach the running app's delegate over its connection).
///
/// A push with `mutable-content` goes first to the app's service extension, when it has one: a
/// ``UNNotificationServiceExtension`` subclass registered with ``setServiceExtension(_:)`` (run in this process
/// while it runs) or an executable declared with ``setServiceExtensionCommand(_:)`` (run by the system otherwise).
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
            let receiver = self.receiver
            state.withLock { $0.delegate = newValue }
            chain { backend, app in
                if newValue != nil {
                    await backend.attachRemoteReceiver(receiver, appID: app)
                } else {
                    await backend.detachRemoteReceiver(appID: app)
                }
            }
        }
    }

    /// Runs a change of what the app attached after the previous one, in order.
    private func chain(_ change: @escaping @Sendable (any NotificationBackend, String) async -> Void) {
        let backend = center.backend, app = center.bundleIdentifier
        state.withLock { state in
            let previous = state.attachment
            state.attachment = Task {
                await previous?.value
                await change(backend, app)
            }
        }
    }

    /// Registers the app's notification service extension, run in this process: for each push with
    /// `mutable-content`, a new instance gets `didReceive(_:withContentHandler:)`, within the time budget (30 s by
    /// default) after which `serviceExtensionTimeWillExpire()` asks for its best attempt. `nil` unregisters it.
    ///
    /// This is where iOS reads the extension from the app's bundle; here the app names it while it runs. Pushes
    /// that arrive while it does not run go to the executable of ``setServiceExtensionCommand(_:)``, if any, and
    /// are otherwise shown as they came.
    ///
    /// ```swift
    /// RemoteNotificationRegistration.current().setServiceExtension { NotificationService() }
    /// ```
    public func setServiceExtension(_ makeExtension: (@Sendable () -> UNNotificationServiceExtension)?) {
        let host = makeExtension.map {
            InProcessServiceExtensionHost(configuration: center.configuration, makeExtension: $0)
        }
        chain { backend, app in
            if let host {
                await backend.attachServiceExtension(host, appID: app)
            } else {
                await backend.detachServiceExtension(appID: app)
            }
        }
    }

    /// Declares the executable that runs the app's service extension while the app does not: an absolute path and
    /// its arguments, `nil` to remove it. The executable calls ``UNNotificationServiceExtension/runAsProcess(_:)``
    /// (see its documentation for what it reads and writes).
    /// - Throws: ``RemoteNotificationRegistrationError`` for a relative path or when the store or daemon fails.
    public func setServiceExtensionCommand(_ command: [String]?) async throws {
        do { try await center.backend.setServiceExtensionCommand(command, appID: center.bundleIdentifier) } catch let error as EngineError {
            throw RemoteNotificationRegistrationError(error.message)
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
