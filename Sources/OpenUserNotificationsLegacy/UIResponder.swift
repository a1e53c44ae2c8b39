import Foundation

/// The base class of ``UIApplication`` and of an app delegate written the UIKit way
/// (`class AppDelegate: UIResponder, UIApplicationDelegate`).
///
/// > Note: On Linux, there is no responder chain: the class exists so that such declarations compile unchanged.
@MainActor
open class UIResponder: NSObject {
    /// Creates a responder.
    public nonisolated override init() {
        super.init()
    }
}
