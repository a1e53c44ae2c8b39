import Foundation
import Testing
import TestPrograms

/// The `unotify` built next to this test bundle (`swift build --build-tests` builds it too).
private func unotify() throws -> URL {
    let beside = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    var candidates = [beside.appendingPathComponent("unotify")]
    var folder = beside
    for _ in 0..<4 {
        folder.deleteLastPathComponent()
        candidates.append(folder.appendingPathComponent("unotify"))
    }
    let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    candidates.append(package.appendingPathComponent(".build-push/debug/unotify"))
    candidates.append(package.appendingPathComponent(".build/debug/unotify"))
    let found = candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    return try #require(found, "build unotify first")
}

/// Runs `unotify` in embedded mode on a store and returns its status, output and errors.
private func run(_ arguments: [String], store: String, stdin: Data? = nil) async throws -> (status: Int32, out: String, err: String) {
    let process = TestProcess()
    process.executableURL = try unotify()
    process.arguments = arguments + ["--store", store, "--mode", "embedded"]
    var environment = ProcessInfo.processInfo.environment
    environment["OPENUN_PRESENTER"] = "terminal"
    environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent"
    environment["LANG"] = "en_US.UTF-8"
    process.environment = environment
    let out = Pipe(), err = Pipe(), input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(stdin) }
    try input.fileHandleForWriting.close()
    let (output, errors) = await offPool {
        (out.fileHandleForReading.readDataToEndOfFile(), err.fileHandleForReading.readDataToEndOfFile())
    }
    await process.exited()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
}

@Suite("unotify token and push", .serialized)
struct CommandTests {
    @Test("token prints 64 hex digits, the same each time; --unregister ends it and a new one follows")
    func token() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("push-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("store.sqlite").path
        let first = try await run(["token", "--app", "com.example.cli"], store: store)
        #expect(first.status == 0, "\(first.err)")
        let hex = first.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(hex.count == 64 && hex.allSatisfy(\.isHexDigit))
        #expect(try await run(["token", "--app", "com.example.cli"], store: store).out == first.out)
        #expect(try await run(["token", "--app", "com.example.other"], store: store).out != first.out)
        let ended = try await run(["token", "--app", "com.example.cli", "--unregister", "--json"], store: store)
        #expect(ended.out.contains("unregisteredAt"))
        #expect(try await run(["token", "--app", "com.example.cli"], store: store).out != first.out)
    }

    @Test("token says on stderr, while the app may not notify, that its pushes are dropped and how to authorize it")
    func tokenWarnsWhileUnauthorized() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("push-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("store.sqlite").path
        let app = "com.example.quiet"
        let first = try await run(["token", "--app", app], store: store)
        #expect(first.status == 0, "\(first.err)")
        #expect(first.out.trimmingCharacters(in: .newlines).count == 64)
        let grant = "unotify authorize --grant --app \(app) --store \(store) --mode embedded"
        #expect(
            first.err == "unotify: \(app) has not been authorized to show notifications: pushes to this token are "
                + "answered 200 and dropped (history: unauthorized) until the app is authorized; grant it with: \(grant)\n")
        // --json keeps standard output to the JSON object.
        let json = try await run(["token", "--app", app, "--json"], store: store)
        #expect(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) is [String: Any])
        #expect(json.err.contains("dropped"))

        // As it says: a push now is accepted and dropped.
        let dropped = try await run(["push", app, "-"], store: store, stdin: Data(#"{"aps":{"alert":"unseen"}}"#.utf8))
        #expect(dropped.status == 0, "\(dropped.err)")
        #expect(!(try await run(["delivered", "--app", app, "--json"], store: store).out.contains("unseen")))
        #expect(try await run(["history", "--app", app, "--json"], store: store).out.contains("unauthorized"))

        // The line it gives works: afterwards token says nothing more, and a push is delivered.
        let granted = try await run(Array(grant.split(separator: " ").dropFirst().map(String.init)), store: store)
        #expect(granted.status == 0 && granted.out.contains("authorized"), "\(granted.err)")
        let quiet = try await run(["token", "--app", app], store: store)
        #expect(quiet.err.isEmpty && quiet.out == first.out, "\(quiet.err)")
        let push = try await run(["push", app, "-"], store: store, stdin: Data(#"{"aps":{"alert":"hello"}}"#.utf8))
        #expect(push.status == 0, "\(push.err)")
        #expect(try await run(["delivered", "--app", app, "--json"], store: store).out.contains("hello"))

        _ = try await run(["authorize", "--deny", "--app", app], store: store)
        #expect(try await run(["token", "--app", app], store: store).err.contains("\(app) is denied notifications: pushes"))
    }

    @Test("push takes .apns files with and without Simulator Target Bundle, and stdin")
    func push() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("push-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("store.sqlite").path
        let chat = folder.appendingPathComponent("Message.apns")
        try Data(Fixtures.chatMessage.utf8).write(to: chat)
        let sample = folder.appendingPathComponent("sample.apns")
        try Data(Fixtures.appleSample.utf8).write(to: sample)
        _ = try await run(["authorize", "--grant", "--app", "com.example.chat"], store: store)
        _ = try await run(["authorize", "--grant", "--app", "com.example.game"], store: store)

        let fromFile = try await run(["push", chat.path], store: store)
        #expect(fromFile.status == 0, "\(fromFile.err)")
        #expect(fromFile.out.contains("com.example.chat: scheduled"))
        let delivered = try await run(["delivered", "--app", "com.example.chat", "--json"], store: store)
        #expect(delivered.out.contains("Anna"))

        let noBundle = try await run(["push", sample.path], store: store)
        #expect(noBundle.status != 0)
        #expect(noBundle.err.contains("Simulator Target Bundle"))
        #expect(try await run(["push", "com.example.game", sample.path], store: store).status == 0)
        let stdin = try await run(["push", "com.example.game", "-"], store: store, stdin: Data(#"{"aps":{"alert":"from stdin"}}"#.utf8))
        #expect(stdin.status == 0, "\(stdin.err)")
        #expect(try await run(["delivered", "--app", "com.example.game", "--json"], store: store).out.contains("from stdin"))

        let empty = try await run(["push", "com.example.game", "-"], store: store, stdin: Data("{}".utf8))
        #expect(empty.status != 0 && empty.err.contains("PayloadEmpty"))
        let big = try await run(
            ["push", "com.example.game", "-"], store: store,
            stdin: Data(#"{"aps":{"alert":"x"},"p":"\#(String(repeating: "p", count: 4100))"}"#.utf8))
        #expect(big.status != 0 && big.err.contains("PayloadTooLarge"))
        let background = try await run(["push", "-"], store: store, stdin: Data(Fixtures.backgroundRefresh.utf8))
        #expect(background.out.contains("com.example.news: queued"))
    }
}
