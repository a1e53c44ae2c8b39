import Foundation

/// Content you fill in before scheduling a notification.
///
/// ```swift
/// let content = UNMutableNotificationContent()
/// content.title = "Wake up"
/// content.body = "Rise and shine!"
/// content.sound = .default
/// content.userInfo = ["alarm": 7]
/// let request = UNNotificationRequest(identifier: "alarm", content: content, trigger: nil)
/// ```
open class UNMutableNotificationContent: UNNotificationContent, @unchecked Sendable {
    public override init() { super.init() }

    public required init?(coder: NSCoder) { super.init(coder: coder) }

    open override var title: String {
        get { _title }
        set { _title = newValue }
    }
    open override var subtitle: String {
        get { _subtitle }
        set { _subtitle = newValue }
    }
    open override var body: String {
        get { _body }
        set { _body = newValue }
    }
    open override var badge: NSNumber? {
        get { _badge }
        set { _badge = newValue }
    }
    open override var sound: UNNotificationSound? {
        get { _sound }
        set { _sound = newValue }
    }
    open override var launchImageName: String {
        get { _launchImageName }
        set { _launchImageName = newValue }
    }
    open override var userInfo: [AnyHashable: Any] {
        get { _userInfo }
        set { _userInfo = newValue }
    }
    open override var attachments: [UNNotificationAttachment] {
        get { _attachments }
        set { _attachments = newValue }
    }
    open override var categoryIdentifier: String {
        get { _categoryIdentifier }
        set { _categoryIdentifier = newValue }
    }
    open override var threadIdentifier: String {
        get { _threadIdentifier }
        set { _threadIdentifier = newValue }
    }
    @available(*, deprecated, message: "This property is ignored.")
    open override var summaryArgument: String {
        get { _summaryArgument }
        set { _summaryArgument = newValue }
    }
    @available(*, deprecated, message: "This property is ignored.")
    open override var summaryArgumentCount: Int {
        get { _summaryArgumentCount }
        set { _summaryArgumentCount = newValue }
    }
    open override var targetContentIdentifier: String? {
        get { _targetContentIdentifier }
        set { _targetContentIdentifier = newValue }
    }
    open override var interruptionLevel: UNNotificationInterruptionLevel {
        get { _interruptionLevel }
        set { _interruptionLevel = newValue }
    }
    open override var relevanceScore: Double {
        get { _relevanceScore }
        set { _relevanceScore = newValue }
    }
    open override var filterCriteria: String? {
        get { _filterCriteria }
        set { _filterCriteria = newValue }
    }
}
