import Foundation
import NotificationModel

/// The content of a notification: its text, sound, badge, attachments and custom data. Immutable; build one
/// with ``UNMutableNotificationContent``.
///
/// ```swift
/// let content = UNMutableNotificationContent()
/// content.title = "Lunch"
/// content.body = "Don't forget your sandwich"
/// content.sound = .default
/// ```
open class UNNotificationContent: NSObject, NSCopying, NSMutableCopying, NSSecureCoding, @unchecked Sendable {
    // Storage shared with the mutable subclass, which re-declares the properties read-write.
    var _title = ""
    var _subtitle = ""
    var _body = ""
    var _badge: NSNumber?
    var _sound: UNNotificationSound?
    var _launchImageName = ""
    var _userInfo: [AnyHashable: Any] = [:]
    var _attachments: [UNNotificationAttachment] = []
    var _categoryIdentifier = ""
    var _threadIdentifier = ""
    var _summaryArgument = ""
    var _summaryArgumentCount = 1
    var _targetContentIdentifier: String?
    var _interruptionLevel = UNNotificationInterruptionLevel.active
    var _relevanceScore = 0.0
    var _filterCriteria: String?
    var _communication: CommunicationSpec?

    public override init() {}

    /// Content archives securely.
    public class var supportsSecureCoding: Bool { true }

    /// Decodes content archived with ``encode(with:)``.
    public required init?(coder: NSCoder) {
        guard let payload = coder.decodeSpec(NotificationPayload.self, forKey: "content") else { return nil }
        super.init()
        assign(from: UNNotificationContent(payload: payload))
    }

    /// Archives the content; content whose `userInfo` is not a property list does not archive.
    open func encode(with coder: NSCoder) {
        guard let payload = try? payload() else { return }
        coder.encodeSpec(payload, forKey: "content")
    }

    /// The headline.
    open var title: String { _title }
    /// A secondary line under the title.
    open var subtitle: String { _subtitle }
    /// The message. `%%` shows a single `%`; other printf escapes are removed.
    open var body: String { _body }
    /// The app's new badge count; `nil` leaves the badge unchanged and `0` hides it.
    open var badge: NSNumber? { _badge }
    /// The sound to play; `nil` plays none.
    open var sound: UNNotificationSound? { _sound }
    /// The launch image name (kept, unused on Linux).
    open var launchImageName: String { _launchImageName }
    /// Custom data for the app; property-list values only.
    open var userInfo: [AnyHashable: Any] { _userInfo }
    /// Files shown with the notification.
    open var attachments: [UNNotificationAttachment] { _attachments }
    /// The identifier of a registered ``UNNotificationCategory`` whose actions the notification offers.
    open var categoryIdentifier: String { _categoryIdentifier }
    /// Groups related notifications.
    open var threadIdentifier: String { _threadIdentifier }
    @available(*, deprecated, message: "This property is ignored.")
    open var summaryArgument: String { _summaryArgument }
    @available(*, deprecated, message: "This property is ignored.")
    open var summaryArgumentCount: Int { _summaryArgumentCount }
    /// Selects the scene (window) that opens when the notification is tapped.
    open var targetContentIdentifier: String? { _targetContentIdentifier }
    /// How urgently it interrupts; `.active` by default.
    open var interruptionLevel: UNNotificationInterruptionLevel { _interruptionLevel }
    /// Sorting weight in a summary, 0.0 to 1.0.
    open var relevanceScore: Double { _relevanceScore }
    /// A Focus filter criterion.
    open var filterCriteria: String? { _filterCriteria }

    /// Returns an immutable copy.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = UNNotificationContent()
        copy.assign(from: self)
        return copy
    }

    /// Returns a ``UNMutableNotificationContent`` with the same values.
    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        let copy = UNMutableNotificationContent()
        copy.assign(from: self)
        return copy
    }

    func assign(from other: UNNotificationContent) {
        _title = other._title
        _subtitle = other._subtitle
        _body = other._body
        _badge = other._badge
        _sound = other._sound
        _launchImageName = other._launchImageName
        _userInfo = other._userInfo
        _attachments = other._attachments
        _categoryIdentifier = other._categoryIdentifier
        _threadIdentifier = other._threadIdentifier
        _summaryArgument = other._summaryArgument
        _summaryArgumentCount = other._summaryArgumentCount
        _targetContentIdentifier = other._targetContentIdentifier
        _interruptionLevel = other._interruptionLevel
        _relevanceScore = other._relevanceScore
        _filterCriteria = other._filterCriteria
        _communication = other._communication
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationContent else { return false }
        return (try? payload()) == (try? other.payload())
    }

    open override var hash: Int { (try? payload())?.hashValue ?? _title.hashValue }

    open override var description: String {
        "<UNNotificationContent title: \(_title.debugDescription), subtitle: \(_subtitle.debugDescription), "
            + "body: \(_body.debugDescription), categoryIdentifier: \(_categoryIdentifier.debugDescription)>"
    }
}

extension UNNotificationContent {
    /// The checked snapshot the engine keeps.
    /// - Throws: ``NotificationRequestError`` when `userInfo` holds a value that is not a property list.
    package func payload() throws -> NotificationPayload {
        var payload = NotificationPayload()
        payload.title = _title
        payload.subtitle = _subtitle
        payload.body = _body
        payload.badge = _badge?.intValue
        payload.sound = _sound?.spec
        payload.launchImageName = _launchImageName
        do {
            payload.userInfo = try PropertyListValue.convert(dictionary: _userInfo, path: "userInfo")
            try PropertyListValue.checkLimits(of: payload.userInfo, path: "userInfo")
        } catch let error as PropertyListValue.ConversionError {
            throw NotificationRequestError(.invalidUserInfo, error.description)
        } catch let error as PropertyListValue.LimitError {
            throw NotificationRequestError(.invalidUserInfo, error.description)
        }
        payload.attachments = _attachments.map(\.spec)
        payload.categoryIdentifier = _categoryIdentifier
        payload.threadIdentifier = _threadIdentifier
        payload.summaryArgument = _summaryArgument
        payload.summaryArgumentCount = _summaryArgumentCount
        payload.targetContentIdentifier = _targetContentIdentifier
        payload.interruptionLevel = _interruptionLevel.rawValue
        payload.relevanceScore = _relevanceScore
        payload.filterCriteria = _filterCriteria
        payload.communication = _communication
        return payload
    }

    /// Rebuilds content from the engine's snapshot.
    package convenience init(payload: NotificationPayload) {
        self.init()
        _title = payload.title
        _subtitle = payload.subtitle
        _body = payload.body
        _badge = payload.badge.map { NSNumber(value: $0) }
        _sound = payload.sound.map(UNNotificationSound.init(spec:))
        _launchImageName = payload.launchImageName
        _userInfo = Dictionary(uniqueKeysWithValues: payload.userInfo.map { (AnyHashable($0.key), $0.value.foundationValue) })
        _attachments = payload.attachments.map(UNNotificationAttachment.init(spec:))
        _categoryIdentifier = payload.categoryIdentifier
        _threadIdentifier = payload.threadIdentifier
        _summaryArgument = payload.summaryArgument
        _summaryArgumentCount = payload.summaryArgumentCount
        _targetContentIdentifier = payload.targetContentIdentifier
        _interruptionLevel = UNNotificationInterruptionLevel(rawValue: payload.interruptionLevel) ?? .active
        _relevanceScore = payload.relevanceScore
        _filterCriteria = payload.filterCriteria
        _communication = payload.communication
    }
}
