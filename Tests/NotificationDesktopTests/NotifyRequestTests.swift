import DBusKit
import Foundation
import NotificationDesktop
import NotificationModel
import Testing

@Suite("Notify arguments")
struct NotifyRequestTests {
    static let dunst = NotificationServerInfo(
        name: "dunst", capabilities: ["actions", "body", "body-markup", "body-hyperlinks", "x-dunst-stack-tag"])
    static let plain = NotificationServerInfo(name: "plain", capabilities: ["body"])

    let category = CategorySpec(
        identifier: "meeting",
        actions: [
            ActionSpec(identifier: "snooze", title: "Snooze 5 min"),
            ActionSpec(
                identifier: "reply", title: "Reply",
                textInput: ActionSpec.TextInput(buttonTitle: "Send", placeholder: "")),
        ])

    func notification(
        title: String = "Meeting soon", subtitle: String = "", body: String = "Standup", level: UInt = 1,
        sound: SoundSpec? = nil, thread: String = ""
    ) -> DeliveredNotification {
        var content = NotificationPayload()
        content.title = title
        content.subtitle = subtitle
        content.body = body
        content.interruptionLevel = level
        content.sound = sound
        content.threadIdentifier = thread
        content.categoryIdentifier = "meeting"
        return DeliveredNotification(
            appID: "com.example.app", request: RequestSpec(identifier: "standup", content: content, trigger: nil),
            date: Date(timeIntervalSince1970: 0), dueDate: Date(timeIntervalSince1970: 0), presentation: [.banner])
    }

    @Test("title and subtitle make the summary; the body follows Apple's %% rule and is escaped for markup")
    func text() {
        let request = NotifyRequest(
            notification(title: "Meeting soon", subtitle: "Room 4", body: "Q&A <b>100%%</b>"), options: [.banner],
            category: nil, server: Self.dunst)
        #expect(request.appName == "com.example.app")
        #expect(request.summary == "Meeting soon — Room 4")
        #expect(request.body == "Q&amp;A &lt;b&gt;100%&lt;/b&gt;")
        let plain = NotifyRequest(
            notification(body: "Q&A 100%%"), options: [.banner], category: nil, server: Self.plain)
        #expect(plain.body == "Q&A 100%")
    }

    @Test("actions follow the default action, in order; a server without actions gets none and the rest is logged")
    func actions() {
        let request = NotifyRequest(notification(), options: [.banner], category: category, server: Self.dunst)
        #expect(request.actions == ["default", "Open", "snooze", "Snooze 5 min", "reply", "Reply"])
        #expect(request.leftOut == ["the text field of action 'reply'"])
        let plain = NotifyRequest(notification(), options: [.banner], category: category, server: Self.plain)
        #expect(plain.actions.isEmpty)
        #expect(plain.leftOut.count == 2)
    }

    @Test("urgency follows the interruption level", arguments: [(UInt(0), UInt8(0)), (1, 1), (2, 2), (3, 2)])
    func urgency(level: UInt, urgency: UInt8) {
        let request = NotifyRequest(notification(level: level), options: [.banner], category: nil, server: Self.dunst)
        #expect(request.hints["urgency"] == .byte(urgency))
    }

    @Test("the default sound is hinted only when the options contain sound; thread and category are hinted")
    func hints() {
        let withSound = NotifyRequest(
            notification(sound: SoundSpec(), thread: "team"), options: [.banner, .sound], category: nil,
            server: Self.dunst)
        #expect(withSound.hints["sound-name"] == .string("message-new-instant"))
        #expect(withSound.hints[NotifyRequest.threadHint] == .string("team"))
        #expect(withSound.hints[NotifyRequest.categoryHint] == .string("meeting"))
        let silent = NotifyRequest(
            notification(sound: SoundSpec()), options: [.banner], category: nil, server: Self.dunst)
        #expect(silent.hints["sound-name"] == nil)
        let named = NotifyRequest(
            notification(sound: SoundSpec(name: "bell.caf")), options: [.banner, .sound], category: nil,
            server: Self.dunst)
        #expect(named.hints["sound-name"] == nil)
        #expect(named.leftOut == ["the sound file 'bell.caf'"])
    }

    @Test("the arguments have Notify's signature and carry replaces_id")
    func arguments() {
        let request = NotifyRequest(notification(), options: [.banner], category: nil, server: Self.dunst)
        let arguments = request.arguments(replacing: 7)
        #expect(arguments.map(\.signature).joined() == "susssasa{sv}i")
        #expect(arguments[1] == .uint32(7))
    }
}
