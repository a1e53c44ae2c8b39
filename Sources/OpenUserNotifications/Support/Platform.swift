import Foundation

/// Operating-system conventions in one place: where data lives and where the executable is.
package enum Platform {
    /// `OPENUN_STORE`, else `$XDG_DATA_HOME/openusernotifications/store.sqlite`, else
    /// `~/.local/share/openusernotifications/store.sqlite` (the XDG base-directory default).
    package static func defaultStorePath(environment: [String: String]) -> String {
        if let path = environment["OPENUN_STORE"], !path.isEmpty { return path }
        return dataDirectory(environment: environment).appendingPathComponent("store.sqlite").path
    }

    /// The project's folder under the XDG data directory.
    package static func dataDirectory(environment: [String: String]) -> URL {
        let base: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg)
        } else {
            let home = environment["HOME"] ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home).appendingPathComponent(".local/share")
        }
        return base.appendingPathComponent("openusernotifications")
    }

    /// The app's bundle directory: where its resources (sounds, localized strings) live; the executable's folder.
    package static var bundleDirectory: String? {
        executableURL.map { $0.deletingLastPathComponent().path }
    }

    /// The running executable.
    package static var executableURL: URL? {
        #if os(Linux) || os(macOS) || os(FreeBSD)
        return Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        #else
        #error("Platform.executableURL: unsupported operating system")
        #endif
    }
}
