import Foundation

/// An image for an intent, such as a person's avatar: from the app's bundle, from bytes, or from a file.
///
/// ```swift
/// let avatar = INImage(imageData: try Data(contentsOf: avatarFile))
/// ```
///
/// > Note: On Linux, a named image is looked up as a file in the app's bundle directory (the executable's folder);
/// > a URL image must be a file URL to be shown.
open class INImage: NSObject, @unchecked Sendable {  // immutable after init
    /// The image's bytes, for an image made from data.
    package let imageData: Data?
    /// The image's file, for an image made from a file URL or found by name.
    package let imageURL: URL?

    /// An image by name from the app's bundle.
    public init(named name: String) {
        let file = Bundle.main.bundleURL.appendingPathComponent(name)
        let executableFolder = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
            .appendingPathComponent(name)
        imageURL = [file, executableFolder].first { FileManager.default.fileExists(atPath: $0.path) }
        imageData = nil
    }

    /// An image from encoded image data (PNG, JPEG, GIF).
    public init(imageData: Data) {
        self.imageData = imageData
        imageURL = nil
    }

    /// An image at a URL.
    public init?(url: URL) {
        imageURL = url
        imageData = nil
    }

    /// An image at a URL with its size in points.
    public init(url: URL, width: Double, height: Double) {
        imageURL = url
        imageData = nil
    }

    /// A system image by name (kept; Linux has no system images to show).
    public static func systemImageNamed(_ systemImageName: String) -> INImage { INImage(named: systemImageName) }
}
