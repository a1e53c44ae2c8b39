import Foundation

/// The base class of intents: a request an app hands the system, with images for its parameters.
open class INIntent: NSObject, @unchecked Sendable {  // `images` is guarded by `lock`
    private let lock = NSLock()
    private var images: [AnyKeyPath: INImage] = [:]

    public override init() {}

    /// An identifier of the intent.
    open var identifier: String? { nil }

    package func storeImage(_ image: INImage?, for parameter: AnyKeyPath) {
        lock.withLock { images[parameter] = image }
    }

    package func storedImage(for parameter: AnyKeyPath) -> INImage? {
        lock.withLock { images[parameter] }
    }

    /// The image that best represents the intent.
    open func keyImage() -> INImage? { nil }
}

/// The base class of intents' responses.
open class INIntentResponse: NSObject, @unchecked Sendable {
    public override init() {}
}

/// Gives every intent `setImage(_:forParameterNamed:)` with key paths of its own type.
public protocol INIntentSetImageKeyPath {}

extension INIntent: INIntentSetImageKeyPath {}

extension INIntentSetImageKeyPath where Self: INIntent {
    /// Sets the image shown for a parameter, such as a group conversation's picture for `\.speakableGroupName`.
    ///
    /// ```swift
    /// intent.setImage(groupPicture, forParameterNamed: \.speakableGroupName)
    /// ```
    public func setImage<Value>(_ image: INImage?, forParameterNamed parameterName: KeyPath<Self, Value>) {
        storeImage(image, for: parameterName)
    }

    /// The image set for a parameter.
    public func image<Value>(forParameterNamed parameterName: KeyPath<Self, Value>) -> INImage? {
        storedImage(for: parameterName)
    }
}
