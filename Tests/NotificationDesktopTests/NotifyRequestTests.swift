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
        #expect(request.leftOut == ["the text field of action 'reply' (it answers with empty text)"])
        let plain = NotifyRequest(notification(), options: [.banner], category: category, server: Self.plain)
        #expect(plain.actions.isEmpty)
        #expect(plain.leftOut.count == 2)
    }

    @Test("urgency follows the interruption level", arguments: [(UInt(0), UInt8(0)), (1, 1), (2, 2), (3, 2)])
    func urgency(level: UInt, urgency: UInt8) {
        let request = NotifyRequest(notification(level: level), options: [.banner], category: nil, server: Self.dunst)
        #expect(request.hints["urgency"] == .byte(urgency))
    }

    static let soundServer = NotificationServerInfo(
        name: "notification-daemon", capabilities: ["actions", "body", "sound", "persistence"])

    @Test("a server that plays sounds gets sound-name or sound-file; others are told to keep quiet and we play")
    func sounds() {
        let withSound = NotifyRequest(
            notification(sound: SoundSpec(), thread: "team"), options: [.banner, .sound], category: nil,
            server: Self.soundServer)
        #expect(withSound.hints["sound-name"] == .string("message-new-instant"))
        #expect(!withSound.needsSoundPlayback)
        #expect(withSound.hints[NotifyRequest.threadHint] == .string("team"))
        #expect(withSound.hints[NotifyRequest.categoryHint] == .string("meeting"))
        let file = NotifyRequest(
            notification(sound: SoundSpec(name: "bell.caf")), options: [.banner, .sound], category: nil,
            server: Self.soundServer, soundFile: "/apps/bell.caf")
        #expect(file.hints["sound-file"] == .string("/apps/bell.caf"))
        #expect(file.hints["sound-name"] == nil)
        let silent = NotifyRequest(
            notification(sound: SoundSpec()), options: [.banner], category: nil, server: Self.soundServer)
        #expect(silent.hints["sound-name"] == nil)
        #expect(!silent.needsSoundPlayback)
        let dunst = NotifyRequest(
            notification(sound: SoundSpec(name: "bell.caf")), options: [.banner, .sound], category: nil,
            server: Self.dunst, soundFile: "/apps/bell.caf")
        #expect(dunst.hints["sound-name"] == nil && dunst.hints["sound-file"] == nil)
        #expect(dunst.hints["suppress-sound"] == .boolean(true))
        #expect(dunst.needsSoundPlayback)
    }

    @Test("KDE's inline reply carries the first text-input action, with its placeholder and button title")
    func inlineReply() {
        let plasma = NotificationServerInfo(name: "Plasma", capabilities: ["actions", "body", "inline-reply"])
        var category = category
        category.actions[1].textInput = ActionSpec.TextInput(buttonTitle: "Send", placeholder: "Your answer")
        let request = NotifyRequest(notification(), options: [.banner], category: category, server: plasma)
        #expect(request.actions == ["default", "Open", "snooze", "Snooze 5 min", "inline-reply", "Reply"])
        #expect(request.inlineReplyAction == "reply")
        #expect(request.hints["x-kde-reply-placeholder-text"] == .string("Your answer"))
        #expect(request.hints["x-kde-reply-submit-button-text"] == .string("Send"))
        #expect(request.leftOut.isEmpty)
    }

    @Test("the first image attachment becomes image-path; media attachments are logged")
    func images() {
        var delivered = notification()
        delivered.request.content.attachments = [
            AttachmentSpec(identifier: "clip", url: URL(fileURLWithPath: "/data/a.mp4"), type: "public.mpeg-4"),
            AttachmentSpec(identifier: "photo", url: URL(fileURLWithPath: "/data/b.png"), type: "public.png"),
        ]
        let request = NotifyRequest(delivered, options: [.banner], category: nil, server: Self.dunst)
        #expect(request.hints["image-path"] == nil)  // dunst lists no icon-static in this fixture
        let images = NotificationServerInfo(name: "dunst", capabilities: ["body", "icon-static"])
        let shown = NotifyRequest(delivered, options: [.banner], category: nil, server: images)
        #expect(shown.hints["image-path"] == .string("/data/b.png"))
        #expect(shown.leftOut.contains("1 audio or video attachment(s) (the desktop shows no media)"))
    }

    @Test("a message from a person: the sender (and group) as the summary, the sender's image as icon and image")
    func communication() {
        var delivered = notification()
        delivered.request.content.communication = CommunicationSpec(
            senderName: "Ana Lima", senderImageURL: URL(fileURLWithPath: "/data/ana.png"), groupName: "Climbing crew")
        let images = NotificationServerInfo(name: "dunst", capabilities: ["body", "icon-static"])
        let request = NotifyRequest(delivered, options: [.banner], category: nil, server: images)
        #expect(request.summary.hasPrefix("Ana Lima — Climbing crew"))
        #expect(request.appIcon == "/data/ana.png" && request.arguments(replacing: 0)[2] == .string("/data/ana.png"))
        #expect(request.hints["image-path"] == .string("/data/ana.png"))
        let fromBytes = NotifyRequest(
            delivered, options: [.banner], category: nil, server: images, senderImageFile: "/tmp/senders/1f.png")
        #expect(fromBytes.appIcon == "/tmp/senders/1f.png")
        delivered.request.content.attachments = [
            AttachmentSpec(identifier: "photo", url: URL(fileURLWithPath: "/data/b.png"), type: "public.png")
        ]
        let withPhoto = NotifyRequest(delivered, options: [.banner], category: nil, server: images)
        #expect(withPhoto.appIcon == "/data/ana.png" && withPhoto.hints["image-path"] == .string("/data/b.png"))
    }

    @Test("the arguments have Notify's signature and carry replaces_id")
    func arguments() {
        let request = NotifyRequest(notification(), options: [.banner], category: nil, server: Self.dunst)
        let arguments = request.arguments(replacing: 7)
        #expect(arguments.map(\.signature).joined() == "susssasa{sv}i")
        #expect(arguments[1] == .uint32(7))
    }
}
