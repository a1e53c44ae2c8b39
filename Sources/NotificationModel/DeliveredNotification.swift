import Foundation

/// A notification that was delivered and is still listed for its app (the analogue of Notification Center).
public struct DeliveredNotification: Sendable, Hashable, Codable {
    public var appID: String
    public var request: RequestSpec
    /// The date shown on the notification: when it was delivered.
    public var date: Date
    /// The instant it was due.
    public var dueDate: Date
    /// How it was presented.
    public var presentation: PresentationSet
    /// The history entry that follows what becomes of it.
    public var historyID: Int64?

    public init(
        appID: String, request: RequestSpec, date: Date, dueDate: Date, presentation: PresentationSet,
        historyID: Int64? = nil
    ) {
        self.appID = appID
        self.request = request
        self.date = date
        self.dueDate = dueDate
        self.presentation = presentation
        self.historyID = historyID
    }

    public var identifier: String { request.identifier }
}

/// How a notification is presented: the bits of `UNNotificationPresentationOptions`.
public struct PresentationSet: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let badge = PresentationSet(rawValue: 1 << 0)
    public static let sound = PresentationSet(rawValue: 1 << 1)
    public static let alert = PresentationSet(rawValue: 1 << 2)
    public static let list = PresentationSet(rawValue: 1 << 3)
    public static let banner = PresentationSet(rawValue: 1 << 4)

    /// Whether a person sees anything on screen.
    public var isVisible: Bool { !intersection([.alert, .list, .banner]).isEmpty }

    public var names: [String] {
        [(PresentationSet.banner, "banner"), (.list, "list"), (.alert, "alert"), (.sound, "sound"), (.badge, "badge")]
            .filter { contains($0.0) }.map(\.1)
    }
}
