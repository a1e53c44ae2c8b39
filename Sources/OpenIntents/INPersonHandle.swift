import Foundation

/// The kind of a person's handle.
public enum INPersonHandleType: Int, Sendable, Hashable {
    case unknown = 0
    case emailAddress = 1
    case phoneNumber = 2
}

/// How a person is reached: an email address, a phone number or an app's own account identifier.
///
/// ```swift
/// let handle = INPersonHandle(value: "ana@example.com", type: .emailAddress)
/// ```
open class INPersonHandle: NSObject, @unchecked Sendable {  // immutable after init
    /// The handle's value.
    public let value: String?
    /// The handle's kind.
    public let type: INPersonHandleType

    /// Creates a handle.
    public init(value: String?, type: INPersonHandleType) {
        self.value = value
        self.type = type
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? INPersonHandle else { return false }
        return other.value == value && other.type == type
    }

    open override var hash: Int { value.hashValue }
}
