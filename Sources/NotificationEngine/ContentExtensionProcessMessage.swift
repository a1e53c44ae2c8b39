import Foundation
import NotificationModel

/// A content extension in the app's process, as the daemon's client reaches it: the answer to one message (the view's
/// HTML, or the name of a ``ContentExtensionResponseOption``), `nil` when it has none.
public typealias ContentExtensionAnswering = @Sendable (ContentExtensionProcessMessage) async -> String?

/// What the system writes to a content extension executable's standard input: one line of JSON, then the end of
/// the input. The executable answers on its standard output and exits with status 0: the view's HTML (UTF-8) for
/// ``view(appID:notification:)``, the raw value of a ``ContentExtensionResponseOption`` for
/// ``response(appID:response:)``.
public enum ContentExtensionProcessMessage: Codable, Sendable, Hashable {
    /// `didReceive(_ notification:)`: draw this notification.
    case view(appID: String, notification: DeliveredNotification)
    /// `didReceive(_ response:completionHandler:)`: a person pressed an action below the view.
    case response(appID: String, response: ResponseSpec)

    /// The message as one line of JSON, newline included.
    public func encodedLine() throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        var data = try encoder.encode(self)
        data.append(0x0A)
        return data
    }

    /// Decodes one line (with or without its newline); `nil` for anything else.
    public static func decode(line: Data) -> ContentExtensionProcessMessage? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(ContentExtensionProcessMessage.self, from: line)
    }
}
