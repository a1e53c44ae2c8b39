#if canImport(UserNotifications)
import UserNotifications
#else
import OpenUserNotifications
#endif
// Apple's UserNotifications re-exports Foundation; OpenUserNotifications does not (yet), so the Foundation names
// below (NSObject, DateComponents, URL, ...) need this line on Linux. It is harmless on Apple platforms.
import Foundation
// On Apple platforms CLCircularRegion comes from CoreLocation; on Linux OpenUserNotifications provides it.
#if canImport(CoreLocation)
import CoreLocation
#endif

// Seed 001: "iOS10-UserNotifications", an overview with Objective-C fragments: the three triggers (2.1), content
// and attachments (2.2.2), actions and categories (2.3.1), authorization and scheduling (2.4.1) and the
// notification service extension (4.3, 4.3.2), translated to Swift. Skipped: 4.1.1 (remote-notification
// registration and the device token: UIApplication and APNs) and 4.3.2's second download variant (an
// NSURLSession download from the network). `[UNUserNotificationCenter currentNotificationCenter]` is the
// default of an injected `center`, and `NSLog` the default of an injected `log`.

enum Seed001 {}

extension Seed001 {
    // MARK: 2.1 Triggers

    /// 2.1: "2min后提醒".
    static func twoMinutesLater() -> UNTimeIntervalNotificationTrigger {
        let trigger1 = UNTimeIntervalNotificationTrigger(timeInterval: 120, repeats: false)
        return trigger1
    }

    /// 2.1: "每周日早上 8:00 提醒".
    static func everySundayAtEight() -> UNCalendarNotificationTrigger {
        var components = DateComponents()
        components.weekday = 1
        components.hour = 8
        let trigger2 = UNCalendarNotificationTrigger(dateMatching: components, repeats: true)
        return trigger2
    }

    /// 2.1, "NSDateComponets的注意点,有了时间并不能得到weekday": a date's components do not include its weekday
    /// until a calendar works it out. Returns the weekday before (undefined) and after.
    static func weekdayOfJuly11th2016(
        log: @escaping @Sendable (String) -> Void = { print($0) }
    ) -> (before: Int?, after: Int, components: DateComponents) {
        var dateComponents = DateComponents()
        dateComponents.day = 11
        dateComponents.month = 7
        dateComponents.year = 2016
        // 输出结果是NSDateComponentUndefined = NSIntegerMax (nil in Swift)
        let before = dateComponents.weekday
        log("\(before.map(String.init) ?? "nil")")
        // 根据calendar计算出当天是周几
        let gregorianCalendar = Calendar(identifier: .gregorian)
        let date = gregorianCalendar.date(from: dateComponents)!
        let weekday = gregorianCalendar.component(.weekday, from: date)
        log("\(weekday)")

        dateComponents.weekday = weekday
        log("\(dateComponents)")
        return (before, weekday, dateComponents)
    }

    /// 2.1: "圆形区域,进入时候进行通知".
    static func enteringHeadquarters() -> UNLocationNotificationTrigger {
        let center = CLLocationCoordinate2DMake(37.335400, -122.009201)
        let region = CLCircularRegion(center: center, radius: 2000.0, identifier: "Headquarters")
        region.notifyOnEntry = true
        region.notifyOnExit = false
        let trigger = UNLocationNotificationTrigger(region: region, repeats: false)
        return trigger
    }

    // MARK: 2.2.2 Content

    /// 2.2.2: the content with an attachment from the app's bundle. The listing passes `error:nil` and puts the
    /// result in an array, which crashes when the file is missing; here a missing or invalid file leaves the
    /// attachments empty.
    static func makeHelloContent(
        attachmentURL url: URL? = Bundle.main.url(forResource: "xiongben", withExtension: "gif")
    ) -> UNMutableNotificationContent {
        let content = UNMutableNotificationContent()
        content.title = NSString.localizedUserNotificationString(forKey: "Hello 5 seconds!", arguments: nil)
        content.body = NSString.localizedUserNotificationString(forKey: "Hello_message_body", arguments: nil)
        content.subtitle = NSString.localizedUserNotificationString(forKey: "good day", arguments: nil)
        content.sound = .default

        // let url = Bundle.main.url(forResource: "image_1", withExtension: "jpeg")
        if let url, let attch = try? UNNotificationAttachment(identifier: "photo", url: url, options: nil) {
            content.attachments = [attch]
        }

        //......
        return content
    }

    /// The app side of 2.3.1 and 2.4.1.
    final class HelloApp: Sendable {
        private let center: UNUserNotificationCenter
        private let log: @Sendable (String) -> Void

        init(center: UNUserNotificationCenter = .current(), log: @escaping @Sendable (String) -> Void = { print($0) }) {
            self.center = center
            self.log = log
        }

        // MARK: 2.3.1 Actions

        /// 2.3.1. `minimalActions:` was removed before iOS 10 shipped; the category takes the actions alone.
        func registerCategories() {
            let enterAction = UNNotificationAction(identifier: "enterApp", title: "进入应用", options: .foreground)
            let ingnoreAction = UNNotificationAction(identifier: "ignore", title: "忽略", options: .destructive)
            let category = UNNotificationCategory(
                identifier: "helloIdentifier", actions: [enterAction, ingnoreAction], intentIdentifiers: [], options: [])
            center.setNotificationCategories([category])
        }

        // MARK: 2.4.1 Authorization and registration

        /// 2.4.1, "authorization".
        func requestAuthorization() {
            center.requestAuthorization(options: [.alert, .sound]) { granted, error in
                if granted {
                    self.log("授权成功")
                }
            }
        }

        /// 2.4.1, "regitser".
        func scheduleHello() {
            let content = UNMutableNotificationContent()
            content.title = NSString.localizedUserNotificationString(forKey: "Hello 5 seconds!", arguments: nil)
            content.body = NSString.localizedUserNotificationString(forKey: "Hello_message_body", arguments: nil)
            content.subtitle = NSString.localizedUserNotificationString(forKey: "good day", arguments: nil)
            content.sound = .default

            // Deliver the notification in ten seconds.
            let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 10, repeats: false)
            let request = UNNotificationRequest(identifier: "FiveSecond", content: content, trigger: trigger)

            // Schedule the notification.
            center.add(request) { error in
                if let error {
                    self.log("\(error)")
                }
            }
        }
    }

    // MARK: 4.3 The notification service extension

    /// 4.3, "主要处理函数": the extension's main function, changing nothing yet.
    final class PlainNotificationService: UNNotificationServiceExtension {
        var contentHandler: ((UNNotificationContent) -> Void)?
        var bestAttemptContent: UNMutableNotificationContent?

        override func didReceive(
            _ request: UNNotificationRequest,
            withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
        ) {
            self.contentHandler = contentHandler
            self.bestAttemptContent = request.content.mutableCopy() as? UNMutableNotificationContent
            // Modify the notification content here...
            if let bestAttemptContent {
                self.contentHandler?(bestAttemptContent)
            }
        }
    }

    /// 4.3.2: marks the title as modified and attaches the image named by `aps.image`, downloaded into the
    /// documents folder as `MyImage.png`. The seed's `getImageFromURL:` and `saveImage:withFileName:ofType:
    /// inDirectory:` (UIImage helpers it does not show) become `Data` reads and writes.
    final class NotificationService: UNNotificationServiceExtension {
        var contentHandler: ((UNNotificationContent) -> Void)?
        var bestAttemptContent: UNMutableNotificationContent?
        private let documentsDirectoryPath: String
        private let log: (String) -> Void

        init(documentsDirectoryPath: String, log: @escaping (String) -> Void = { print($0) }) {
            self.documentsDirectoryPath = documentsDirectoryPath
            self.log = log
            super.init()
        }

        /// The initializer the system uses: the app's documents folder ("获取document目录").
        override convenience init() {
            let paths = NSSearchPathForDirectoriesInDomains(.documentDirectory, .userDomainMask, true)
            self.init(documentsDirectoryPath: paths[0])
        }

        override func didReceive(
            _ request: UNNotificationRequest,
            withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
        ) {
            self.contentHandler = contentHandler
            self.bestAttemptContent = request.content.mutableCopy() as? UNMutableNotificationContent
            guard let bestAttemptContent else { return contentHandler(request.content) }
            bestAttemptContent.title = "\(bestAttemptContent.title) [modified]"

            let apsDic = request.content.userInfo["aps"] as? [AnyHashable: Any]
            let attachUrl = apsDic?["image"] as? String
            log("\(attachUrl ?? "nil")")

            // 下载图片,放到本地
            let imageFromURL = attachUrl.flatMap(getImage(fromURL:))

            // 获取document目录
            log("document path: \(documentsDirectoryPath)")

            let localPath = imageFromURL.flatMap {
                saveImage($0, withFileName: "MyImage", ofType: "png", inDirectory: documentsDirectoryPath)
            }
            if let localPath, !localPath.isEmpty {
                if let attch = try? UNNotificationAttachment(
                    identifier: "photo", url: URL(fileURLWithPath: localPath), options: nil)
                {
                    bestAttemptContent.attachments = [attch]
                }
            }

            self.contentHandler?(bestAttemptContent)
        }

        /// Called just before the extension's time runs out: deliver the best attempt (Xcode's template, which
        /// the seed's listing abbreviates).
        override func serviceExtensionTimeWillExpire() {
            if let contentHandler, let bestAttemptContent {
                contentHandler(bestAttemptContent)
            }
        }

        /// The seed's `getImageFromURL:`: the image's bytes.
        private func getImage(fromURL string: String) -> Data? {
            guard let url = URL(string: string) else { return nil }
            return try? Data(contentsOf: url)
        }

        /// The seed's `saveImage:withFileName:ofType:inDirectory:`: the path written, or `nil`.
        private func saveImage(_ image: Data, withFileName fileName: String, ofType type: String, inDirectory directory: String)
            -> String?
        {
            let path = (directory as NSString).appendingPathComponent("\(fileName).\(type)")
            return FileManager.default.createFile(atPath: path, contents: image) ? path : nil
        }
    }
}

// MARK: - Tests

import OpenUserNotificationsTesting
import Testing

@Suite("Seed 001: the iOS 10 UserNotifications overview", .timeLimit(.minutes(1)))
struct Seed001UserNotificationsOverviewTests {
    let app = "com.example.hello"
    let system: NotificationTestSystem
    let log = PrintLog()

    init() throws {
        system = try NotificationTestSystem()
    }

    private func content(_ title: String) -> UNMutableNotificationContent {
        let content = UNMutableNotificationContent()
        content.title = title
        return content
    }

    @Test("2.1: the time-interval trigger fires two minutes after it is added, once")
    func twoMinutes() async throws {
        let center = try await system.center(for: app)
        let trigger = Seed001.twoMinutesLater()
        try await center.add(UNNotificationRequest(identifier: "two", content: content("Two minutes"), trigger: trigger))

        let pending = try #require(await center.pendingNotificationRequests().first?.trigger as? UNTimeIntervalNotificationTrigger)
        #expect(pending.timeInterval == 120)
        #expect(!pending.repeats)
        #expect(pending.nextTriggerDate() == testSystemStart.addingTimeInterval(120))

        #expect(await system.advance(by: 119) == 0)
        #expect(await system.advance(by: 1) == 1)
        #expect(await system.advance(by: 3600) == 0)
        #expect(await center.pendingNotificationRequests().isEmpty)
    }

    @Test("2.1: the calendar trigger with weekday 1 and hour 8 fires every Sunday at 8:00")
    func everySunday() async throws {
        let center = try await system.center(for: app)
        let trigger = Seed001.everySundayAtEight()
        #expect(trigger.dateComponents == DateComponents(hour: 8, weekday: 1))
        #expect(trigger.repeats)
        try await center.add(UNNotificationRequest(identifier: "sunday", content: content("Sunday"), trigger: trigger))

        // The test system starts on Monday 2026-01-05 at 9:00 UTC.
        func nextDate() async throws -> Date? {
            let pending = await center.pendingNotificationRequests()
            #expect(pending.map(\.identifier) == ["sunday"])
            return try #require(pending.first?.trigger as? UNCalendarNotificationTrigger).nextTriggerDate()
        }
        #expect(try await nextDate() == utcDate(2026, 1, 11, 8))

        #expect(await system.advance(by: 6 * 24 * 3600 - 3600 - 1) == 0)
        #expect(await system.advance(by: 1) == 1)
        #expect(system.presenter.presentations.map(\.date) == [utcDate(2026, 1, 11, 8)])
        #expect(try await nextDate() == utcDate(2026, 1, 18, 8))

        await system.advance(by: 14 * 24 * 3600)
        #expect(system.presenter.presentations.map(\.date) == [11, 18, 25].map { utcDate(2026, 1, $0, 8) })
        #expect(try await nextDate() == utcDate(2026, 2, 1, 8))
    }

    @Test("2.1: date components have no weekday until a calendar works it out (11 July 2016 was a Monday)")
    func weekdayNote() {
        let result = Seed001.weekdayOfJuly11th2016(log: log.record)
        #expect(result.before == nil)
        #expect(result.after == 2)
        #expect(result.components.weekday == 2)
        #expect(log.lines.prefix(2) == ["nil", "2"])
    }

    @Test("2.1: the location trigger keeps its region and stays pending without a location source")
    func headquarters() async throws {
        let center = try await system.center(for: app)
        let trigger = Seed001.enteringHeadquarters()
        try await center.add(UNNotificationRequest(identifier: "hq", content: content("Welcome"), trigger: trigger))

        let pending = try #require(await center.pendingNotificationRequests().first?.trigger as? UNLocationNotificationTrigger)
        let region = try #require(pending.region as? CLCircularRegion)
        #expect(region.identifier == "Headquarters")
        #expect(region.center.latitude == 37.335400)
        #expect(region.center.longitude == -122.009201)
        #expect(region.radius == 2000)
        #expect(region.notifyOnEntry)
        #expect(!region.notifyOnExit)
        #expect(!pending.repeats)

        #expect(await system.advance(by: 24 * 3600) == 0)
        #expect(await center.pendingNotificationRequests().count == 1)
    }

    @Test("2.2.2: the content carries title, subtitle, body, sound and the GIF attachment")
    func helloContent() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let gif = folder.appendingPathComponent("xiongben.gif")
        try Data("GIF89a".utf8).write(to: gif)

        let content = Seed001.makeHelloContent(attachmentURL: gif)
        #expect(content.title == "Hello 5 seconds!")
        #expect(content.body == "Hello_message_body")
        #expect(content.subtitle == "good day")
        #expect(content.sound == .default)
        let attachment = try #require(content.attachments.first)
        #expect(content.attachments.count == 1)
        #expect(attachment.identifier == "photo")
        #expect(attachment.type == "com.compuserve.gif")
        #expect(attachment.url == gif)

        // The test bundle has no xiongben.gif: no attachment, and no crash.
        #expect(Seed001.makeHelloContent().attachments.isEmpty)
        #expect(Seed001.makeHelloContent(attachmentURL: folder.appendingPathComponent("missing.gif")).attachments.isEmpty)
    }

    @Test("2.3.1: the helloIdentifier category offers its two actions on the notification")
    func categories() async throws {
        let center = try await system.center(for: app)
        Seed001.HelloApp(center: center, log: log.record).registerCategories()

        let categories = await center.notificationCategories()
        let category = try #require(categories.first)
        #expect(categories.count == 1)
        #expect(category.identifier == "helloIdentifier")
        #expect(category.actions.map(\.identifier) == ["enterApp", "ignore"])
        #expect(category.actions.map(\.options) == [.foreground, .destructive])
        #expect(category.options == [])

        let hello = content("Hello")
        hello.categoryIdentifier = "helloIdentifier"
        try await center.add(UNNotificationRequest(identifier: "hello", content: hello, trigger: nil))
        await system.advance(by: 0)
        #expect(system.presenter.presentations.map(\.actionTitles) == [["进入应用", "忽略"]])
    }

    @Test("2.4.1: authorization for alert and sound, then FiveSecond is delivered ten seconds later")
    func authorizeAndSchedule() async throws {
        let center = try await system.center(for: app, authorize: false)
        #expect(await center.notificationSettings().authorizationStatus == .notDetermined)
        let hello = Seed001.HelloApp(center: center, log: log.record)

        hello.requestAuthorization()
        await log.wait(for: "授权成功")
        let settings = await center.notificationSettings()
        #expect(settings.authorizationStatus == .authorized)
        #expect(settings.alertSetting == .enabled)
        #expect(settings.soundSetting == .enabled)
        #expect(settings.badgeSetting == .disabled)

        hello.scheduleHello()
        await system.settle(center)
        #expect(await center.pendingNotificationRequests().map(\.identifier) == ["FiveSecond"])
        #expect(await system.advance(by: 9) == 0)
        #expect(await system.advance(by: 1) == 1)

        let shown = try #require(system.presenter.presentations.first)
        #expect(shown.title == "Hello 5 seconds!")
        #expect(shown.body == "Hello_message_body")
        #expect(shown.options == [.banner, .list, .sound])  // no badge: it was not asked for
        let delivered = try #require(await center.deliveredNotifications().first)
        #expect(delivered.request.content.subtitle == "good day")
        #expect(delivered.request.content.sound == .default)
        #expect(log.lines == ["授权成功"])
    }

    /// The remote notification of 4.3.1, as its content reaches the extension: the alert's fields in the
    /// content, the whole payload in `userInfo`.
    private func remoteRequest(image: String) throws -> UNNotificationRequest {
        let json = """
            {
            "aps":
                {
                    "alert":
                    {
                        "title":"hello",
                        "subtitle" : "Session 01",
                        "body":"it is a beautiful day"
                    },
                    "category":"helloIdentifier",
                    "badge":1,
                    "mutable-content":1,
                    "sound":"default",
                    "image":"https://picjumbo.imgix.net/HNCK8461.jpg?q=40&w=200&sharp=30"
                }
            }
            """
        var payload = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        var aps = try #require(payload["aps"] as? [String: Any])
        aps["image"] = image  // no network in tests
        payload["aps"] = aps

        let content = UNMutableNotificationContent()
        content.title = "hello"
        content.subtitle = "Session 01"
        content.body = "it is a beautiful day"
        content.categoryIdentifier = "helloIdentifier"
        content.badge = 1
        content.sound = .default
        content.userInfo = payload
        return UNNotificationRequest(identifier: "remote", content: content, trigger: nil)
    }

    @Test("4.3: the extension's mutable copy is handed back unchanged, and the original is untouched")
    func plainServiceExtension() throws {
        let request = try remoteRequest(image: "")
        let service = Seed001.PlainNotificationService()
        var handed: [UNNotificationContent] = []
        service.didReceive(request) { handed.append($0) }

        let content = try #require(handed.first)
        #expect(handed.count == 1)
        #expect(content is UNMutableNotificationContent)
        #expect(content !== request.content)
        #expect(content == request.content)
        #expect(service.bestAttemptContent === content)
    }

    @Test("4.3.2: the extension marks the title and attaches the downloaded image")
    func serviceExtensionAttachesImage() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let documents = folder.appendingPathComponent("Documents")
        try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
        let served = folder.appendingPathComponent("HNCK8461.png")  // stands in for the image on the server
        // A complete 1×1 PNG: attachments are checked for corrupt images at `add`, as Apple does.
        let onePixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
        try #require(Data(base64Encoded: onePixel)).write(to: served)

        let request = try remoteRequest(image: served.absoluteString)
        let service = Seed001.NotificationService(documentsDirectoryPath: documents.path, log: log.record)
        var handed: [UNNotificationContent] = []
        service.didReceive(request) { handed.append($0) }

        let content = try #require(handed.first)
        #expect(handed.count == 1)
        #expect(content.title == "hello [modified]")
        #expect(content.subtitle == "Session 01")
        #expect(content.body == "it is a beautiful day")
        #expect(request.content.title == "hello")
        let attachment = try #require(content.attachments.first)
        #expect(attachment.identifier == "photo")
        #expect(attachment.type == "public.png")
        #expect(attachment.url.lastPathComponent == "MyImage.png")
        #expect(FileManager.default.contents(atPath: documents.appendingPathComponent("MyImage.png").path) == (try Data(contentsOf: served)))
        #expect(log.lines.first == served.absoluteString)

        // The modified content is what the person sees, with the category's actions.
        let center = try await system.center(for: app)
        Seed001.HelloApp(center: center, log: log.record).registerCategories()
        try await center.add(UNNotificationRequest(identifier: request.identifier, content: content, trigger: nil))
        await system.advance(by: 0)
        let shown = try #require(system.presenter.presentations.first)
        #expect(shown.title == "hello [modified]")
        #expect(shown.actionTitles == ["进入应用", "忽略"])
        let delivered = try #require(await center.deliveredNotifications().first?.request.content)
        #expect(delivered.attachments.map(\.identifier) == ["photo"])
        let aps = try #require(delivered.userInfo["aps"] as? [AnyHashable: Any])
        #expect(aps["mutable-content"] as? Int == 1)
        #expect(aps["category"] as? String == "helloIdentifier")
    }

    @Test("4.3.2: when the image cannot be fetched the title is still marked and nothing is attached")
    func serviceExtensionWithoutImage() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let request = try remoteRequest(image: folder.appendingPathComponent("gone.png").absoluteString)
        let service = Seed001.NotificationService(documentsDirectoryPath: folder.path, log: log.record)
        var handed: [UNNotificationContent] = []
        service.didReceive(request) { handed.append($0) }

        #expect(handed.map(\.title) == ["hello [modified]"])
        #expect(handed.first?.attachments.isEmpty == true)

        // At the deadline the extension hands over its best attempt again.
        service.serviceExtensionTimeWillExpire()
        #expect(handed.map(\.title) == ["hello [modified]", "hello [modified]"])
    }
}
