import Foundation
import NotificationModel

/// A kind of notification and the actions it offers. Register categories with
/// ``UNUserNotificationCenter/setNotificationCategories(_:)`` and name one in
/// ``UNNotificationContent/categoryIdentifier``.
///
/// ```swift
/// let category = UNNotificationCategory(identifier: "reminder", actions: [cancel], intentIdentifiers: [],
///                                       options: [.customDismissAction])
/// UNUserNotificationCenter.current().setNotificationCategories([category])
/// ```
open class UNNotificationCategory: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    public let identifier: String
    /// The actions, in display order.
    public let actions: [UNNotificationAction]
    public let intentIdentifiers: [String]
    public let options: UNNotificationCategoryOptions
    public let hiddenPreviewsBodyPlaceholder: String
    public let categorySummaryFormat: String

    public convenience init(
        identifier: String, actions: [UNNotificationAction], intentIdentifiers: [String],
        options: UNNotificationCategoryOptions = []
    ) {
        self.init(
            identifier: identifier, actions: actions, intentIdentifiers: intentIdentifiers,
            hiddenPreviewsBodyPlaceholder: nil, categorySummaryFormat: nil, options: options)
    }

    public convenience init(
        identifier: String, actions: [UNNotificationAction], intentIdentifiers: [String],
        hiddenPreviewsBodyPlaceholder: String, options: UNNotificationCategoryOptions = []
    ) {
        self.init(
            identifier: identifier, actions: actions, intentIdentifiers: intentIdentifiers,
            hiddenPreviewsBodyPlaceholder: hiddenPreviewsBodyPlaceholder, categorySummaryFormat: nil, options: options)
    }

    public init(
        identifier: String, actions: [UNNotificationAction], intentIdentifiers: [String],
        hiddenPreviewsBodyPlaceholder: String?, categorySummaryFormat: String?, options: UNNotificationCategoryOptions = []
    ) {
        self.identifier = identifier
        self.actions = actions
        self.intentIdentifiers = intentIdentifiers
        self.hiddenPreviewsBodyPlaceholder = hiddenPreviewsBodyPlaceholder ?? ""
        self.categorySummaryFormat = categorySummaryFormat ?? ""
        self.options = options
    }

    /// Categories archive securely.
    public class var supportsSecureCoding: Bool { true }

    /// Decodes a category archived with ``encode(with:)``.
    public required convenience init?(coder: NSCoder) {
        guard let spec = coder.decodeSpec(CategorySpec.self, forKey: "category") else { return nil }
        self.init(
            identifier: spec.identifier, actions: spec.actions.map(UNNotificationAction.make),
            intentIdentifiers: spec.intentIdentifiers, hiddenPreviewsBodyPlaceholder: spec.hiddenPreviewsBodyPlaceholder,
            categorySummaryFormat: spec.categorySummaryFormat, options: UNNotificationCategoryOptions(rawValue: spec.options))
    }

    /// Archives the category with its actions.
    open func encode(with coder: NSCoder) { coder.encodeSpec(spec, forKey: "category") }

    package var spec: CategorySpec {
        CategorySpec(
            identifier: identifier, actions: actions.map(\.spec), intentIdentifiers: intentIdentifiers,
            hiddenPreviewsBodyPlaceholder: hiddenPreviewsBodyPlaceholder.isEmpty ? nil : hiddenPreviewsBodyPlaceholder,
            categorySummaryFormat: categorySummaryFormat.isEmpty ? nil : categorySummaryFormat, options: options.rawValue)
    }

    package static func make(_ spec: CategorySpec) -> UNNotificationCategory {
        UNNotificationCategory(
            identifier: spec.identifier, actions: spec.actions.map(UNNotificationAction.make),
            intentIdentifiers: spec.intentIdentifiers, hiddenPreviewsBodyPlaceholder: spec.hiddenPreviewsBodyPlaceholder,
            categorySummaryFormat: spec.categorySummaryFormat, options: UNNotificationCategoryOptions(rawValue: spec.options))
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool { (object as? UNNotificationCategory)?.spec == spec }
    open override var hash: Int { spec.hashValue }
}
