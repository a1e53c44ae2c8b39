import Foundation
import Testing
import TestPrograms

/// The Debian package of packaging/deb/build.sh, unpacked into a temporary root (`dpkg -x`): its commands run, its
/// man pages open, its completions load, its systemd units start the installed daemon.
///
/// The suite tests `OPENUN_DEB` when set, else the newest `.build/deb/openusernotifications_*.deb`:
/// `scripts/test` makes one first (`packaging/deb/build.sh --debug`, seconds after a debug build), so CI always has
/// one; a bare `swift test` without a package skips the suite.
@Suite("Debian package", .enabled(if: DebianPackage.file != nil, "no .deb: run packaging/deb/build.sh"))
struct DebianPackageTests {
    static var package: URL? { DebianPackage.file }

    /// Runs a program to its end, with `environment` added to a minimal one (no LD_LIBRARY_PATH, no toolchain).
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws
        -> (status: Int32, output: String)
    {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": FileManager.default.temporaryDirectory.path, "LANG": "C.UTF-8"]
            .merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = await offPool { pipe.fileHandleForReading.readDataToEndOfFile() }
        await process.exited()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Unpacks the package into a new folder.
    static func unpacked() async throws -> URL {
        let deb = try #require(package)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("deb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let extraction = try await run("/usr/bin/dpkg", ["-x", deb.path, root.path])
        try #require(extraction.status == 0, "\(extraction.output)")
        return root
    }

    @Test("the installed unotify and unotifyd run without the toolchain and answer --help")
    func commandsRun() async throws {
        let root = try await Self.unpacked()
        defer { try? FileManager.default.removeItem(at: root) }
        let help = try await Self.run(root.appendingPathComponent("usr/bin/unotify").path, ["--help"])
        #expect(help.status == 0, "\(help.output)")
        #expect(help.output.contains("USAGE: unotify") && help.output.contains("add"))
        let daemonHelp = try await Self.run(root.appendingPathComponent("usr/bin/unotifyd").path, ["--help"])
        #expect(daemonHelp.status == 0 && daemonHelp.output.contains("USAGE: unotifyd"), "\(daemonHelp.output)")
        // Linked statically: no Swift runtime library is loaded from outside the package.
        let libraries = try await Self.run("/usr/bin/ldd", [root.appendingPathComponent("usr/bin/unotify").path])
        #expect(!libraries.output.contains("libswiftCore") && !libraries.output.contains("not found"), "\(libraries.output)")
        let depends = try await Self.run("/usr/bin/dpkg-deb", ["-f", try #require(Self.package).path, "Depends"])
        #expect(depends.output.contains("libsqlite3"), "\(depends.output)")
    }

    @Test("man finds unotify(1) and unotifyd(1), by file and through MANPATH")
    func manPages() async throws {
        let root = try await Self.unpacked()
        defer { try? FileManager.default.removeItem(at: root) }
        let manual = root.appendingPathComponent("usr/share/man")
        let byFile = try await Self.run(
            "/usr/bin/man", ["-l", manual.appendingPathComponent("man1/unotify.1.gz").path], environment: ["MANPAGER": "cat"])
        #expect(byFile.status == 0, "\(byFile.output)")
        #expect(byFile.output.contains("unotify") && byFile.output.contains("--attachment"))
        let byName = try await Self.run("/usr/bin/man", ["unotifyd"], environment: ["MANPATH": manual.path, "MANPAGER": "cat"])
        #expect(byName.status == 0 && byName.output.contains("unotifyd"), "\(byName.output)")
    }

    @Test("bash loads the completion script and completes unotify's subcommands; zsh's and fish's are there")
    func completions() async throws {
        let root = try await Self.unpacked()
        defer { try? FileManager.default.removeItem(at: root) }
        let script = root.appendingPathComponent("usr/share/bash-completion/completions/unotify").path
        let loaded = try await Self.run("/bin/bash", ["-c", "source '\(script)' && complete -p unotify"])
        #expect(loaded.status == 0 && loaded.output.contains("-F _unotify"), "\(loaded.output)")
        // What bash does on `unotify <TAB>`: the completion function fills COMPREPLY.
        let completing = #"""
            source "$0"; COMP_WORDS=(unotify ""); COMP_CWORD=1; COMP_LINE="unotify "; COMP_POINT=${#COMP_LINE}
            _unotify; printf '%s\n' "${COMPREPLY[@]}"
            """#
        let offered = try await Self.run("/bin/bash", ["-c", completing, script])
        let words = Set(offered.output.split(separator: "\n").map(String.init))
        #expect(["add", "list", "delivered", "remove", "watch"].allSatisfy(words.contains), "\(offered.output)")
        for path in ["usr/share/zsh/vendor-completions/_unotify", "usr/share/fish/vendor_completions.d/unotify.fish"] {
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            #expect(text.contains("unotify") && text.contains("delivered"), "\(path)")
        }
    }

    @Test("the systemd user units start the installed daemon on the socket the installed unotify finds")
    func units() async throws {
        let root = try await Self.unpacked()
        defer { try? FileManager.default.removeItem(at: root) }
        let units = root.appendingPathComponent("usr/lib/systemd/user")
        let service = try String(contentsOf: units.appendingPathComponent("unotifyd.service"), encoding: .utf8)
        let socketUnit = try String(contentsOf: units.appendingPathComponent("unotifyd.socket"), encoding: .utf8)
        let execStart = try #require(Self.value(of: "ExecStart", in: service)).split(separator: " ").map(String.init)
        let listenStream = try #require(Self.value(of: "ListenStream", in: socketUnit))
        #expect(execStart.first == "/usr/bin/unotifyd")

        // What systemd does for the user: %t is $XDG_RUNTIME_DIR; it makes the socket's folder, binds, listens,
        // and starts ExecStart with the socket as fd 3 on the first connection.
        let home = URL(fileURLWithPath: "/tmp/deb-home-\(UUID().uuidString.prefix(8))")
        let runtime = home.appendingPathComponent("run")
        defer { try? FileManager.default.removeItem(at: home) }
        let socketPath = listenStream.replacingOccurrences(of: "%t", with: runtime.path)
        try FileManager.default.createDirectory(
            atPath: (socketPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let listener = try listeningSocket(at: socketPath, backlog: 16)
        defer { close(listener) }
        let daemon = root.appendingPathComponent(String(try #require(execStart.first).dropFirst())).path
        let pid = try spawnSocketActivated(
            // The APNs endpoint off: its fixed default port may be another test's.
            daemon: daemon, listener: listener, arguments: Array(execStart.dropFirst()) + ["--apns-address", "off", "--web-address", "off"],
            environment: ["PATH=/usr/bin:/bin", "HOME=\(home.path)", "XDG_RUNTIME_DIR=\(runtime.path)"])
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }

        // The installed unotify, with nothing but the runtime folder, reaches that daemon.
        let unotify = root.appendingPathComponent("usr/bin/unotify").path
        let environment = ["HOME": home.path, "XDG_RUNTIME_DIR": runtime.path]
        let added = try await Self.run(
            unotify, ["--mode", "daemon", "--app", "com.example.deb", "add", "--in", "1h", "--title", "From the package"],
            environment: environment)
        #expect(added.status == 0, "\(added.output)")
        let listed = try await Self.run(unotify, ["--mode", "daemon", "--app", "com.example.deb", "list"], environment: environment)
        #expect(listed.status == 0 && listed.output.contains("From the package"), "\(listed.output)")
        let status = try await Self.run(unotify, ["--mode", "daemon", "status"], environment: environment)
        #expect(status.output.contains("\(pid)"), "\(status.output)")
    }

    /// The value of the first `key=value` line of a unit file.
    static func value(of key: String, in unit: String) -> String? {
        unit.split(separator: "\n").first { $0.hasPrefix("\(key)=") }.map { String($0.dropFirst(key.count + 1)) }
    }
}

/// The package under test.
enum DebianPackage {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var file: URL? {
        if let path = ProcessInfo.processInfo.environment["OPENUN_DEB"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let folder = packageRoot.appendingPathComponent(".build/deb")
        let debs = (try? FileManager.default.contentsOfDirectory(
            at: folder, includingPropertiesForKeys: [.contentModificationDateKey]))?
            .filter { $0.lastPathComponent.hasPrefix("openusernotifications_") && $0.pathExtension == "deb" } ?? []
        return debs.max { modified($0) < modified($1) }
    }

    static func modified(_ url: URL) -> Date {
        (try? url.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate) ?? .distantPast
    }
}
