// NagMe: the to-do reminder app of seed 002 ("[iOS 10 day by day] Day 5"), on Linux. A task can nag every
// 60 seconds until the person presses Cancel on one of its notifications.
//
//     swift run NagMe add "Walk Dog"      # nag about it every 60 s (--every 90 for another period)
//     swift run NagMe list                # tasks and whether they nag
//     swift run NagMe run                 # the app in the foreground: shows its notifications, hears Cancel
//     swift run NagMe cancel "Walk Dog"   # stop nagging from the app
//     swift run NagMe handle              # what the system launches to hand over a Cancel pressed while NagMe
//                                         # was not running (registered as NagMe's launch command)
//
// On a desktop, notifications appear through its notification server with a Cancel button; in a terminal they
// are printed, and Cancel is `unotify respond --app com.example.nagme "Walk Dog" cancel`. With `unotifyd`
// running, tasks nag even while NagMe is not running, and Cancel launches `NagMe handle`.
import OpenUserNotifications

#if canImport(Glibc)
import Glibc
#endif

/// The seed's `Identifiers`: one place for the strings that must match ("cancel" vs "Cancel" cost the author).
enum Identifiers {
    static let reminderCategory = "reminder"
    static let cancelAction = "cancel"
}

/// The app's delegate: foreground presentation, and Cancel removes the task's reminder.
final class NagMeDelegate: NSObject, UNUserNotificationCenterDelegate, Sendable {
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification
    ) async -> UNNotificationPresentationOptions {
        print("nagging: \(notification.request.content.body)")
        return [.banner, .list, .sound]
    }

    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {
        let task = response.notification.request.identifier
        switch response.actionIdentifier {
        case Identifiers.cancelAction:
            center.removePendingNotificationRequests(withIdentifiers: [task])
            center.removeDeliveredNotifications(withIdentifiers: [task])
            print("cancelled: \(task)")
        case UNNotificationDefaultActionIdentifier:
            print("opened: \(task)")
        default:
            print("\(response.actionIdentifier): \(task)")
        }
    }
}

@MainActor
struct NagMe {
    let center = UNUserNotificationCenter.current()
    let delegate = NagMeDelegate()

    /// What seed 002 does in `application(_:didFinishLaunchingWithOptions:)`: permission, the category with its
    /// Cancel action, the delegate; and, Linux's analogue of being launched in the background, the launch command.
    func launch() async throws {
        let granted = try await center.requestAuthorization(options: [.alert, .sound, .badge])
        if !granted { print("NagMe may not show notifications (authorization denied)") }
        let cancel = UNNotificationAction(identifier: Identifiers.cancelAction, title: "Cancel", options: [.foreground])
        center.setNotificationCategories([
            UNNotificationCategory(
                identifier: Identifiers.reminderCategory, actions: [cancel], intentIdentifiers: [], options: [])
        ])
        center.delegate = delegate
        try await center.setLaunchCommand([CommandLine.arguments[0], "handle"])
    }

    /// Seed 002's `createReminderNotification(for:)`.
    func add(_ task: String, every interval: TimeInterval) async throws {
        let content = UNMutableNotificationContent()
        content.title = "Task Reminder"
        content.body = "\(task)!!"
        content.sound = .default
        content.categoryIdentifier = Identifiers.reminderCategory
        let trigger = UNTimeIntervalNotificationTrigger(timeInterval: interval, repeats: true)
        try await center.add(UNNotificationRequest(identifier: task, content: content, trigger: trigger))
        print("will nag about \(task) every \(Int(interval)) s")
    }

    func list() async {
        let pending = await center.pendingNotificationRequests()
        if pending.isEmpty { print("no task nags") }
        for request in pending.sorted(by: { $0.identifier < $1.identifier }) {
            let next = (request.trigger as? UNTimeIntervalNotificationTrigger)?.nextTriggerDate()
            print("\(request.identifier): nags\(next.map { ", next at \($0)" } ?? "")")
        }
    }

    func cancel(_ task: String) async {
        center.removePendingNotificationRequests(withIdentifiers: [task])
        center.removeDeliveredNotifications(withIdentifiers: [task])
        // The center handles calls in order: once this answers, the removals are done (the process may exit).
        _ = await center.pendingNotificationRequests()
        print("cancelled: \(task)")
    }

    /// Stays in the foreground for `seconds` (or until interrupted), answering for NagMe's notifications.
    func run(for seconds: Double?) async throws {
        print("NagMe is running\(seconds.map { " for \(Int($0)) s" } ?? " (Ctrl-C to stop)")")
        if let seconds {
            try await Task.sleep(for: .seconds(seconds))
        } else {
            while true { try await Task.sleep(for: .seconds(3_600)) }
        }
    }
}

@MainActor
func main() async {
    var arguments = Array(CommandLine.arguments.dropFirst())
    let command = arguments.isEmpty ? "help" : arguments.removeFirst()
    func option(_ name: String) -> Double? {
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
        defer { arguments.removeSubrange(index...(index + 1)) }
        return Double(arguments[index + 1])
    }
    let app = NagMe()
    do {
        switch command {
        case "add":
            let every = option("--every") ?? 60
            guard let task = arguments.first else { throw UsageError() }
            try await app.launch()
            try await app.add(task, every: every)
        case "list":
            try await app.launch()
            await app.list()
        case "cancel":
            guard let task = arguments.first else { throw UsageError() }
            try await app.launch()
            await app.cancel(task)
        case "run":
            let seconds = option("--for")
            try await app.launch()
            try await app.run(for: seconds)
        case "handle":
            // Launched by the system with a response waiting: attaching the delegate hands it over.
            try await app.launch()
            try await app.run(for: 2)
        default:
            throw UsageError()
        }
    } catch is UsageError {
        print("usage: NagMe add <task> [--every seconds] | list | cancel <task> | run [--for seconds] | handle")
        exit(2)
    } catch {
        print("NagMe: \(error.localizedDescription)")
        exit(1)
    }
}

struct UsageError: Error {}

await main()
