import Foundation
import NotificationLocalization
import NotificationModel

/// Settings of the engine that Apple's framework does not have.
public struct EngineConfiguration: Sendable {
    /// How many dated pending requests an app may keep; the soonest-firing ones are kept and the rest discarded,
    /// as Apple documents for its system (64, a repeating request counting once). `nil` turns the cap off.
    public var pendingCap: Int?

    /// How `requestAuthorization` is answered when no person can be asked.
    public var authorizationPolicy: AuthorizationPolicy

    /// How long a foreground app's `willPresent` may take before the engine stops waiting.
    public var willPresentDeadline: TimeInterval

    /// How a notification is presented when a running app does not answer `willPresent` before the deadline (or
    /// its connection drops): nothing in embedded mode, as on Apple platforms; the daemon presents it normally.
    public var presentationWhenUnanswered: PresentationSet = []

    /// How long a claim on a due request lasts before another engine (or this one after a crash) may deliver
    /// it again. A running engine renews the claims it holds every third of this (presenting, retrying, recording), so
    /// the lease ends only for an engine that died or could not reach its store for that long. 0 or less: no renewal.
    public var claimLease: TimeInterval

    /// Called (on the renewal's task) with each failed renewal and each renewal that found claims taken over, besides
    /// the log lines the engine writes for them: a server worker counts them in its metrics. `nil` by default.
    public var claimRenewalObserver: (@Sendable (ClaimRenewalEvent) -> Void)?

    /// How many due requests one pass of the loop claims at most (values below 1 count as 1). 256 by default: one
    /// engine on its own store spends fewer transactions on a burst. Engines sharing a store (server-mode workers)
    /// share a burst better with a smaller batch, and one that crashes leaves fewer claims to wait out.
    public var claimBatch: Int = 256

    /// How many claimed batches one pass of the loop presents at the same time (values below 1 count as 1). With 1,
    /// the default, a pass claims the next batch once every presentation of the one before has ended, and an app's
    /// notifications are presented in their order. A server-mode worker presents through APNs, where a presentation
    /// is a network round trip: batches overlap, so a worker keeps `claimBatch × batchesInFlight` notifications on
    /// their way instead of waiting for the slowest answer of each batch. Two requests of one app in different
    /// batches may then be presented in either order (APNs does not keep an order either), and a worker that
    /// crashes leaves up to that many claims to wait out.
    public var batchesInFlight: Int = 1

    /// Whether the engine resolves `localizedUserNotificationString` values in a request's title, subtitle and body at
    /// delivery, in ``deliveryLanguages`` (the default). `false` leaves them encoded for the presenter: a server-mode
    /// worker sends them to the device as APNs's `loc-key` and `loc-args`, and the device localizes them in its own
    /// language, as it does with any remote notification.
    public var resolvesLocalizedStrings = true

    /// How long before a request's due instant the running loop (``NotificationScheduler/run()``) claims it and reads
    /// what presenting it needs, so that at the instant it only presents: the durable claim and the reads then cost
    /// the notification no lateness. A request removed or replaced in between is not delivered; one whose fire date
    /// moved (a zone change) is claimed again when it falls due. 0 claims at the due instant. The default is 0.25 s.
    public var claimAhead: TimeInterval = 0.25

    /// A real-time priority (`SCHED_FIFO`, 1–99) for the running loop's own thread, or `nil` (the default) to leave
    /// it at the process's priority. At a due instant the loop's thread then runs at once, ahead of every normal thread
    /// on the machine, instead of waiting up to a scheduler tick or more for a core (docs/benchmarks.md, "The late
    /// tail: what a late delivery waits for"). The thread sleeps between instants and its work at an instant is short;
    /// the kernel's real-time throttling bounds it anyway.
    ///
    /// > Note: On Linux this needs `CAP_SYS_NICE` or an `RLIMIT_RTPRIO` of at least the priority (a systemd unit's
    /// > `LimitRTPRIO=`); without either the thread keeps its normal priority and the engine logs it once.
    public var loopRealtimePriority: Int32?

    /// The scheduler time slice the running loop's own thread asks the kernel for, in seconds, or `nil` to leave it at
    /// the kernel's default (about 0.7–3 ms). 0.1 ms by default: on Linux 6.12 and later (EEVDF) a thread with a
    /// shorter slice gets an earlier virtual deadline, so that when the loop's thread wakes at a due instant it
    /// preempts a thread that has been running on a busy core (an import's, another process's) instead of waiting for
    /// the next scheduler tick. Unlike ``loopRealtimePriority`` it needs no privilege and takes no more of the
    /// machine's time: the thread still gets its fair share, in shorter pieces.
    ///
    /// > Note: On Linux before 6.12, on macOS, and for a thread under ``loopRealtimePriority``, the request changes
    /// > nothing. The kernel clamps it to 0.1–100 ms.
    public var loopTimeSlice: TimeInterval? = 0.0001

    /// Whose requests this engine delivers: one app's (an app's own process in embedded mode) or every app's
    /// (`nil`: `unotify watch`, later the daemon).
    public var deliveryScope: String?

    /// The person's preferred languages, read at each delivery to resolve the strings of
    /// `localizedUserNotificationString(forKey:arguments:)`: POSIX locale names or language identifiers, most
    /// preferred first (`["zh_CN.UTF-8", "en"]`); `C` / `POSIX` or an empty list mean the app's development
    /// language. The default, ``environmentLanguages``, reads this process's `LC_ALL`, `LC_MESSAGES`, `LANG` and
    /// `LANGUAGE` at that moment; tests set a fixed list.
    public var deliveryLanguages: @Sendable () -> [String] = EngineConfiguration.environmentLanguages

    /// The preferred languages of this process's environment at the moment of the call (see
    /// `UserLanguages.fromEnvironment(_:)`).
    public static let environmentLanguages: @Sendable () -> [String] = {
        UserLanguages.fromEnvironment(ProcessInfo.processInfo.environment)
    }

    /// The attachment data store (the folder holding one folder per app): when a request or notification is
    /// removed, the engine deletes the attachment files it held that lie inside this folder and that no pending
    /// request, delivered notification or queued response still names. Files elsewhere are never deleted; `nil`
    /// deletes nothing. The default is ``defaultAttachmentStoreRoot(environment:)``.
    public var attachmentStoreRoot: String? = EngineConfiguration.defaultAttachmentStoreRoot()

    /// `OPENUN_ATTACHMENTS`, else `$XDG_DATA_HOME/openusernotifications/attachments`, else
    /// `$HOME/.local/share/openusernotifications/attachments`: the same default as the app side's data store.
    public static func defaultAttachmentStoreRoot(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        if let path = environment["OPENUN_ATTACHMENTS"], path.hasPrefix("/") { return path }
        let base: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = xdg
        } else {
            base = (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        }
        return base + "/openusernotifications/attachments"
    }

    /// How long an app's service extension may work on a push with `mutable-content` before it hears
    /// `serviceExtensionTimeWillExpire()`: 30 seconds, as on iOS.
    public var serviceExtensionTimeBudget: TimeInterval = 30

    /// How long, after `serviceExtensionTimeWillExpire()`, the engine waits for the extension's best attempt
    /// before it shows the original content (Apple documents no figure; "a short time").
    public var serviceExtensionGrace: TimeInterval = 5

    /// The default cap Apple documents.
    public static let applePendingCap = 64

    public init(
        pendingCap: Int? = EngineConfiguration.applePendingCap,
        authorizationPolicy: AuthorizationPolicy = .grantRequested,
        willPresentDeadline: TimeInterval = 10,
        claimLease: TimeInterval = 60,
        deliveryScope: String? = nil
    ) {
        self.deliveryScope = deliveryScope
        self.pendingCap = pendingCap
        self.authorizationPolicy = authorizationPolicy
        self.willPresentDeadline = willPresentDeadline
        self.claimLease = claimLease
    }
}

/// How authorization requests are answered on a machine where no system prompt exists.
public enum AuthorizationPolicy: String, Sendable, Hashable, CaseIterable {
    /// Grant exactly the options the app asks for (the headless default).
    case grantRequested = "grant"
    /// Deny every request, as a person who always taps "Don't Allow".
    case deny

    /// Reads `OPENUN_AUTHORIZATION` (`grant` or `deny`).
    public static func fromEnvironment(_ environment: [String: String]) -> AuthorizationPolicy? {
        environment["OPENUN_AUTHORIZATION"].flatMap(AuthorizationPolicy.init(rawValue:))
    }
}
