import Foundation
import NotificationModel
import OpenUserNotifications
import Testing

/// Archives `object` as an app does, requiring secure coding, and unarchives it by its class.
private func roundTrip<Object: NSObject & NSSecureCoding>(_ object: Object) throws -> Object {
    let data = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
    return try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: Object.self, from: data))
}

/// Content with every property set to something other than its default.
private func fullContent(attachment: UNNotificationAttachment) throws -> UNNotificationContent {
    let content = UNMutableNotificationContent()
    content.title = "Ana"
    content.subtitle = "Climbing crew"
    content.body = "See you at 8 — 100%%"
    content.badge = 7
    content.sound = .criticalSoundNamed(UNNotificationSoundName("chime.wav"), withAudioVolume: 0.5)
    content.launchImageName = "Launch"
    content.userInfo = ["conversation": "c-42", "count": 3, "nested": ["a": [1, 2.5, true]], "when": Date(timeIntervalSince1970: 1_700_000_000)]
    content.attachments = [attachment]
    content.categoryIdentifier = "message"
    content.threadIdentifier = "c-42"
    content.targetContentIdentifier = "window-2"
    content.interruptionLevel = .timeSensitive
    content.relevanceScore = 0.75
    content.filterCriteria = "work"
    let context = UNNotificationAttributedMessageContext(
        communication: {
            CommunicationSpec(
                senderName: "Ana", senderHandle: "ana@example.com", senderImageData: Data([1, 2, 3]),
                conversationIdentifier: "c-42", groupName: "Climbing crew")
        }, attributedContent: NSAttributedString(string: "See you at 8 — 100%%"))
    return try content.updating(from: context)
}

/// Every public property of two contents, compared one by one.
private func expectSameContent(_ a: UNNotificationContent, _ b: UNNotificationContent) throws {
    #expect(a.title == b.title)
    #expect(a.subtitle == b.subtitle)
    #expect(a.body == b.body)
    #expect(a.badge == b.badge)
    #expect(a.sound == b.sound)
    #expect(a.launchImageName == b.launchImageName)
    // userInfo compared value by value, types included (a Date stays a Date, 2.5 a Double, true a Bool).
    #expect(try PropertyListValue.convert(dictionary: a.userInfo, path: "") == PropertyListValue.convert(dictionary: b.userInfo, path: ""))
    #expect((a.userInfo["when"] as? Date) == (b.userInfo["when"] as? Date))
    #expect(a.attachments.map(\.identifier) == b.attachments.map(\.identifier))
    #expect(a.attachments.map(\.url) == b.attachments.map(\.url))
    #expect(a.attachments.map(\.type) == b.attachments.map(\.type))
    #expect(a.attachments == b.attachments)
    #expect(a.categoryIdentifier == b.categoryIdentifier)
    #expect(a.threadIdentifier == b.threadIdentifier)
    #expect(a.targetContentIdentifier == b.targetContentIdentifier)
    #expect(a.interruptionLevel == b.interruptionLevel)
    #expect(a.relevanceScore == b.relevanceScore)
    #expect(a.filterCriteria == b.filterCriteria)
    #expect(a.communication == b.communication)
    #expect(a.isEqual(b))
}

@Suite("Secure coding: NSKeyedArchiver round trips of every UN class")
struct SecureCodingTests {
    let folder: URL
    let attachment: UNNotificationAttachment

    init() throws {
        folder = try AttachmentWorld.folder()
        let file = try AttachmentWorld.write(AttachmentWorld.png, "photo.png", in: folder)
        attachment = try UNNotificationAttachment(
            identifier: "photo", url: file,
            options: [UNNotificationAttachmentOptionsThumbnailHiddenKey: true, UNNotificationAttachmentOptionsThumbnailTimeKey: 2])
    }

    @Test("content, immutable and mutable, with every property set")
    func content() throws {
        let content = try fullContent(attachment: attachment)
        #expect(content.communication?.senderName == "Ana")
        try expectSameContent(try roundTrip(content), content)
        let mutable = content.mutableCopy() as! UNMutableNotificationContent
        let decoded = try roundTrip(mutable)
        #expect(type(of: decoded) == UNMutableNotificationContent.self)
        try expectSameContent(decoded, mutable)
        try expectSameContent(try roundTrip(UNNotificationContent()), UNNotificationContent())
    }

    @Test("content whose userInfo is not a property list does not archive")
    func notAPropertyList() throws {
        let content = UNMutableNotificationContent()
        content.userInfo = ["object": NSObject()]
        let data = try NSKeyedArchiver.archivedData(withRootObject: content, requiringSecureCoding: true)
        #expect((try? NSKeyedUnarchiver.unarchivedObject(ofClass: UNNotificationContent.self, from: data)) == nil)
    }

    static let triggers: [UNNotificationTrigger] = {
        var components = DateComponents()
        components.weekday = 1
        components.hour = 8
        components.timeZone = TimeZone(identifier: "Europe/Paris")
        let region = CLCircularRegion(
            center: CLLocationCoordinate2D(latitude: 48.85, longitude: 2.35), radius: 250, identifier: "paris")
        region.notifyOnExit = false
        return [
            UNTimeIntervalNotificationTrigger(timeInterval: 90, repeats: true),
            UNCalendarNotificationTrigger(dateMatching: components, repeats: true),
            UNCalendarNotificationTrigger(dateMatching: components, repeats: false, matching: .strict),
            UNLocationNotificationTrigger(region: region, repeats: false),
            UNNotificationTrigger.make(.push),
            UNNotificationTrigger.make(.timeInterval(60, repeats: false), plannedFireDate: Date(timeIntervalSince1970: 1_800_000_000)),
        ]
    }()

    @Test("every trigger class", arguments: triggers)
    func trigger(_ trigger: UNNotificationTrigger) throws {
        let decoded = try roundTrip(trigger)
        #expect(type(of: decoded) == type(of: trigger))
        #expect(decoded == trigger)
        #expect(decoded.repeats == trigger.repeats)
        switch (decoded, trigger) {
        case let (decoded as UNTimeIntervalNotificationTrigger, trigger as UNTimeIntervalNotificationTrigger):
            #expect(decoded.timeInterval == trigger.timeInterval)
            // A pending request's trigger keeps its planned fire date; a new one computes from now.
            let planned = Date(timeIntervalSince1970: 1_800_000_000)
            #expect((decoded.nextTriggerDate() == planned) == (trigger.nextTriggerDate() == planned))
        case let (decoded as UNCalendarNotificationTrigger, trigger as UNCalendarNotificationTrigger):
            #expect(decoded.dateComponents == trigger.dateComponents)
            #expect(decoded.matching == trigger.matching)
        case let (decoded as UNLocationNotificationTrigger, trigger as UNLocationNotificationTrigger):
            let (a, b) = (try #require(decoded.region as? CLCircularRegion), try #require(trigger.region as? CLCircularRegion))
            #expect(a.identifier == b.identifier && a.center == b.center && a.radius == b.radius)
            #expect(a.notifyOnEntry == b.notifyOnEntry && a.notifyOnExit == b.notifyOnExit)
        case (is UNPushNotificationTrigger, is UNPushNotificationTrigger):
            break
        default:
            Issue.record("\(type(of: decoded)) for \(type(of: trigger))")
        }
    }

    @Test("a request with its content, trigger and missed-fire policy")
    func request() throws {
        let request = UNNotificationRequest(
            identifier: "standup", content: try fullContent(attachment: attachment), trigger: Self.triggers[1])
        request.missedFirePolicy = .deliverIfWithin(900)
        let decoded = try roundTrip(request)
        #expect(decoded.identifier == request.identifier)
        try expectSameContent(decoded.content, request.content)
        #expect(decoded.trigger == request.trigger)
        #expect(decoded.missedFirePolicy == request.missedFirePolicy)
        #expect(decoded == request)
        #expect(try roundTrip(UNNotificationRequest(identifier: "now", content: UNNotificationContent(), trigger: nil)).trigger == nil)
    }

    @Test("categories with plain and text-input actions and their icons")
    func category() throws {
        let reply = UNTextInputNotificationAction(
            identifier: "reply", title: "Reply", options: [.authenticationRequired],
            icon: UNNotificationActionIcon(systemImageName: "arrowshape.turn.up.left"), textInputButtonTitle: "Send",
            textInputPlaceholder: "Message")
        let delete = UNNotificationAction(
            identifier: "delete", title: "Delete", options: [.destructive, .foreground],
            icon: UNNotificationActionIcon(templateImageName: "trash"))
        let category = UNNotificationCategory(
            identifier: "message", actions: [reply, delete], intentIdentifiers: ["INSendMessageIntent"],
            hiddenPreviewsBodyPlaceholder: "%u new messages", categorySummaryFormat: "%u more from %@",
            options: [.customDismissAction, .hiddenPreviewsShowTitle])
        let decoded = try roundTrip(category)
        #expect(decoded.identifier == category.identifier)
        #expect(decoded.actions == category.actions)
        #expect(decoded.intentIdentifiers == category.intentIdentifiers)
        #expect(decoded.options == category.options)
        #expect(decoded.hiddenPreviewsBodyPlaceholder == category.hiddenPreviewsBodyPlaceholder)
        #expect(decoded.categorySummaryFormat == category.categorySummaryFormat)
        #expect(decoded == category)

        let decodedReply = try #require(try roundTrip(reply as UNNotificationAction) as? UNTextInputNotificationAction)
        #expect(decodedReply.identifier == "reply" && decodedReply.title == "Reply")
        #expect(decodedReply.options == reply.options && decodedReply.icon == reply.icon)
        #expect(decodedReply.textInputButtonTitle == "Send" && decodedReply.textInputPlaceholder == "Message")
        let decodedDelete = try roundTrip(delete)
        #expect(type(of: decodedDelete) == UNNotificationAction.self)
        #expect(decodedDelete.identifier == "delete" && decodedDelete.title == "Delete")
        #expect(decodedDelete.options == delete.options && decodedDelete.icon == delete.icon)
        #expect(try roundTrip(try #require(delete.icon)) == delete.icon)
    }

    @Test("sounds of every kind", arguments: [
        UNNotificationSound.default, .defaultCritical, .defaultRingtone, .defaultCriticalSound(withAudioVolume: 0.25),
        UNNotificationSound(named: UNNotificationSoundName("chime.wav")), .ringtoneSoundNamed(UNNotificationSoundName("ring.caf")),
    ])
    func sound(_ sound: UNNotificationSound) throws {
        #expect(try roundTrip(sound) == sound)
    }

    @Test("an attachment: identifier, URL, type and options")
    func attachmentRoundTrip() throws {
        let decoded = try roundTrip(attachment)
        #expect(decoded.identifier == attachment.identifier)
        #expect(decoded.url == attachment.url)
        #expect(decoded.type == attachment.type)
        #expect(decoded.spec.options == attachment.spec.options)
        #expect(decoded == attachment)
    }

    @Test("a notification and its responses, plain and text input")
    func notificationAndResponses() throws {
        let request = UNNotificationRequest(
            identifier: "m1", content: try fullContent(attachment: attachment), trigger: UNNotificationTrigger.make(.push))
        let notification = UNNotification(date: Date(timeIntervalSince1970: 1_750_000_000.5), request: request)
        let decoded = try roundTrip(notification)
        #expect(decoded.date == notification.date)
        #expect(decoded.request == notification.request)
        try expectSameContent(decoded.request.content, request.content)
        #expect(decoded == notification)

        let response = UNNotificationResponse(notification: notification, actionIdentifier: UNNotificationDefaultActionIdentifier)
        let decodedResponse = try roundTrip(response)
        #expect(type(of: decodedResponse) == UNNotificationResponse.self)
        #expect(decodedResponse.actionIdentifier == response.actionIdentifier)
        #expect(decodedResponse.notification == notification)
        #expect(decodedResponse == response)

        let text = UNTextInputNotificationResponse(notification: notification, actionIdentifier: "reply", userText: "On my way")
        let decodedText = try #require(try roundTrip(text as UNNotificationResponse) as? UNTextInputNotificationResponse)
        #expect(decodedText.actionIdentifier == "reply" && decodedText.userText == "On my way")
        #expect(decodedText.notification == notification)
        #expect(decodedText == text)
    }

    @Test("settings: every value")
    func settings() throws {
        let settings = UNNotificationSettings(
            authorizationStatus: .provisional, soundSetting: .disabled, badgeSetting: .enabled, alertSetting: .enabled,
            notificationCenterSetting: .disabled, lockScreenSetting: .notSupported, carPlaySetting: .notSupported,
            alertStyle: .alert, showPreviewsSetting: .whenAuthenticated, criticalAlertSetting: .disabled,
            providesAppNotificationSettings: true, announcementSetting: .notSupported, timeSensitiveSetting: .enabled,
            scheduledDeliverySetting: .enabled, directMessagesSetting: .enabled)
        let decoded = try roundTrip(settings)
        #expect(decoded.authorizationStatus == settings.authorizationStatus)
        #expect(decoded.soundSetting == settings.soundSetting)
        #expect(decoded.badgeSetting == settings.badgeSetting)
        #expect(decoded.alertSetting == settings.alertSetting)
        #expect(decoded.notificationCenterSetting == settings.notificationCenterSetting)
        #expect(decoded.lockScreenSetting == settings.lockScreenSetting)
        #expect(decoded.carPlaySetting == settings.carPlaySetting)
        #expect(decoded.alertStyle == settings.alertStyle)
        #expect(decoded.showPreviewsSetting == settings.showPreviewsSetting)
        #expect(decoded.criticalAlertSetting == settings.criticalAlertSetting)
        #expect(decoded.providesAppNotificationSettings == settings.providesAppNotificationSettings)
        #expect(decoded.announcementSetting == settings.announcementSetting)
        #expect(decoded.timeSensitiveSetting == settings.timeSensitiveSetting)
        #expect(decoded.scheduledDeliverySetting == settings.scheduledDeliverySetting)
        #expect(decoded.directMessagesSetting == settings.directMessagesSetting)
    }

    @Test("a graph: an array of requests archived as one root object")
    func graph() throws {
        let requests = [
            UNNotificationRequest(identifier: "a", content: try fullContent(attachment: attachment), trigger: Self.triggers[0]),
            UNNotificationRequest(identifier: "b", content: UNNotificationContent(), trigger: Self.triggers[3]),
        ]
        let data = try NSKeyedArchiver.archivedData(withRootObject: requests, requiringSecureCoding: true)
        let decoded = try #require(
            try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSArray.self, UNNotificationRequest.self], from: data)
                as? [UNNotificationRequest])
        #expect(decoded == requests)
    }
}
