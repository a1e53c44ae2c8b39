import Foundation
import NotificationModel
import OpenIntents
import OpenUserNotifications
import OpenUserNotificationsTesting
import Testing

/// A provider that is not one of the system's.
private final class HomemadeProvider: NSObject, UNNotificationContentProviding {}

private func message(sender: INPerson?, group: String? = nil) -> INSendMessageIntent {
    INSendMessageIntent(
        recipients: nil, outgoingMessageType: .outgoingMessageText, content: "See you at 8",
        speakableGroupName: group.map(INSpeakableString.init(spokenPhrase:)), conversationIdentifier: "chat-42",
        serviceName: nil, sender: sender, attachments: nil)
}

private let avatar = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/Images/avatar.png")

private func ana() throws -> INPerson {
    INPerson(
        personHandle: INPersonHandle(value: "ana@example.com", type: .emailAddress), nameComponents: nil,
        displayName: "Ana Lima", image: INImage(imageData: try Data(contentsOf: avatar)), contactIdentifier: nil,
        customIdentifier: "u-17")
}

@Suite("Communication notifications: updating(from:) with INSendMessageIntent")
struct CommunicationNotificationTests {
    @Test("the sender, handle, image, conversation and group go into the content; the rest is kept")
    func updating() throws {
        let content = UNMutableNotificationContent()
        content.title = "New message"
        content.body = "See you at 8"
        content.threadIdentifier = "chat-42"
        content.userInfo = ["id": 1]
        let updated = try content.updating(from: message(sender: try ana(), group: "Climbing crew"))
        #expect(type(of: updated) == UNNotificationContent.self)
        let communication = try #require(updated.communication)
        #expect(communication.senderName == "Ana Lima" && communication.senderHandle == "ana@example.com")
        #expect(communication.senderImageData == (try Data(contentsOf: avatar)))
        #expect(communication.conversationIdentifier == "chat-42" && communication.groupName == "Climbing crew")
        #expect(updated.title == "New message" && updated.body == "See you at 8" && updated.threadIdentifier == "chat-42")
        #expect(updated.userInfo["id"] as? Int == 1)
        #expect(content.communication == nil)  // the receiver is unchanged
    }

    @Test("a group's picture set on the intent is the key image")
    func groupImage() throws {
        let intent = message(sender: try ana(), group: "Climbing crew")
        let picture = INImage(url: URL(fileURLWithPath: "/tmp/crew.png"))
        intent.setImage(picture, forParameterNamed: \.speakableGroupName)
        #expect(intent.keyImage() === picture)
        let updated = try UNNotificationContent().updating(from: intent)
        #expect(updated.communication?.senderImageURL?.path == "/tmp/crew.png")
    }

    @Test("errors as Apple's: a provider of one's own is not allowed, a message without a sender is invalid")
    func errors() throws {
        let homemade = #expect(throws: UNError.self) { try UNNotificationContent().updating(from: HomemadeProvider()) }
        #expect(homemade?.code == .contentProvidingObjectNotAllowed && homemade?.errorCode == 1500)
        let senderless = #expect(throws: UNError.self) { try UNNotificationContent().updating(from: message(sender: nil)) }
        #expect(senderless?.code == .contentProvidingInvalid && senderless?.errorCode == 1501)
        let nameless = INPerson(
            personHandle: INPersonHandle(value: nil, type: .unknown), nameComponents: nil, displayName: nil, image: nil,
            contactIdentifier: nil, customIdentifier: nil)
        let unnamed = #expect(throws: UNError.self) { try UNNotificationContent().updating(from: message(sender: nameless)) }
        #expect(unnamed?.code == .contentProvidingInvalid)
    }

    @Test("a name from name components when no display name is given")
    func nameComponents() throws {
        var name = PersonNameComponents()
        name.givenName = "Ana"
        name.familyName = "Lima"
        let person = INPerson(
            personHandle: INPersonHandle(value: "u-17", type: .unknown), nameComponents: name, displayName: nil,
            image: nil, contactIdentifier: nil, customIdentifier: nil)
        #expect(person.displayName == "Ana Lima")
    }

    @Test("UNNotificationAttributedMessageContext: the attributed text becomes the body")
    func attributedContext() throws {
        let context = UNNotificationAttributedMessageContext(
            sendMessageIntent: message(sender: try ana()), attributedContent: NSAttributedString(string: "**8 pm**, not 8 am"))
        let updated = try UNNotificationContent().updating(from: context)
        #expect(updated.body == "**8 pm**, not 8 am" && updated.communication?.senderName == "Ana Lima")
    }

    @Test("INInteraction.donate records and completes without an error")
    func donation() async throws {
        let interaction = INInteraction(intent: message(sender: try ana()), response: nil)
        interaction.direction = .incoming
        let completed = ErrorBox()
        interaction.donate { completed.error = $0; completed.called = true }
        #expect(completed.called && completed.error == nil)
        #expect(InteractionDonations.all.contains { $0 === interaction })
        try await interaction.donate()
    }

    @Test("an iOS messaging extension run by the engine on a push: delivered as a message from the sender", arguments: NotificationTestSystem.Mode.allCases)
    func extensionExecutable(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let app = "com.example.messenger"
        let remote = RemoteNotificationRegistration(center: try await system.center(for: app))
        try await remote.setServiceExtensionCommand([try RichNotificationTests.fixture("MessageServiceFixture")])
        let json = #"""
            {"aps":{"alert":{"title":"New message","body":"See you at 8"},"mutable-content":1,"thread-id":"chat-42"},
             "sender-name":"Ana Lima","sender-id":"u-17","sender-avatar":"\#(avatar.path)","conversation-id":"chat-42"}
            """#
        let push = RemoteNotification(payload: try APNsPayload.parse(Data(json.utf8)))
        #expect(try await system.scheduler.deliverPush(push, appID: app) == .modifying)
        await system.scheduler.waitForServiceExtensions()
        let delivered = try #require(try await system.scheduler.deliveredNotifications(appID: app).first)
        let communication = try #require(delivered.request.content.communication)
        #expect(communication.senderName == "Ana Lima" && communication.senderHandle == "u-17")
        #expect(communication.senderImageData == (try Data(contentsOf: avatar)))
        #expect(communication.conversationIdentifier == "chat-42")
        #expect(system.presenter.presentations.map(\.title) == ["New message"])
    }
}

private final class ErrorBox: @unchecked Sendable {  // written and read on one task
    var called = false
    var error: (any Error)?
}
