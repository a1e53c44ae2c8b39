import DBusKit
import NotificationDelivery
import NotificationEngine
import NotificationModel

/// The arguments of one `org.freedesktop.Notifications.Notify` call for a delivered notification, and what had to
/// be left out for the server at hand.
///
/// A pure function of the notification, its options, its category and the server's capabilities, so the mapping
/// is tested without a server.
///
/// ```swift
/// let request = NotifyRequest(notification, options: [.banner, .sound], category: category, server: info)
/// connection.call(DBusMethodCall(..., member: "Notify", arguments: request.arguments(replacing: 0)))
/// ```
public struct NotifyRequest: Sendable, Hashable {
    /// The freedesktop action key of the default action (a click on the notification itself).
    public static let defaultActionKey = "default"
    /// The action key KDE Plasma's inline reply uses; the reply arrives in `NotificationReplied`.
    public static let inlineReplyActionKey = "inline-reply"
    /// The sound the server plays (if it plays sounds) for content with the default sound.
    public static let defaultSoundName = "message-new-instant"
    /// Hint keys of our own: the notification's thread and category identifiers, for server rules and scripts.
    public static let threadHint = "x-openusernotifications-thread"
    public static let categoryHint = "x-openusernotifications-category"

    /// `app_name`: the app's readable name (``AppAppearance/displayName``), else its identifier.
    public var appName: String
    /// `app_icon`: the sender's image in a communication notification, else the app's icon
    /// (``AppAppearance/icon``: a file path or an icon-theme name), else empty (the server's default).
    public var appIcon: String = ""
    /// `summary`: title and subtitle; in a communication notification the sender (and group) instead of the title.
    public var summary: String
    /// `body`: the body after Apple's `%%` rule, escaped when the server reads markup.
    public var body: String
    /// `actions`: key and title pairs, flattened; empty when the server shows no actions.
    public var actions: [String]
    /// `hints`.
    public var hints: [String: DBusValue]
    /// What the server could not show, for the log.
    public var leftOut: [String]
    /// The text-input action answered through the server's inline reply field, when it has one.
    public var inlineReplyAction: String?
    /// Whether the presenter must play the sound itself (the content has one, the options allow it, and the
    /// server plays none).
    public var needsSoundPlayback: Bool

    /// The `Notify` arguments: app name, `replaces_id`, icon, summary, body, actions, hints, and the
    /// server's default expiry.
    public func arguments(replacing replacedID: UInt32) -> [DBusValue] {
        [
            .string(appName), .uint32(replacedID), .string(appIcon), .string(summary), .string(body), .strings(actions),
            .variantDictionary(hints), .int32(-1),
        ]
    }

    /// Maps a notification for `server`.
    ///
    /// - Parameters:
    ///   - notification: The delivered notification.
    ///   - options: How to present it (sound is hinted only when present).
    ///   - category: Its category, whose actions become buttons in order, after the default action.
    ///   - server: What the server can do.
    ///   - soundFile: The named sound's file, found and validated by the caller; `nil` for the default sound
    ///     (also when a named sound was missing or invalid, as iOS does).
    ///   - senderImageFile: In a communication notification, a file holding the sender's image when it came as
    ///     bytes (the caller writes it); an image that came as a file URL is used as it is.
    public init(
        _ notification: DeliveredNotification, options: PresentationSet, category: CategorySpec?,
        server: NotificationServerInfo, soundFile: String? = nil, senderImageFile: String? = nil
    ) {
        let content = notification.request.content
        appName = content.appAppearance?.displayName ?? notification.appID
        appIcon = content.appAppearance?.icon ?? ""
        let title = content.communication?.displayTitle ?? content.title
        summary = [title, content.subtitle].filter { !$0.isEmpty }.joined(separator: " — ")
        let senderImage = senderImageFile ?? content.communication?.senderImageURL.flatMap { $0.isFileURL ? $0.path : nil }
        var leftOut: [String] = []
        var body = TerminalPresenter.displayBody(content.body)
        if !server.supportsBody, !body.isEmpty {
            leftOut.append("the body (no 'body' capability)")
            body = ""
        } else if server.supportsBodyMarkup {
            body = Self.escapingMarkup(body)
        }
        self.body = body
        var actions: [String] = []
        let categoryActions = category?.actions ?? []
        var inlineReplyAction: String?
        var replyHints: [String: DBusValue] = [:]
        if server.supportsActions {
            actions = [Self.defaultActionKey, "Open"]
            for action in categoryActions where action.identifier != Self.defaultActionKey {
                if let input = action.textInput, server.supportsInlineReply, inlineReplyAction == nil {
                    // KDE shows one reply field: the first text-input action gets it.
                    inlineReplyAction = action.identifier
                    actions += [Self.inlineReplyActionKey, action.title]
                    replyHints["x-kde-reply-placeholder-text"] = .string(input.placeholder)
                    if !input.buttonTitle.isEmpty {
                        replyHints["x-kde-reply-submit-button-text"] = .string(input.buttonTitle)
                    }
                    continue
                }
                actions += [action.identifier, action.title]
                if action.textInput != nil {
                    leftOut.append("the text field of action '\(action.identifier)' (it answers with empty text)")
                }
            }
        } else {
            leftOut.append("the default action (no 'actions' capability)")
            if !categoryActions.isEmpty {
                leftOut.append("actions " + categoryActions.map { "'\($0.identifier)'" }.joined(separator: ", "))
            }
        }
        self.actions = actions
        var hints: [String: DBusValue] = [
            "urgency": .byte(Self.urgency(forInterruptionLevel: content.interruptionLevel))
        ]
        if !content.threadIdentifier.isEmpty { hints[Self.threadHint] = .string(content.threadIdentifier) }
        if !content.categoryIdentifier.isEmpty { hints[Self.categoryHint] = .string(content.categoryIdentifier) }
        hints.merge(replyHints) { $1 }
        var needsSoundPlayback = false
        if options.contains(.sound), content.sound != nil {
            if server.supportsSound {
                if let soundFile {
                    hints["sound-file"] = .string(soundFile)
                } else {
                    hints["sound-name"] = .string(Self.defaultSoundName)
                }
            } else {
                // The presenter plays it; a server that would play a sound of its own for the category keeps quiet.
                needsSoundPlayback = true
                hints["suppress-sound"] = .boolean(true)
            }
        }
        // A message from a person: the sender's image in place of the app's icon, and as the image when no
        // attachment takes that place (servers such as dunst show the image hint before the icon).
        if let senderImage {
            appIcon = senderImage
            if server.supportsImages { hints["image-path"] = .string(senderImage) }
        }
        let images = content.attachments.filter { Self.imageTypes.contains($0.type) }
        if let image = images.first, server.supportsImages {
            hints["image-path"] = .string(image.url.path)
            if images.count > 1 { leftOut.append("\(images.count - 1) more image attachment(s) (one is shown)") }
        } else if !images.isEmpty {
            leftOut.append("\(images.count) image attachment(s) (no 'icon-static' or 'body-images' capability)")
        }
        let others = content.attachments.count - images.count
        if others > 0 { leftOut.append("\(others) audio or video attachment(s) (the desktop shows no media)") }
        self.hints = hints
        self.leftOut = leftOut
        self.inlineReplyAction = inlineReplyAction
        self.needsSoundPlayback = needsSoundPlayback
    }

    /// Attachment types shown as the notification's image.
    static let imageTypes: Set<String> = ["public.png", "public.jpeg", "com.compuserve.gif", "public.image"]

    /// The freedesktop urgency for `UNNotificationInterruptionLevel`'s raw value: passive is low (0), active is
    /// normal (1), time-sensitive and critical are critical (2).
    public static func urgency(forInterruptionLevel level: UInt) -> UInt8 {
        switch level {
        case 0: 0
        case 1: 1
        default: 2
        }
    }

    /// `text` with `&`, `<` and `>` replaced by entities, for servers that read the body as markup.
    public static func escapingMarkup(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            default: result.append(character)
            }
        }
        return result
    }
}
