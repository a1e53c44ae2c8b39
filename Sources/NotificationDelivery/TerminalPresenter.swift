import Foundation
import NotificationEngine
import NotificationModel

/// Shows notifications as readable banners in a terminal: the presenter for machines without a desktop.
///
/// ```
/// ┌─ com.example.nagme ─────────────────────────── 07:00:00
/// │ Water the plants
/// │ Balcony
/// │ The basil looks thirsty.
/// │ [Done] [Snooze 5 min]                     ♪ default · badge 3
/// └─ id: plants
/// ```
public struct TerminalPresenter: NotificationPresenter {
    /// Where banners go.
    public enum Output: Sendable {
        case standardOutput
        case standardError
        /// Each banner, as one string with line breaks, to a closure (for tests and embedding).
        case custom(@Sendable (String) -> Void)
    }

    public let name = "terminal"
    private let output: Output
    private let timeZone: @Sendable () -> TimeZone

    /// Creates a presenter.
    /// - Parameters:
    ///   - output: Where banners are written.
    ///   - timeZone: The zone the banner's time is shown in; the system zone by default.
    public init(output: Output = .standardOutput, timeZone: @escaping @Sendable () -> TimeZone = { TimeZone.current }) {
        self.output = output
        self.timeZone = timeZone
    }

    public func present(_ notification: DeliveredNotification, options: PresentationSet, category: CategorySpec?) async {
        write(Self.banner(for: notification, options: options, category: category, timeZone: timeZone()))
    }

    public func withdraw(appID: String, identifiers: [String]) async {}

    public func badgeDidChange(appID: String, count: Int) async {
        write("badge \(appID): \(count == 0 ? "hidden" : String(count))\n")
    }

    /// The banner text for a notification.
    public static func banner(
        for notification: DeliveredNotification, options: PresentationSet, category: CategorySpec?, timeZone: TimeZone
    ) -> String {
        let content = notification.request.content
        let width = 60
        var time = Date.FormatStyle(date: .omitted, time: .standard)
        time.timeZone = timeZone
        let clock = notification.date.formatted(time)
        let header = "┌─ \(notification.appID) "
        var lines = [header + String(repeating: "─", count: max(2, width - header.count - clock.count - 1)) + " " + clock]
        if options.isVisible {
            // A communication notification shows its sender (and group) in place of the title.
            let title = content.communication?.displayTitle ?? content.title
            for text in [title, content.subtitle] where !text.isEmpty { lines.append("│ \(text)") }
            let body = displayBody(content.body)
            if !body.isEmpty {
                for line in body.split(separator: "\n", omittingEmptySubsequences: false) { lines.append("│ \(line)") }
            }
        }
        var footer: [String] = []
        if let actions = category?.actions, !actions.isEmpty, options.isVisible {
            footer.append(actions.map { "[\($0.title)\($0.textInput != nil ? "…" : "")]" }.joined(separator: " "))
        }
        var extras: [String] = []
        if options.contains(.sound), let sound = content.sound { extras.append("♪ \(sound.name ?? "default")") }
        if options.contains(.badge), let badge = content.badge { extras.append("badge \(badge)") }
        if !extras.isEmpty { footer.append(extras.joined(separator: " · ")) }
        if !footer.isEmpty { lines.append("│ " + footer.joined(separator: "   ")) }
        lines.append("└─ id: \(notification.identifier)")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The body as Apple shows it: `%%` becomes `%` and other printf escapes are removed.
    public static func displayBody(_ body: String) -> String {
        var result = ""
        var index = body.startIndex
        while index < body.endIndex {
            let character = body[index]
            guard character == "%" else {
                result.append(character)
                index = body.index(after: index)
                continue
            }
            let next = body.index(after: index)
            if next < body.endIndex, body[next] == "%" {
                result.append("%")
                index = body.index(after: next)
                continue
            }
            // Skip a conversion: flags, width, precision, length, then the conversion letter (or `@`).
            var cursor = next
            while cursor < body.endIndex, "0123456789.-+ #$lhqLjzt*".contains(body[cursor]) { cursor = body.index(after: cursor) }
            if cursor < body.endIndex, body[cursor].isLetter || body[cursor] == "@" {
                index = body.index(after: cursor)
            } else {
                result.append(character)
                index = next
            }
        }
        return result
    }

    private func write(_ text: String) {
        switch output {
        case .standardOutput: FileHandle.standardOutput.write(Data(text.utf8))
        case .standardError: FileHandle.standardError.write(Data(text.utf8))
        case .custom(let sink): sink(text)
        }
    }
}
