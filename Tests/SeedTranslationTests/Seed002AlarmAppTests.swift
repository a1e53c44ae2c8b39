#if canImport(UserNotifications)
import UserNotifications
#else
import OpenUserNotifications
#endif
// Apple's UserNotifications re-exports Foundation; OpenUserNotifications does not (yet), so the Foundation names
// below (NSObject, DispatchQueue, ...) need this line on Linux. It is harmless on Apple platforms.
import Foundation

// Seed 002: "[iOS 10 day by day] Day 5: 新的通知推送 API" (Swift). The NagMe app: a to-do list whose tasks can
// nag every 60 s until the person cancels, from the app or from the notification's Cancel action.
//
// The notification logic is the seed's, statement for statement, in today's Swift. UIKit is gone: the table
// view controller keeps its methods but no view, `TaskCell` stands in for the cell the article never shows, and
// `UIApplication` leaves `application(_:didFinishLaunchingWithOptions:)`. `UNUserNotificationCenter.current()`
// is the default of an injected `center`, and `print` the default of an injected `log`.

enum Seed002 {}

extension Seed002 {
    /// Seed 002, `struct Identifiers`: the identifiers in one place ("cancel" on one side and "Cancel" on the
    /// other cost the author a while).
    struct Identifiers {
        static let reminderCategory = "reminder"
        static let cancelAction = "cancel"
    }

    /// Stand-in for the seed's `TaskCell` (a `UITableViewCell` the article does not show): a name label, the bell
    /// icon and the bell button's closure.
    @MainActor
    final class TaskCell {
        struct Label {
            var text: String?
        }

        var nameLabel = Label()
        /// Called when the bell button is tapped.
        var onButtonSelection: (() -> Void)?
        /// What the bell shows, in order: `true` for "reminder on" (what a person would see on screen).
        let icons: AsyncStream<Bool>
        private let iconContinuation: AsyncStream<Bool>.Continuation
        /// The bell as shown now; `nil` before the first update.
        private(set) var isReminderOn: Bool?

        init() {
            (icons, iconContinuation) = AsyncStream.makeStream()
        }

        func showReminderOnIcon() {
            isReminderOn = true
            iconContinuation.yield(true)
        }

        func showReminderOffIcon() {
            isReminderOn = false
            iconContinuation.yield(false)
        }
    }

    /// Seed 002, `NagMeTableViewController`, without the table view: `tableView(cellForRowAt:)` takes a row
    /// number, and the cells it configured are what `cell(for:)` finds.
    @MainActor
    final class NagMeTableViewController {
        typealias Task = String

        let tasks: [Task] = [
            "Wash Up",
            "Walk Dog",
            "Exercise",
        ]

        private let center: UNUserNotificationCenter
        private let log: @Sendable (String) -> Void
        private var visibleCells: [Task: TaskCell] = [:]

        init(center: UNUserNotificationCenter = .current(), log: @escaping @Sendable (String) -> Void = { print($0) }) {
            self.center = center
            self.log = log
        }

        func tableView(cellForRowAt row: Int) -> TaskCell {
            let cell = TaskCell()
            let task = tasks[row]
            visibleCells[task] = cell

            cell.nameLabel.text = task

            // 显示 cell 上提醒/不提醒的图标
            retrieveNotification(for: task) { request in
                request != nil ? cell.showReminderOnIcon() : cell.showReminderOffIcon()
            }

            // 点击按钮时调用闭包
            cell.onButtonSelection = { [unowned self] in
                self.toggleReminder(for: task)
            }

            return cell
        }

        func tableView(numberOfRowsInSection section: Int) -> Int {
            return tasks.count
        }

        /// The visible cell of a task (UIKit's `tableView.cellForRow(at:)` in the sample project).
        func cell(for task: Task) -> TaskCell? {
            visibleCells[task]
        }

        /// 为 task 创建一个 notification,每分钟重复一次
        func createReminderNotification(for task: Task) {
            // 配置 notification 的 content
            let content = UNMutableNotificationContent()
            content.title = "Task Reminder"
            content.body = "\(task)!!"
            content.sound = .default  // Swift 3's `UNNotificationSound.default()` is a class property today
            content.categoryIdentifier = Identifiers.reminderCategory

            // 我们希望能每 60 秒提醒我们一次 (这也是苹果允许的最小通知间隔)
            let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: true)

            let identifier = "\(task)"

            // 用上面写好的部分来组建一个 request
            let request = UNNotificationRequest(identifier: identifier, content: content, trigger: trigger)

            let log = self.log
            center.add(request) { error in
                if let error = error {
                    log("Problem adding notification: \(error.localizedDescription)")
                } else {
                    // 设置喇叭图标
                    DispatchQueue.main.async {
                        if let cell = self.cell(for: task) {
                            cell.showReminderOnIcon()
                        }
                    }
                }
            }
        }

        func retrieveNotification(for task: Task, completion: @escaping @MainActor (UNNotificationRequest?) -> Void) {
            center.getPendingNotificationRequests { requests in
                DispatchQueue.main.async {
                    let request = requests.filter { $0.identifier == task }.first
                    completion(request)
                }
            }
        }

        func toggleReminder(for task: Task) {
            retrieveNotification(for: task) { request in
                guard request != nil else {
                    // 之前并没有通知,所以该添加通知
                    self.createReminderNotification(for: task)
                    return
                }

                // 移除通知
                self.center.removePendingNotificationRequests(withIdentifiers: [task])

                // 我们已经把通知取消了,下面更新 cell 上的喇叭图标来显示这一点
                if let cell = self.cell(for: task) {
                    cell.showReminderOffIcon()
                }
            }
        }
    }

    /// Seed 002's `AppDelegate`: permission and the category at launch, and the center's delegate.
    final class AppDelegate: NSObject, UNUserNotificationCenterDelegate, Sendable {
        private let center: UNUserNotificationCenter
        private let log: @Sendable (String) -> Void

        init(center: UNUserNotificationCenter = .current(), log: @escaping @Sendable (String) -> Void = { print($0) }) {
            self.center = center
            self.log = log
        }

        /// `application(_:didFinishLaunchingWithOptions:)` without its `UIApplication`.
        func application(didFinishLaunchingWithOptions launchOptions: [AnyHashable: Any]?) -> Bool {
            center.requestAuthorization(options: [.sound, .alert]) { granted, error in
                if granted {
                    self.log("Approval granted to send notifications")
                }
            }
            // "我们在 application(_:didFinishLaunchingWithOptions:) 里调用 addCategory() 方法"
            addCategory()
            // "在 application(_:didFinishLaunchingWithOptions:) 里设置"
            center.delegate = self
            return true  // the seed's excerpt ends before its return
        }

        func addCategory() {
            // 添加操作
            let cancelAction = UNNotificationAction(
                identifier: Identifiers.cancelAction,
                title: "Cancel",
                options: [.foreground])

            // 创建 category
            let category = UNNotificationCategory(
                identifier: Identifiers.reminderCategory,
                actions: [cancelAction],
                intentIdentifiers: [],
                options: [])

            center.setNotificationCategories([category])
        }

        // The seed calls `UNUserNotificationCenter.current()` here; the `center` argument is that same center.
        func userNotificationCenter(
            _ center: UNUserNotificationCenter,
            didReceive response: UNNotificationResponse,
            withCompletionHandler completionHandler: @escaping () -> Void
        ) {
            if response.actionIdentifier == Identifiers.cancelAction {
                let request = response.notification.request
                log("Removing item with identifier \(request.identifier)")
                center.removePendingNotificationRequests(withIdentifiers: [request.identifier])
            }

            completionHandler()
        }

        func userNotificationCenter(
            _ center: UNUserNotificationCenter,
            willPresent notification: UNNotification,
            withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void
        ) {
            // The seed's `.alert` is deprecated since iOS 14, which split it into `.banner` and `.list`.
            completionHandler([.banner, .list])
        }
    }
}

// MARK: - Tests

import OpenUserNotificationsTesting
import Testing

@Suite("Seed 002: the NagMe alarm app", .timeLimit(.minutes(1)))
@MainActor
struct Seed002AlarmAppTests {
    typealias Identifiers = Seed002.Identifiers

    let app = "com.example.nagme"
    let system: NotificationTestSystem
    let log = PrintLog()

    init() throws {
        system = try NotificationTestSystem()
    }

    /// Launches the app as iOS would and waits until its permission request, category and delegate are in.
    private func launch(_ center: UNUserNotificationCenter) async -> Seed002.AppDelegate {
        let appDelegate = Seed002.AppDelegate(center: center, log: log.record)
        #expect(appDelegate.application(didFinishLaunchingWithOptions: nil))
        await log.wait(for: "Approval granted to send notifications")
        await system.settle(center)
        return appDelegate
    }

    /// A task's row on screen: its cell and what its bell shows next.
    @MainActor
    final class Row {
        let cell: Seed002.TaskCell
        private var icons: AsyncStream<Bool>.Iterator

        init(_ cell: Seed002.TaskCell) {
            self.cell = cell
            icons = cell.icons.makeAsyncIterator()
        }

        /// Waits for the bell's next change: `true` for on.
        func nextIcon() async -> Bool? {
            var iterator = icons
            let icon = await iterator.next(isolation: #isolation)
            icons = iterator
            return icon
        }
    }

    /// Shows the row of a task and waits for its bell to appear.
    private func show(_ task: String, in controller: Seed002.NagMeTableViewController) async throws -> Row {
        let index = try #require(controller.tasks.firstIndex(of: task))
        let row = Row(controller.tableView(cellForRowAt: index))
        _ = await row.nextIcon()
        return row
    }

    @Test("launching asks for sound and alert permission and registers the reminder category with Cancel")
    func launching() async throws {
        let center = try await system.center(for: app, authorize: false)
        let appDelegate = await launch(center)

        let settings = await center.notificationSettings()
        #expect(settings.authorizationStatus == .authorized)
        #expect(settings.alertSetting == .enabled)
        #expect(settings.soundSetting == .enabled)
        #expect(settings.badgeSetting == .disabled)

        let categories = await center.notificationCategories()
        let category = try #require(categories.first)
        #expect(categories.count == 1)
        #expect(category.identifier == "reminder")
        #expect(category.actions.map(\.identifier) == ["cancel"])
        #expect(category.actions.map(\.title) == ["Cancel"])
        #expect(category.actions.first?.options == [.foreground])
        #expect(center.delegate === appDelegate)
    }

    @Test("the table has a row per task and every bell starts off")
    func bellsStartOff() async throws {
        let center = try await system.center(for: app)
        let controller = Seed002.NagMeTableViewController(center: center, log: log.record)
        #expect(controller.tableView(numberOfRowsInSection: 0) == 3)
        for task in controller.tasks {
            let cell = try await show(task, in: controller).cell
            #expect(cell.nameLabel.text == task)
            #expect(cell.isReminderOn == false)
        }
    }

    @Test("tapping the bell schedules a reminder repeating every 60 seconds and turns the bell on")
    func tappingSchedules() async throws {
        let center = try await system.center(for: app, authorize: false)
        let appDelegate = await launch(center)
        let controller = Seed002.NagMeTableViewController(center: center, log: log.record)
        let row = try await show("Walk Dog", in: controller)

        try #require(row.cell.onButtonSelection != nil)
        row.cell.onButtonSelection?()
        #expect(await row.nextIcon() == true)

        let pending = await center.pendingNotificationRequests()
        let request = try #require(pending.first)
        #expect(pending.count == 1)
        #expect(request.identifier == "Walk Dog")
        #expect(request.content.title == "Task Reminder")
        #expect(request.content.body == "Walk Dog!!")
        #expect(request.content.sound == .default)
        #expect(request.content.categoryIdentifier == "reminder")
        let trigger = try #require(request.trigger as? UNTimeIntervalNotificationTrigger)
        #expect(trigger.timeInterval == 60)
        #expect(trigger.repeats)
        #expect(trigger.nextTriggerDate() == testSystemStart.addingTimeInterval(60))

        // A row shown later finds the pending request and shows the bell on.
        let again = try await show("Walk Dog", in: controller).cell
        #expect(again.isReminderOn == true)
        let other = try await show("Exercise", in: controller).cell
        #expect(other.isReminderOn == false)
        withExtendedLifetime(appDelegate) {}
    }

    @Test("while the app runs, willPresent shows each nag as a banner with the Cancel action")
    func nagsInForeground() async throws {
        let center = try await system.center(for: app, authorize: false)
        let appDelegate = await launch(center)
        let controller = Seed002.NagMeTableViewController(center: center, log: log.record)
        let row = try await show("Wash Up", in: controller)
        row.cell.onButtonSelection?()
        #expect(await row.nextIcon() == true)

        #expect(await system.advance(by: 59) == 0)
        #expect(await system.advance(by: 1) == 1)
        #expect(await system.advance(by: 120) == 2)

        let shown = system.presenter.presentations
        #expect(shown.count == 3)
        #expect(shown.allSatisfy { $0.identifier == "Wash Up" && $0.appID == app })
        #expect(shown.allSatisfy { $0.title == "Task Reminder" && $0.body == "Wash Up!!" })
        #expect(shown.allSatisfy { $0.actionTitles == ["Cancel"] })
        // willPresent answered [.banner, .list]: no sound, since the delegate did not ask for one.
        #expect(shown.allSatisfy { $0.options == [.banner, .list] })
        #expect(shown.map(\.dueDate) == [60, 120, 180].map { testSystemStart.addingTimeInterval($0) })

        let history = try await system.history(app: app)
        #expect(history.count == 3)
        #expect(history.allSatisfy { $0.outcome == .delivered })
        withExtendedLifetime(appDelegate) {}
    }

    @Test("the Cancel action removes the pending request, so the nagging stops")
    func cancelActionStopsNagging() async throws {
        let center = try await system.center(for: app, authorize: false)
        let appDelegate = await launch(center)
        let controller = Seed002.NagMeTableViewController(center: center, log: log.record)
        let row = try await show("Walk Dog", in: controller)
        row.cell.onButtonSelection?()
        #expect(await row.nextIcon() == true)
        await system.advance(by: 120)
        #expect(system.presenter.presentations.count == 2)

        let routed = try await system.respond(to: "Walk Dog", app: app, actionIdentifier: Identifiers.cancelAction)
        #expect(routed)
        #expect(log.lines.contains("Removing item with identifier Walk Dog"))
        await system.settle(center)
        #expect(await center.pendingNotificationRequests().isEmpty)

        #expect(await system.advance(by: 600) == 0)
        #expect(system.presenter.presentations.count == 2)
        let answered = try #require(try await system.history(app: app).first)
        #expect(answered.outcome == .action)
        #expect(answered.detail == "cancel")

        // The list, shown again, finds no reminder.
        let again = try await show("Walk Dog", in: controller).cell
        #expect(again.isReminderOn == false)
        withExtendedLifetime(appDelegate) {}
    }

    @Test("tapping the notification itself opens the app and keeps nagging")
    func defaultActionKeepsNagging() async throws {
        let center = try await system.center(for: app, authorize: false)
        let appDelegate = await launch(center)
        let controller = Seed002.NagMeTableViewController(center: center, log: log.record)
        let row = try await show("Exercise", in: controller)
        row.cell.onButtonSelection?()
        #expect(await row.nextIcon() == true)
        await system.advance(by: 60)

        #expect(try await system.respond(to: "Exercise", app: app))
        await system.settle(center)
        #expect(log.lines.filter { $0.hasPrefix("Removing") }.isEmpty)
        #expect(await center.pendingNotificationRequests().map(\.identifier) == ["Exercise"])
        #expect(await system.advance(by: 60) == 1)
        withExtendedLifetime(appDelegate) {}
    }

    @Test("tapping the bell again cancels the reminder and turns the bell off")
    func tappingAgainCancels() async throws {
        let center = try await system.center(for: app, authorize: false)
        let appDelegate = await launch(center)
        let controller = Seed002.NagMeTableViewController(center: center, log: log.record)
        let row = try await show("Walk Dog", in: controller)
        row.cell.onButtonSelection?()
        #expect(await row.nextIcon() == true)
        await system.advance(by: 60)
        #expect(system.presenter.presentations.count == 1)

        row.cell.onButtonSelection?()
        #expect(await row.nextIcon() == false)
        await system.settle(center)
        #expect(await center.pendingNotificationRequests().isEmpty)
        #expect(await system.advance(by: 300) == 0)
        #expect(system.presenter.presentations.count == 1)
        withExtendedLifetime(appDelegate) {}
    }

    @Test("while the app is not running the system shows the nag itself, with the sound")
    func nagsInBackground() async throws {
        let center = try await system.center(for: app)
        // Scheduled from the list; no AppDelegate set a delegate, so the app counts as not running.
        let controller = Seed002.NagMeTableViewController(center: center, log: log.record)
        let row = try await show("Wash Up", in: controller)
        row.cell.onButtonSelection?()
        #expect(await row.nextIcon() == true)

        #expect(await system.advance(by: 60) == 1)
        let shown = try #require(system.presenter.presentations.first)
        #expect(shown.options.contains(.banner))
        #expect(shown.options.contains(.sound))
        #expect(await center.deliveredNotifications().map(\.request.identifier) == ["Wash Up"])
    }

    @Test("Cancel chosen while the app was not running reaches the relaunched app and stops the nagging")
    func cancelWhileNotRunning() async throws {
        // An earlier run registered the category and scheduled the reminder; no delegate is set now, so the app
        // counts as not running.
        let earlier = try await system.center(for: app)
        Seed002.AppDelegate(center: earlier, log: log.record).addCategory()
        let controller = Seed002.NagMeTableViewController(center: earlier, log: log.record)
        let row = try await show("Walk Dog", in: controller)
        row.cell.onButtonSelection?()
        #expect(await row.nextIcon() == true)
        await system.advance(by: 60)

        // The person picks Cancel on the banner; the app does not run, so the answer waits for it.
        #expect(try await system.respond(to: "Walk Dog", app: app, actionIdentifier: Identifiers.cancelAction))
        #expect(log.lines.isEmpty)

        // iOS launches the app to handle the answer.
        let relaunched = try await system.center(for: app)
        let appDelegate = await launch(relaunched)
        #expect(log.lines.contains("Removing item with identifier Walk Dog"))
        // `launch` settled the center after the hand-over, which queued the removal; this read runs after it.
        #expect(await relaunched.pendingNotificationRequests().isEmpty)
        #expect(await system.advance(by: 600) == 0)
        withExtendedLifetime(appDelegate) {}
    }

    @Test("when notifications are denied, add reports the error and the bell stays off")
    func deniedReportsError() async throws {
        let system = try NotificationTestSystem(configuration: OpenUserNotificationsConfiguration(authorizationPolicy: .deny))
        let center = try await system.center(for: app, authorize: false)
        // The person tapped "Don't Allow" at the first launch.
        #expect(try await center.requestAuthorization(options: [.sound, .alert]) == false)

        let controller = Seed002.NagMeTableViewController(center: center, log: log.record)
        let cell = try await show("Walk Dog", in: controller).cell
        cell.onButtonSelection?()
        await log.wait { $0.contains { $0.hasPrefix("Problem adding notification: ") } }

        #expect(log.lines.count == 1)
        #expect(log.lines.allSatisfy { $0.hasPrefix("Problem adding notification: ") && $0.contains("not allowed") })
        #expect(cell.isReminderOn == false)
        #expect(await center.pendingNotificationRequests().isEmpty)
    }
}
