import Foundation

/// The Python with Selenium that scripts/test makes (or `OPENUN_PYTHON`), when Chromium and its driver are installed:
/// the web center's and the push statistics pages' Chromium tests drive headless Chromium with it.
public let browserPython: String? = {
    let environment = ProcessInfo.processInfo.environment
    let python: String
    if let given = environment["OPENUN_PYTHON"], !given.isEmpty {
        python = given
    } else {
        let cache =
            environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.cache")
        python = cache + "/openusernotifications/test-python/bin/python"
    }
    let files = [python, "/usr/bin/chromium", "/usr/bin/chromedriver"]
    return files.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) } ? python : nil
}()
