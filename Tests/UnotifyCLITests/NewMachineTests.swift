import Foundation
import Testing

/// What a person meets on a new machine: the README's first command, with nothing but Swift installed and nothing
/// of theirs in the environment.
@Suite("a new machine", .serialized)
struct NewMachineTests {
    /// The environment of a new login with nothing set up: a fresh home, no XDG folders, no session bus.
    private static func newUserEnvironment(home: URL) -> [String: String] {
        ["HOME": home.path, "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"]
    }

    @Test("unotify and unotifyd do not link libdbus: it is opened at run time, so building needs no -dev package")
    func noLibdbusAtLoadTime() async throws {
        for name in ["unotify", "unotifyd"] {
            let executable = try builtExecutable(name)
            let ldd = try RunningCommand([executable.path], environment: [:], executable: "/usr/bin/ldd")
            await ldd.waitForExit()
            _ = await ldd.wait(upTo: 1) { out, _ in out.contains("libc.so") }
            #expect(ldd.process.terminationStatus == 0, "ldd \(name): \(ldd.stderr)")
            #expect(ldd.stdout.contains("libc.so"), "ldd \(name) printed no libraries: \(ldd.stdout)")
            #expect(!ldd.stdout.contains("libdbus"), "\(name) links libdbus at load time:\n\(ldd.stdout)")
        }
    }

    @Test("the README's first command: `add --in 2s` then `watch` in a clean environment shows it in the terminal")
    func readmeFirstCommand() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("unotify-home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = Self.newUserEnvironment(home: home)
        let add = try RunningCommand(
            ["add", "--in", "2s", "--title", "Hello from Linux", "--body", "Delivered by OpenUserNotifications"],
            environment: environment, inheritsEnvironment: false)
        await add.waitForExit()
        #expect(add.process.terminationStatus == 0, "add: \(add.stderr)")
        let watch = try RunningCommand(["watch", "--for", "20"], environment: environment, inheritsEnvironment: false)
        defer { Task { await watch.kill9() } }
        #expect(await watch.wait(upTo: 20) { out, _ in out.contains("│ Delivered by OpenUserNotifications") })
        #expect(watch.stdout.contains("│ Hello from Linux"))
        // The store is where the README says: SQLite under the user's data folder.
        let store = home.appendingPathComponent(".local/share/openusernotifications/store.sqlite")
        #expect(FileManager.default.fileExists(atPath: store.path))
        // Nothing about D-Bus: no bus is not worth a warning.
        #expect(!watch.stderr.contains("warning"), "watch warned: \(watch.stderr)")
    }

    @Test("without libdbus, one warning names the missing library and the terminal delivers")
    func withoutLibdbus() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("unotify-home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        var environment = Self.newUserEnvironment(home: home)
        // A session bus address that would be tried if the library were there, and a library that is not.
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(home.path)/no-bus"
        environment["OPENUN_LIBDBUS"] = "\(home.path)/libdbus-1.so.3"
        let add = try RunningCommand(
            ["add", "--in", "1s", "--title", "Still here"], environment: environment, inheritsEnvironment: false)
        await add.waitForExit()
        #expect(add.process.terminationStatus == 0, "add: \(add.stderr)")
        let watch = try RunningCommand(["watch", "--for", "20"], environment: environment, inheritsEnvironment: false)
        defer { Task { await watch.kill9() } }
        #expect(await watch.wait(upTo: 20) { out, _ in out.contains("│ Still here") })
        let warnings = watch.stderr.split(separator: "\n").filter { $0.contains("libdbus") }
        #expect(warnings.count == 1, "stderr: \(watch.stderr)")
        #expect(warnings.first?.contains("cannot open shared object file") == true)
    }
}
